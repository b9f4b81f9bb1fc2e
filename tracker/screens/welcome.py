"""The first screen: every campaign in the file, and the way to the sample."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from tracker import settings
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.widgets.plain import PlainTable
from tracker.widgets.tables import fit_columns, refill, under_cursor

if TYPE_CHECKING:
    from tracker.screens.form import FieldSpec
    from tracker.services.common import SessionFactory
    from tracker.services.views import CampaignSummary

# The welcome screen paints before the database libraries are loaded (the app opens the file
# in a thread meanwhile), so the services and the screens behind it are imported when used.
OPENING = "Opening the campaign file…"


class Listed(Protocol):
    """A campaign as the list shows it: a summary, or a line of the first look."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def current_scenario(self) -> str: ...
    @property
    def sides(self) -> int: ...
    @property
    def ships(self) -> int: ...
    @property
    def model_scale(self) -> str: ...


class FirstLook(NamedTuple):
    """The campaign list read from the file before the database is open (the command line
    reads it with the standard library), and the key the player's settings know the file by."""

    database_key: str
    lines: Sequence[Listed]


WELCOME = (
    "Naval campaign tracker: Squadron Record Sheets for Stations Manned and Ready! Part 2.\n"
    "n new campaign · enter open · s open the River Plate sample · ? help · q quit"
)
EMPTY = "No campaigns in this file yet. Press n to start one, or s to open the River Plate sample."
# The umpire's read-only view offers no new campaign, nor the sample (both are written).
UMPIRE_WELCOME = (
    "Umpire's view, read-only: nothing can be changed here and no side's secrets are shown.\n"
    "enter open · ? help · q quit"
)
UMPIRE_EMPTY = "No campaigns in this file yet: the umpire's view shows them once a player adds one."


def remember_campaign(factory: SessionFactory, campaign_id: int) -> str | None:
    """Keep the campaign as the player's last one, so the next start offers it."""
    from tracker.services import backups

    key = backups.database_key(factory)
    return settings.remember(last_campaign=settings.LastCampaign(key, campaign_id))


def campaign_fields(
    summary: CampaignSummary | None, default_scale: str = "1/2400"
) -> list[FieldSpec]:
    """The campaign form: name, notes and the rule options players may differ on, as the
    campaign's model declares them."""
    from tracker.screens.fields import specs_from
    from tracker.services.campaigns import CampaignCreate

    declared = CampaignCreate.model_fields["zero_outcomes"].get_default()
    outcomes = summary.zero_outcomes if summary else declared
    shown = {
        **(summary.model_dump() if summary else {"model_scale": default_scale}),
        "zero_outcomes": "; ".join(outcomes.splitlines()),
    }
    # A new campaign starts from the model's defaults, but for the scale last chosen; the
    # outcomes are typed on one line.
    return specs_from(CampaignCreate, shown if summary else None,
                      model_scale={"value": shown["model_scale"]},
                      zero_outcomes={"value": shown["zero_outcomes"]})  # fmt: skip


