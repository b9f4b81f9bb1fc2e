"""Campaigns, their scenarios and sides: create, edit, delete, list."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlmodel import Session, col, func, select

from tracker.campaign_file import CAMPAIGN_LINE, CAMPAIGN_LINES
from tracker.db import SessionFactory, session_scope
from tracker.models import Campaign, JournalEntry, Participation, Scenario, Ship, Side, Squadron
from tracker.models.campaign import (
    CampaignCreate,
    CampaignUpdate,
    ScenarioCreate,
    ScenarioUpdate,
    SideCreate,
    SideUpdate,
)
from tracker.models.fields import read
from tracker.models.kinds import AircraftMission, HalfStrengthScope, HaltRule, JournalKind
from tracker.services import journal, rowlog
from tracker.services.common import Rows, act, edit_row, flush_named, name_taken, rows_where
from tracker.services.common import get_row as _get
from tracker.services.errors import InvalidInput, check, require_plain
from tracker.services.fields import checked
from tracker.services.fleet import remove_squadrons
from tracker.services.views import (
    CampaignOverview,
    CampaignSummary,
    ScenarioView,
    SideView,
    SquadronRef,
)

_LINE, _LINES = text(CAMPAIGN_LINE), text(CAMPAIGN_LINES)
CAMPAIGNS = Rows(Campaign, JournalKind.CAMPAIGN, "Edited {name}", said_after=True)
SIDES = Rows(
    Side, JournalKind.SIDE, "Edited side {name}", taken="this campaign already has a side named"
)
SCENARIOS = Rows(Scenario, JournalKind.SCENARIO, edited="Edited scenario {title}")


def _summary(session: Session, campaign: Campaign) -> CampaignSummary:
    line = session.execute(_LINE, {"campaign_id": campaign.id}).one()
    return _summary_of(campaign, tuple(line))


def _summary_of(campaign: Campaign, line: tuple[Any, ...]) -> CampaignSummary:
    """The campaign with what the campaign list shows of it (campaign_file.CAMPAIGN_LINES:
    the first look at a file reads the same statement before the database is open)."""
    _, _, current_scenario, sides, ships, _ = line
    return read(CampaignSummary, campaign, sides=sides, ships=ships,
                current_scenario=current_scenario)  # fmt: skip


def list_campaigns(factory: SessionFactory) -> list[CampaignSummary]:
    with session_scope(factory) as session:
        lines = session.execute(_LINES).all()
        campaigns = {campaign.id: campaign for campaign in session.exec(select(Campaign))}
        return [_summary_of(campaigns[line[0]], tuple(line)) for line in lines]


OPTIONS = set(CampaignCreate.model_fields)


def parse_outcomes(text: str) -> str:
    """The zero-outcome list as stored (one per line) from `Sunk; Dead in the water; Other`."""
    items = [item.strip() for item in text.replace("\n", ";").split(";") if item.strip()]
    errors: dict[str, str] = {}
    if not items:
        errors["zero_outcomes"] = "give at least one outcome, e.g. Sunk; Dead in the water"
    elif any(len(item) > 60 for item in items):
        errors["zero_outcomes"] = "each outcome at most 60 characters"
    require_plain(errors, "zero_outcomes", text)
    check(errors)
    return "\n".join(items)


# The readings a campaign chooses between, each with what the player is told for a wrong word.
CHOICE_OPTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "mine_halt_rule": (tuple(HaltRule), "must be struck (a quarter struck mines) or drawn "
                       "(a quarter drawn, the literal reading)"),
    "half_strength_scope": (tuple(HalfStrengthScope), "must be scenario (the ships a squadron "
                            "began the scenario with) or campaign (the ships it was formed with)"),
    "aircraft_mission": (tuple(AircraftMission), "must be turn (an aircraft flies one mission a "
                         "turn) or scenario (one mission a scenario)"),
}  # fmt: skip
# Options whose None is a value (no limit); any other option None is not given.
NONE_IS_A_VALUE = {"repair_limit_structure", "repair_limit_flotation"}


def _typed_campaign(model: type[CampaignCreate], values: dict[str, Any]) -> CampaignCreate:
    """The values given, checked against the campaign's one declaration of each option; the
    zero-outcome list as stored, and a wrong reading said in the reading's own words."""
    given = {k: v for k, v in values.items() if v is not None or k in NONE_IS_A_VALUE}
    errors = {key: CHOICE_OPTIONS[key][1] for key in CHOICE_OPTIONS
              if key in given and given[key] not in CHOICE_OPTIONS[key][0]}  # fmt: skip
    check(errors)
    if "zero_outcomes" in given:
        given["zero_outcomes"] = parse_outcomes(given["zero_outcomes"])
    return checked(model, given)


