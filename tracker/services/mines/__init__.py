"""The mine warfare rooms: ships' counters and fuel, a minefield's place, the minefield ledger's
changes, its drifts and its reading, and the mine check.

Second World War at Sea mine-warfare variant (RULES.md §Mines) and the War at Sea secured and
drifting minefields (RULES.md §Subs ¶12-13). The campaign's mine damage table is one of its typed-in
rule tables (tracker.services.rule_tables). Callers say `mines.ledger(...)`: the names of the
rooms are gathered here so that one import reaches them all.
"""

from tracker.models.mines import MinefieldCreate as MinefieldCreate
from tracker.models.mines import MinefieldTurn as MinefieldTurn
from tracker.models.mines import SeaBoundaryBase as SeaBoundaryBase
from tracker.services.mines.checks import CheckView as CheckView
from tracker.services.mines.checks import DrawView as DrawView
from tracker.services.mines.checks import abandon_check as abandon_check
from tracker.services.mines.checks import check_view as check_view
from tracker.services.mines.checks import current_check as current_check
from tracker.services.mines.checks import roll_mine as roll_mine
from tracker.services.mines.checks import start_check as start_check
from tracker.services.mines.checks import table_effect as table_effect
from tracker.services.mines.counters import CounterUpdate as CounterUpdate
from tracker.services.mines.counters import CounterView as CounterView
from tracker.services.mines.counters import counter as counter
from tracker.services.mines.counters import counter_ships as counter_ships
from tracker.services.mines.counters import import_counters as import_counters
from tracker.services.mines.counters import refuel_ship as refuel_ship
from tracker.services.mines.counters import save_counter as save_counter
from tracker.services.mines.counters import ship_counters as ship_counters
from tracker.services.mines.counters import ship_finder as ship_finder
from tracker.services.mines.counters import torpedo_attack as torpedo_attack
from tracker.services.mines.counters import use_fuel as use_fuel
from tracker.services.mines.drifts import drift as drift
from tracker.services.mines.drifts import drifting as drifting
from tracker.services.mines.drifts import not_drifted as not_drifted
from tracker.services.mines.minefields import AirDrop as AirDrop
from tracker.services.mines.minefields import add_boundary as add_boundary
from tracker.services.mines.minefields import aerial_drop as aerial_drop
from tracker.services.mines.minefields import complete_minefield as complete_minefield
from tracker.services.mines.minefields import reveal as reveal
from tracker.services.mines.minefields import set_status as set_status
from tracker.services.mines.minefields import sow_minefield as sow_minefield
from tracker.services.mines.reading import BoundaryView as BoundaryView
from tracker.services.mines.reading import Ledger as Ledger
from tracker.services.mines.reading import MinefieldView as MinefieldView
from tracker.services.mines.reading import ledger as ledger
from tracker.services.rule_tables import delete_mine_row as delete_mine_row
from tracker.services.rule_tables import mine_table as mine_table
from tracker.services.rule_tables import save_mine_row as save_mine_row