class WelcomeScreen(TrackerScreen):
    """Pick a campaign, start one, or open the sample."""

    HELP_EXTRA = [("enter", "Open the campaign")]

    BINDINGS = [
        Binding("enter", "open", "Open", show=True),
        Binding("n", "new", "New campaign"),
        Binding("e", "edit", "Edit"),
        Binding("x,delete", "delete", "Delete"),
        Binding("s", "sample", "Sample campaign"),
    ]
    READ_ONLY_ACTIONS = frozenset({"open"})

    def __init__(self, first_look: FirstLook | None = None) -> None:
        super().__init__()
        self.summaries: list[CampaignSummary] = []
        # The campaign the cursor goes to at the next reload: the last one opened.
        self.focus_id: int | None = None
        # Shown while the database opens; enter on it opens its campaign once the file is open.
        self.first_look = first_look
        self.open_when_ready: int | None = None

    def body(self) -> ComposeResult:
        yield Static(UMPIRE_WELCOME if self.read_only else WELCOME, id="welcome-banner",
                     markup=False)  # fmt: skip
        yield PlainTable(id="campaign-table", cursor_type="row", zebra_stripes=True)
        yield Static(UMPIRE_EMPTY if self.read_only else EMPTY, id="welcome-empty", markup=False)

    def on_mount(self) -> None:
        self.title = "tracker"
        self.sub_title = "Campaigns"
        table = self.query_one(PlainTable)
        table.add_columns("Campaign", "Current scenario", "Sides", "Ships", "Scale")
        # At 80 columns the names wrap (tables.Fit) rather than push Ships and Scale off screen.
        names = ("Campaign", "Current scenario")
        fit_columns(table, [(name, 12) for name in names], names)
        if self.factory is None:  # the app is still opening the database
            self.query_one("#welcome-empty", Static).update(OPENING)
            table.display = False
            if self.first_look is not None and self.first_look.lines:
                self._focus_last(self.first_look.database_key)
                self._fill(self.first_look.lines)
            return
        self.database_ready()

    def _focus_last(self, database_key: str) -> None:
        last = settings.load().last_campaign
        if last is not None and last.database == database_key:
            self.focus_id = last.campaign_id

    def database_ready(self) -> None:
        """The database is open: show its campaigns, the cursor on the one opened last (or
        where the player put it on the first look)."""
        from tracker.services import backups

        self.query_one("#welcome-empty", Static).update(UMPIRE_EMPTY if self.read_only else EMPTY)
        if self.first_look is None:
            self._focus_last(backups.database_key(self.factory))
        self.reload()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.factory is None:  # nothing to act on while the file is being opened
            return False
        return super().check_action(action, parameters)

    def reload(self) -> None:
        if self.factory is None:  # still opening: database_ready() fills the screen
            return
        from tracker.services import campaigns

        self.load(Call(campaigns.list_campaigns, self.factory), self._show)

    def _show(self, summaries: list[CampaignSummary]) -> None:
        self.summaries = summaries
        self._fill(summaries)
        ids = [summary.id for summary in summaries]
        if self.open_when_ready is not None:
            wanted, self.open_when_ready = self.open_when_ready, None
            if wanted in ids:
                self.open_campaign(wanted)

    def _fill(self, lines: Sequence[Listed]) -> None:
        table = self.query_one(PlainTable)
        refill(table, (
            (str(line.id), [Text(line.name), Text(line.current_scenario or "-"), line.sides,
                            line.ships, line.model_scale])
            for line in lines
        ))  # fmt: skip
        if lines:
            ids = [line.id for line in lines]
            if self.focus_id in ids:
                table.move_cursor(row=ids.index(self.focus_id))
            self.focus_id = None
        self.query_one("#welcome-empty").display = not lines
        table.display = bool(lines)
        table.focus()

    def _selected(self, none: str) -> CampaignSummary | None:
        return self.row_of(self.query_one(DataTable), self.summaries, none)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if self.factory is None:  # enter on the first look: opened once the file is open
            self.open_when_ready = int(str(event.row_key.value))
            return
        self.action_open()

    def action_open(self) -> None:
        summary = under_cursor(self.query_one(DataTable), self.summaries)
        if summary is None:
            self.notify("No campaign to open" + self.hint(": press n to start one") + ".",
                        severity="warning")  # fmt: skip
            return
        self.open_campaign(summary.id)

    def open_campaign(self, campaign_id: int) -> None:
        """Push the campaign's screen; it becomes the player's last campaign."""
        self.focus_id = campaign_id
        # The umpire's view leaves the player's settings as they were, too.
        warning = None if self.read_only else remember_campaign(self.factory, campaign_id)
        if warning:
            self.notify(warning, severity="warning")
        from tracker.screens.campaign import CampaignScreen

        self.app.push_screen(CampaignScreen(campaign_id))

    def action_new(self) -> None:
        from tracker.services import campaigns

        def done(result: CampaignSummary | None) -> None:
            if result is not None:
                # The scale chosen becomes the one the next new campaign starts with.
                if result.model_scale != default_scale:
                    warning = settings.remember(model_scale=result.model_scale)
                    if warning:
                        self.notify(warning, severity="warning")
                self.reload()
                self.open_campaign(result.id)

        default_scale = settings.load().model_scale
        submit = self.calling(campaigns.create_campaign)
        self.open_form("New campaign", campaign_fields(None, default_scale), submit, done=done)

    def action_edit(self) -> None:
        if (summary := self._selected("No campaign to edit: press n to start one.")) is None:
            return
        from tracker.services import campaigns

        submit = self.editing(campaigns.update_campaign, summary, "campaign_id")
        self.open_form(f"Edit campaign {summary.name}", campaign_fields(summary), submit)

    def action_delete(self) -> None:
        if (summary := self._selected("No campaign to delete.")) is None:
            return
        from tracker.services import campaigns

        self.confirm_call(
            f"Delete campaign {summary.name!r} with its {summary.sides} sides and "
            f"{summary.ships} ships? This cannot be undone.",
            Call(campaigns.delete_campaign, self.factory, campaign_id=summary.id),
            said=f"Deleted campaign {summary.name}",
        )

    def action_sample(self) -> None:
        from tracker.services import demo

        def made(campaign_id: int) -> None:
            self.reload()
            self.open_campaign(campaign_id)

        self.call(Call(demo.create_sample_campaign, self.factory), then=made)
