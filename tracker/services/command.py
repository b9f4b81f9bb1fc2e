"""A squadron's command and crews: ratings, the commander's ship, tests, combat reductions and
their restoration (RULES.md §SMR2). A lost commander does none of it (losses.acting_commander)."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from tracker.db import SessionFactory
from tracker.models import Campaign, Commander, Crew, Ship, Squadron
from tracker.models.fleet import CommanderUpdate, CommandLoss, CrewUpdate, TestRoll
from tracker.models.identity import OWN
from tracker.models.kinds import Acquisition, JournalKind, ListStatus
from tracker.rules import smr
from tracker.services import journal, losses
from tracker.services.common import act, get_row, require_version
from tracker.services.errors import InvalidInput, check, require_text
from tracker.services.fields import checked, require_declared
from tracker.services.views import TestResult

REDUCED = {
    "modifier": "command modifier",
    "radius_cm": "radius (cm)",
    "crew_modifier": "crew modifier",
}


def _grade_for(rating: CrewUpdate) -> int:
    """The grade a rating gives: the level bought, or the d10 read at the level paid for."""
    if rating.acquisition == Acquisition.DIRECT:
        return rating.training
    if rating.roll is None:
        raise InvalidInput({"roll": "type the d10 you rolled (1..10), or let the tracker roll"})
    return smr.grade_from_roll(rating.training, rating.roll)


def _rerate(rating: Commander | Crew, typed: CrewUpdate, grade: int) -> None:
    """Give a rating its new training, grade and roll; the combat reductions it bears stay with
    it through a re-roll or re-buy (SMR2 §3.5), which only a restoration ends."""
    rating.modifier_now = smr.rerated_modifier(rating.modifier_now, was=rating.grade, now=grade)
    rating.acquisition, rating.training, rating.grade = typed.acquisition, typed.training, grade
    rating.roll = typed.roll if typed.acquisition == Acquisition.RANDOM else None


def set_commander(factory: SessionFactory, *, squadron_id: int, **fields: Any) -> None:
    """Generate (d10) or buy the squadron's commander (CommanderUpdate's fields); cost by the
    level paid (SMR2 §3.1)."""
    typed = checked(CommanderUpdate, fields)
    training, acquisition, roll = typed.training, typed.acquisition, typed.roll
    grade = _grade_for(typed)
    with act(factory, Squadron, squadron_id) as a:
        squadron, session = a.row, a.session
        commander = session.get(Commander, squadron.commander_id) if squadron.commander_id else None
        if commander is not None:
            require_version(commander, typed.version, commander.name or "The commander")
        before = journal.row_state(commander) if commander else None
        if commander is None or commander.status == ListStatus.LOST:
            if commander is not None:  # the replacement: the player says where he sails
                squadron.commander_ship_id = None
            # A new commander, or a lost one's replacement, bears no reductions.
            commander = commander or Commander(
                campaign_id=a.campaign_id, grade=grade, modifier_now=0, radius_now_cm=10
            )
            commander.grade, commander.air = grade, squadron.air
            commander.modifier_now = smr.grade_modifier(grade)
            commander.radius_now_cm = smr.command_radius_cm(grade, air=squadron.air)
        commander.status = ListStatus.ACTIVE
        commander.radius_now_cm = smr.rerated_radius_cm(
            commander.radius_now_cm, was=(commander.grade, commander.air), now=(grade, squadron.air)
        )
        commander.name, commander.air = typed.name, squadron.air
        _rerate(commander, typed, grade)
        session.add(commander)
        session.flush()
        squadron.commander_id = commander.id
        rolled = acquisition == Acquisition.RANDOM
        how = f"rolled {roll} at training {smr.training_numeral(training)}" if rolled else "bought"
        after = journal.row_state(commander)
        a.log(
            JournalKind.COMMANDER,
            f"{squadron.name}: commander {commander.name or '(unnamed)'} {how}: "
            f"{smr.rating_name(grade)} ({smr.grade_modifier(grade):+d})",
            side_id=squadron.side_id, before=before, after=after,
            dice={"d10": roll, "training": training} if rolled else None,
            # Re-rolling a commander can be undone; the first one is removed by deleting it.
            changes=(journal.row_change("commander", commander.id, before, after),)
            if before else (),
        )  # fmt: skip


def set_commander_ship(factory: SessionFactory, *, squadron_id: int, ship_id: int) -> str:
    """Put the squadron's commander aboard one of its ships: command is measured from it
    (SMR2 §3.1), and moving him is a transfer (SMR2 §6.7), one undoable journal entry."""
    with act(factory, Squadron, squadron_id) as a:
        squadron, session = a.row, a.session
        ship = get_row(session, Ship, ship_id)
        problem = (
            f"{ship.name} is not in {squadron.name}: the commander sails in one of its own ships"
            if ship.squadron_id != squadron_id or ship.retired
            else f"{ship.name} is sunk: choose a ship afloat" if ship.sunk
            else ""
        )  # fmt: skip
        if problem:
            raise InvalidInput({"ship": problem})
        commander = losses.acting_commander(session, squadron, "ship")
        if squadron.commander_ship_id == ship_id:
            raise InvalidInput({"ship": f"{ship.name} already carries the commander"})
        was = session.get(Ship, squadron.commander_ship_id) if squadron.commander_ship_id else None
        change = journal.RowChange(
            "squadron", squadron_id, {"commander_ship_id": squadron.commander_ship_id},
            {"commander_ship_id": ship_id},
        )  # fmt: skip
        squadron.commander_ship_id = ship_id
        session.add(squadron)
        who = commander.name or "the commander"
        summary = (
            f"{squadron.name}: {who} transferred from {was.name} to {ship.name}"
            if was is not None
            else f"{squadron.name}: {who} aboard {ship.name}"
        )
        a.log(
            JournalKind.COMMANDER,
            summary,
            ship_id=ship_id,
            side_id=squadron.side_id,
            changes=(change,),
        )
        return summary


def set_crew(factory: SessionFactory, *, squadron_id: int, **fields: Any) -> None:
    """Roll or buy the squadron's crew (CrewUpdate's fields), optionally plus the commander's
    modifier."""
    typed = checked(CrewUpdate, fields)
    training, acquisition, roll = typed.training, typed.acquisition, typed.roll
    grade = _grade_for(typed)
    rolled = acquisition == Acquisition.RANDOM
    with act(factory, Squadron, squadron_id) as a:
        squadron, session = a.row, a.session
        crew = session.get(Crew, squadron.crew_id) if squadron.crew_id else None
        if crew is not None:
            require_version(crew, typed.version, f"{squadron.name}'s crew")
        modified, commander_modifier = roll, None
        campaign = get_row(session, Campaign, a.campaign_id)
        if rolled and roll is not None and campaign.crew_roll_adds_commander:
            commander = losses.acting_commander(
                session, squadron, "roll", "this campaign adds the commander's modifier to the "
                "crew roll",
            )  # fmt: skip
            # Crews are generated before play: the commander's rated modifier, not one cut by
            # combat since (SMR2 §3.2 optional rule, docs/RULES.md §SMR2).
            commander_modifier = smr.grade_modifier(commander.grade)
            modified = smr.crew_roll(roll, commander_modifier)
            grade = smr.grade_from_roll(training, modified)
        before = journal.row_state(crew) if crew else None
        if crew is None:
            crew = Crew(
                campaign_id=a.campaign_id, grade=grade, modifier_now=smr.grade_modifier(grade)
            )
        _rerate(crew, typed, grade)
        crew.roll_modified = modified if rolled else None
        session.add(crew)
        session.flush()
        squadron.crew_id = crew.id
        after = journal.row_state(crew)
        a.log(
            JournalKind.CREW,
            f"{squadron.name}: crew {smr.quality_name(grade)} ({smr.grade_modifier(grade):+d})",
            side_id=squadron.side_id,
            before=before,
            after=after,
            dice={"d10": roll, "commander_modifier": commander_modifier, "modified": modified}
            if rolled
            else None,
            changes=(journal.row_change("crew", crew.id, before, after),) if before else (),
        )


def own_crew(session: Session, ship: Ship, squadron: Squadron) -> None:
    """Give a ship leaving its squadron a copy of the crew it served with: crew quality belongs
    to each ship's crew (SMR2 §3.2). An undo of the transfer leaves the copy unused."""
    if ship.crew_id is not None or squadron.crew_id is None:
        return
    served = get_row(session, Crew, squadron.crew_id)
    crew = Crew(**served.model_dump(exclude=OWN))
    session.add(crew)
    session.flush()
    ship.crew_id = crew.id


