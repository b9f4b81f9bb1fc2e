"""The mine warfare rooms: ships' counters and fuel, a minefield's place, the minefield ledger's
changes, its drifts and its reading, and the mine check.

Second World War at Sea mine-warfare variant (RULES.md §Mines) and the War at Sea secured and
drifting minefields (RULES.md §Subs ¶12-13). The campaign's mine damage table is one of its typed-in
rule tables (tracker.services.rule_tables). Callers say `mines.ledger(...)`: the names of the
rooms are gathered here so that one import reaches them all.
"""

from tracker.models.mines import (
    APPLIES_TO,
    COUNTER_SIZES,
    LAYERS,
    MINEFIELD_STATUSES,
    MinefieldCreate,
    MinefieldTurn,
    SeaBoundaryBase,
)
from tracker.services.mines.checks import (
    CheckView,
    DrawView,
    abandon_check,
    check_view,
    current_check,
    roll_mine,
    start_check,
    table_effect,
)
from tracker.services.mines.counters import (
    CounterUpdate,
    CounterView,
    counter,
    counter_ships,
    refuel_ship,
    save_counter,
    ship_counters,
    ship_finder,
    torpedo_attack,
    use_fuel,
)
from tracker.services.mines.drifts import drift, drifting, not_drifted
from tracker.services.mines.minefields import (
    AirDrop,
    add_boundary,
    aerial_drop,
    complete_minefield,
    reveal,
    set_status,
    sow_minefield,
)
from tracker.services.mines.reading import BoundaryView, Ledger, MinefieldView, ledger
from tracker.services.rule_tables import delete_mine_row, mine_table, save_mine_row

__all__ = [
    "APPLIES_TO",
    "COUNTER_SIZES",
    "LAYERS",
    "MINEFIELD_STATUSES",
    "AirDrop",
    "BoundaryView",
    "CheckView",
    "CounterUpdate",
    "CounterView",
    "DrawView",
    "Ledger",
    "MinefieldCreate",
    "MinefieldTurn",
    "MinefieldView",
    "SeaBoundaryBase",
    "abandon_check",
    "add_boundary",
    "aerial_drop",
    "check_view",
    "complete_minefield",
    "counter",
    "counter_ships",
    "current_check",
    "delete_mine_row",
    "drift",
    "drifting",
    "ledger",
    "mine_table",
    "not_drifted",
    "refuel_ship",
    "reveal",
    "roll_mine",
    "save_counter",
    "save_mine_row",
    "set_status",
    "ship_counters",
    "ship_finder",
    "sow_minefield",
    "start_check",
    "table_effect",
    "torpedo_attack",
    "use_fuel",
]