def _unique_campaign_name(session: Session, name: str, exclude_id: int | None = None) -> None:
    if name_taken(session, Campaign, name, exclude_id=exclude_id):
        raise InvalidInput(
            {"name": f"a campaign named {name!r} already exists: choose another name"}
        )


def create_campaign(factory: SessionFactory, *, name: str, **options: Any) -> CampaignSummary:
    """Start a campaign with its rule options (docs/GUIDE.md "Campaign options"): any field of
    CampaignCreate, its declared default when not given."""
    typed = _typed_campaign(CampaignCreate, {"name": name, **options})
    with session_scope(factory) as session:
        _unique_campaign_name(session, typed.name)
        campaign = Campaign.model_validate(typed.model_dump())
        session.add(campaign)
        session.flush()
        assert campaign.id is not None
        journal.append(
            session, campaign_id=campaign.id, kind=JournalKind.CAMPAIGN,
            summary=f"Created {typed.name}",
        )  # fmt: skip
        return _summary(session, campaign)


def update_campaign(
    factory: SessionFactory, *, campaign_id: int, version: int | None = None, **options: Any
) -> CampaignSummary:
    """Rename a campaign or change its notes and rule options (options not given are kept)."""
    typed = _typed_campaign(CampaignUpdate, {**options, "version": version})
    assert isinstance(typed, CampaignUpdate)
    with act(factory, Campaign, campaign_id, version=typed.version) as a:
        _unique_campaign_name(a.session, typed.name, exclude_id=campaign_id)
        edit_row(
            a, CAMPAIGNS, {key: getattr(typed, key) for key in typed.model_fields_set & OPTIONS}
        )
        return _summary(a.session, a.row)


def delete_campaign(factory: SessionFactory, *, campaign_id: int) -> None:
    """Remove a campaign and everything in it (the screen asks first)."""
    with session_scope(factory) as session:
        campaign = _get(session, Campaign, campaign_id)
        # Ships point at squadrons without cascade, so clear them first.
        side_ids = select(Side.id).where(Side.campaign_id == campaign_id)
        for ship in session.exec(select(Ship).where(col(Ship.side_id).in_(side_ids))).all():
            session.delete(ship)
        session.flush()
        session.delete(campaign)
        rowlog.unkept(session)


def side_names(
    factory: SessionFactory, *, campaign_id: int
) -> tuple[str, tuple[tuple[str, int], ...]]:
    """The campaign's name and its sides' (name, id) pairs: a title need not count the ships of
    hundreds of squadrons, as the overview does."""
    with session_scope(factory) as session:
        campaign = _get(session, Campaign, campaign_id)
        sides = rows_where(session, Side, Side.campaign_id == campaign_id)
        return campaign.name, tuple((side.name, side.id or 0) for side in sides)


def get_overview(factory: SessionFactory, *, campaign_id: int) -> CampaignOverview:
    """The campaign with its sides, squadrons and scenarios, for the campaign screen."""
    with session_scope(factory) as session:
        campaign = _get(session, Campaign, campaign_id)
        sides = rows_where(session, Side, Side.campaign_id == campaign_id)
        side_views = []
        for side in sides:
            assert side.id is not None
            rows = session.exec(
                select(Squadron, func.count(col(Ship.id)))
                .outerjoin(
                    Ship,
                    (col(Ship.squadron_id) == col(Squadron.id)) & col(Ship.retired).is_(False),
                )
                .where(Squadron.side_id == side.id)
                .group_by(col(Squadron.id))
                .order_by(col(Squadron.id))
            ).all()
            squadrons = tuple(
                SquadronRef(squadron.id or 0, squadron.name, side.id, side.name, count)
                for squadron, count in rows
            )
            side_views.append(read(SideView, side, squadrons=squadrons))
        scenarios = rows_where(
            session, Scenario, Scenario.campaign_id == campaign_id, order=Scenario.position
        )
        taking_part = dict(
            session.exec(
                select(Participation.scenario_id, func.count())
                .where(col(Participation.scenario_id).in_([s.id for s in scenarios]))
                .group_by(col(Participation.scenario_id))
            ).all()
        )
        return CampaignOverview(
            campaign=_summary(session, campaign),
            sides=tuple(side_views),
            scenarios=tuple(
                read(ScenarioView, s, ships=taking_part.get(s.id or 0, 0)) for s in scenarios
            ),
        )