def _tested_crew(session: Session, squadron: Squadron, ship_id: int | None, field: str) -> int:
    """The crew tested or reduced: the ship's own, else the squadron's (SMR2 §3.2); never sunk."""
    if ship_id is not None:
        ship = get_row(session, Ship, ship_id)
        if ship.squadron_id != squadron.id:
            raise InvalidInput({field: f"{ship.name} is not in {squadron.name}"})
        if ship.sunk:  # her crew went down with her: it neither tests nor is reduced
            raise InvalidInput({field: f"{ship.name} is sunk: choose a ship afloat"})
        if ship.crew_id is not None:
            return ship.crew_id
    if squadron.crew_id is None:
        raise InvalidInput({field: f"{squadron.name} has no crew rating yet"})
    return squadron.crew_id


def reduce_command(
    factory: SessionFactory,
    *,
    squadron_id: int,
    modifier_by: int = 0,
    radius_by_cm: int = 0,
    crew_by: int = 0,
    ship_id: int | None = None,
) -> None:
    """Apply combat reductions to command modifier, radius and crew (floors -2 and 10 cm); with
    `ship_id`, a ship with a crew of its own (SMR2 §3.2), the crew reduction goes to that crew."""
    errors: dict[str, str] = {}
    require_declared(
        errors, CommandLoss, modifier_by=modifier_by, radius_by_cm=radius_by_cm, crew_by=crew_by
    )
    check(errors)
    with act(factory, Squadron, squadron_id) as a:
        squadron, session = a.row, a.session
        before: dict[str, Any] = {}
        after: dict[str, Any] = {}
        rows: list[journal.RowChange] = []
        if modifier_by or radius_by_cm:
            field = "modifier_by" if modifier_by else "radius_by_cm"
            commander = losses.acting_commander(session, squadron, field)
            before.update(modifier=commander.modifier_now, radius_cm=commander.radius_now_cm)
            was = journal.row_state(commander)
            commander.modifier_now = smr.reduced_modifier(commander.modifier_now, modifier_by)
            commander.radius_now_cm = smr.reduced_radius_cm(commander.radius_now_cm, radius_by_cm)
            after.update(modifier=commander.modifier_now, radius_cm=commander.radius_now_cm)
            rows.append(
                journal.row_change("commander", commander.id, was, journal.row_state(commander))
            )
        if crew_by:
            crew = get_row(session, Crew, _tested_crew(session, squadron, ship_id, "crew_by"))
            before["crew_modifier"], was = crew.modifier_now, journal.row_state(crew)
            crew.modifier_now = smr.reduced_modifier(crew.modifier_now, crew_by)
            after["crew_modifier"] = crew.modifier_now
            rows.append(journal.row_change("crew", crew.id, was, journal.row_state(crew)))
        if not after:
            raise InvalidInput({"modifier_by": "enter at least one reduction above 0"})
        reduced = ", ".join(f"{REDUCED[key]} {before[key]} -> {after[key]}" for key in after)
        a.log(
            JournalKind.REDUCTION,
            f"{squadron.name}: combat reduction: {reduced}",
            side_id=squadron.side_id,
            before=before,
            after=after,
            changes=tuple(rows),
        )


def restore_command(factory: SessionFactory, *, squadron_id: int, rule: str) -> str:
    """Give the commander back his rated modifier and radius, by a rule the player names: the
    seed gives none (SMR2 §3.5; docs/RULES.md §SMR2)."""
    errors: dict[str, str] = {}
    rule = require_text(errors, "rule", rule, 200)
    check(errors)
    with act(factory, Squadron, squadron_id) as a:
        squadron, session = a.row, a.session
        commander = losses.acting_commander(session, squadron, "rule")
        before = journal.row_state(commander)
        commander.modifier_now = smr.grade_modifier(commander.grade)
        commander.radius_now_cm = smr.command_radius_cm(commander.grade, air=commander.air)
        change = journal.row_change("commander", commander.id, before, journal.row_state(commander))
        if not change.after:
            raise InvalidInput({"rule": f"{squadron.name}'s commander has no combat reductions"})
        summary = (
            f"{squadron.name}: commander restored to {commander.modifier_now:+d}, "
            f"{commander.radius_now_cm} cm ({rule})"
        )
        a.log(
            JournalKind.REDUCTION,
            summary,
            side_id=squadron.side_id,
            before=change.before,
            after=change.after,
            changes=(change,),
        )
        return summary


def record_test(
    factory: SessionFactory,
    *,
    squadron_id: int,
    subject: str,
    roll: int,
    under_fire: bool = False,
    extra: int = 0,
    ship_id: int | None = None,
) -> TestResult:
    """A command or crew test: d10 + current modifier - 2 under fire + extra, 6+ passes (SMR2
    §3.6), naming the ship tested: the commander's, or `ship_id`, whose own crew tests when she
    has one (SMR2 §3.2), else the squadron's. A lost commander does not test."""
    errors: dict[str, str] = {}
    if subject not in ("commander", "crew"):
        errors["subject"] = "must be 'commander' or 'crew'"
    require_declared(errors, TestRoll, roll=roll, extra=extra)
    check(errors)
    with act(factory, Squadron, squadron_id) as a:
        squadron, session = a.row, a.session
        rated: Commander | Crew
        if subject == "commander":
            rated = losses.acting_commander(session, squadron, "subject")
            aboard = squadron.commander_ship_id
            tested = session.get(Ship, aboard) if aboard is not None else None
            who = f"{squadron.name}'s commander" + (f" {rated.name}" if rated.name else "")
            who += f" aboard {tested.name}" if tested is not None else ", aboard no ship"
        else:
            rated = get_row(session, Crew, _tested_crew(session, squadron, ship_id, "subject"))
            tested = get_row(session, Ship, ship_id) if ship_id is not None else None
            who = (
                f"{tested.name}'s {'own ' if tested.crew_id is not None else ''}crew"
                if tested is not None
                else f"{squadron.name}'s crew"
            )
        modifier = rated.modifier_now
        total = smr.test_total(roll, modifier, under_fire=under_fire, extra=extra)
        passed = smr.test_passes(roll, modifier, under_fire=under_fire, extra=extra)
        words = smr.test_words(roll, modifier, total, under_fire=under_fire, extra=extra)
        result = TestResult(roll=roll, modifier=modifier, under_fire=under_fire, extra=extra,
                            total=total, passed=passed, subject=subject, who=who,
                            ship=tested.name if tested is not None else "")  # fmt: skip
        said = {key: getattr(result, key) for key in ("modifier", "under_fire", "extra", "total")}
        a.log(
            JournalKind.TEST,
            f"{'Command' if subject == 'commander' else 'Crew'} test of {who} "
            f"{'passed' if passed else 'failed'} ({words})",
            ship_id=tested.id if tested is not None else None,
            side_id=squadron.side_id,
            dice={"d10": roll, **said},
        )
        return result