def add_scenario(
    factory: SessionFactory, *, campaign_id: int, title: str, date: str = ""
) -> ScenarioView:
    """Append a planned scenario at the end of the campaign's order."""
    typed = checked(ScenarioCreate, {"title": title, "date": date}, names=("title",))
    with act(factory, Campaign, campaign_id) as a:
        session = a.session
        last = session.exec(
            select(func.max(Scenario.position)).where(Scenario.campaign_id == campaign_id)
        ).one()
        values = typed.model_dump(include={"title", "date"})
        scenario = Scenario(campaign_id=campaign_id, position=(last or 0) + 1, **values)
        session.add(scenario)
        session.flush()
        a.log(JournalKind.SCENARIO, f"Added {typed.title}")
        return read(ScenarioView, scenario)


def create_side(
    factory: SessionFactory, *, campaign_id: int, name: str, nation: str = ""
) -> SideView:
    """Add a side (a player's forces) to a campaign."""
    values = checked(SideCreate, {"name": name, "nation": nation}).model_dump()
    with act(factory, Campaign, campaign_id) as a:
        side = Side(campaign_id=campaign_id, **values)
        a.session.add(side)
        flush_named(a.session, SIDES, side)
        a.log(JournalKind.SIDE, f"Added side {side.name}")
        return read(SideView, side, **values)


def update_side(
    factory: SessionFactory, *, side_id: int, name: str, nation: str, version: int | None = None
) -> SideView:
    update = checked(SideUpdate, {"name": name, "nation": nation, "version": version})
    values = update.model_dump(include={"name", "nation"})
    with act(factory, Side, side_id, version=update.version) as a:
        edit_row(a, SIDES, values, side_id=side_id)
        return read(SideView, a.row, **values)


def delete_side(factory: SessionFactory, *, side_id: int, check_only: bool = False) -> None:
    """Remove a side with its squadrons and ships (fleet.remove_squadrons): the screen asks, once
    `check_only` found it is not refused."""
    with act(factory, Side, side_id, check_only=check_only) as a:
        squadrons = a.session.exec(select(Squadron).where(Squadron.side_id == side_id)).all()
        remove_squadrons(a.session, squadrons, f"Side {a.row.name}")
        a.session.delete(a.row)
        a.log(JournalKind.SIDE, f"Deleted side {a.row.name}")


def update_scenario(
    factory: SessionFactory,
    *,
    scenario_id: int,
    title: str,
    date: str = "",
    version: int | None = None,
) -> ScenarioView:
    typed = checked(
        ScenarioUpdate, {"title": title, "date": date, "version": version}, names=("title",)
    )
    with act(factory, Scenario, scenario_id, version=typed.version) as a:
        edit_row(a, SCENARIOS, typed.model_dump(include={"title", "date"}))
        return read(ScenarioView, a.row)


def delete_scenario(factory: SessionFactory, *, scenario_id: int, check_only: bool = False) -> None:
    """Remove a scenario nothing was recorded in; one with journal entries is refused (asked
    first with `check_only`, before the player is)."""
    with act(factory, Scenario, scenario_id, check_only=check_only) as a:
        scenario, session = a.row, a.session
        recorded = session.exec(
            select(func.count())
            .select_from(JournalEntry)
            .where(
                JournalEntry.scenario_id == scenario_id, JournalEntry.kind != JournalKind.SCENARIO
            )
        ).one()
        if recorded:
            raise InvalidInput(
                {"scenario": f"{scenario.title!r} has {recorded} journal entries: it stays in the "
                 "campaign's record (rename it instead)"}
            )  # fmt: skip
        for entry in rows_where(session, JournalEntry, JournalEntry.scenario_id == scenario_id):
            entry.scenario_id = None
        a.log(JournalKind.SCENARIO, f"Deleted scenario {scenario.title}")
        session.flush()
        session.delete(scenario)
