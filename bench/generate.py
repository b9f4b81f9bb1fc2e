"""Seeded campaign files for the benchmark: the skeleton through the services, the bulk through
SQLAlchemy Core on the real migrated schema.

The campaign, its sides, its scenarios and its critical table are made by the services, and so
are the last steps (the ships taking part in the scenario in play, its start, a few hits), which
also shows the bulk rows are rows the services can work on. Everything else (squadrons with
their commanders and crews, ships, batteries, War at Sea units and their markers, boundaries,
minefields, the closed scenarios' participants and snapshots, and the journal) is written by
executemany in one transaction, shaped as the services write it: the point is to measure
reading, and a hundred thousand service calls would take a quarter of an hour.

    python -m bench.generate large.db --preset large
    python -m bench.generate tiny.db --sizes ships=8,squadrons=2,journal=200
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic_core import PydanticUndefined
from sqlalchemy import Connection, bindparam, func, select, update
from sqlmodel import SQLModel

from tracker.db import checkpoint, make_engine, migrate, session_factory
from tracker.models import (
    Battery,
    Commander,
    Crew,
    JournalEntry,
    Minefield,
    Participation,
    Scenario,
    SeaBoundary,
    Ship,
    ShipSnapshot,
    Squadron,
    SubMarker,
    WasUnit,
)
from tracker.models.fields import words_of
from tracker.models.identity import new_uid
from tracker.models.kinds import MinefieldStatus
from tracker.rules import smr
from tracker.services import (
    campaigns,
    damage,
    history,
    mines,
    roster,
    rule_tables,
    scenarios,
    secrets,
    sheet,
)
from tracker.services.campaigns import CampaignCreate
from tracker.services.common import SessionFactory
from tracker.services.fields import rules
from tracker.services.scenarios import COUNTER_STATE


@dataclass(frozen=True)
class Sizes:
    """How much of everything a campaign holds."""

    ships: int
    squadrons: int
    scenarios: int
    journal: int
    markers: int
    minefields: int
    boundaries: int
    sides: int = 2
    csv_rows: int = 1_000  # rows of each CSV import (figures 6 and 16), not of the campaign

    @classmethod
    def parse(cls, text: str, base: Sizes) -> Sizes:
        """`ships=8,journal=200` over a base (a preset)."""
        changes: dict[str, int] = {}
        names = {field.name for field in fields(cls)}
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, _, value = item.partition("=")
            if key.strip() not in names:
                raise ValueError(f"unknown size {key!r}: use {', '.join(sorted(names))}")
            changes[key.strip()] = int(value)
        return replace(base, **changes)

    def check(self) -> None:
        """Refuse sizes the generator cannot lay out."""
        if not 1 <= self.sides <= self.squadrons <= self.ships:
            raise ValueError("need 1 <= sides <= squadrons <= ships")
        if self.scenarios < 1:
            raise ValueError("need at least one scenario (the one in play)")
        if min(self.markers, self.minefields, self.boundaries) < 0:
            raise ValueError("markers, minefields and boundaries cannot be negative")
        if self.minefields and not self.boundaries:
            raise ValueError("minefields need at least one boundary")

    def label(self) -> str:
        return ", ".join(f"{field.name} {getattr(self, field.name):,}" for field in fields(self))


# The two campaigns. The small one fills every screen at 120x40 as full as the large one
# does, so that opening a screen on each measures what the tracker does with a large campaign,
# not how many rows are painted: as many ships in a squadron (the record sheet) and in the
# scenario in play (ten squadrons' ships: the scenario screen, damage entry), more squadrons and
# scenarios than the campaign screen's tree and table show, more of a side's units and markers
# than the roster shows, more minefields and ships' counters than the ledger shows, and more
# journal entries than the journal reads (its newest 500). The rest stays small: a quarter of
# the ships, a hundredth of the journal.
SMALL = Sizes(ships=250, squadrons=50, scenarios=40, journal=1_000, markers=100, minefields=40,
              boundaries=10, csv_rows=100)  # fmt: skip
LARGE = Sizes(ships=1000, squadrons=200, scenarios=40, journal=100_000, markers=500,
              minefields=300, boundaries=60)  # fmt: skip
# For the smoke test: the same shapes, tiny.
TINY_SMALL = Sizes(ships=4, squadrons=2, scenarios=3, journal=40, markers=2, minefields=1,
                   boundaries=1, csv_rows=10)  # fmt: skip
TINY_LARGE = Sizes(ships=12, squadrons=4, scenarios=4, journal=300, markers=8, minefields=6,
                   boundaries=3, csv_rows=40)  # fmt: skip
PRESETS = {"small": SMALL, "large": LARGE, "tiny-small": TINY_SMALL, "tiny-large": TINY_LARGE}

# Journal entries the services write after the bulk: participants, begin, and these hits.
SERVICE_HITS = 3
# How often a generated minefield has each status (a status the model adds later: 5).
STATUS_WEIGHTS = {"active": 70, "sowing": 5, "swept": 15, "expended": 5, "scattered": 5}

SIDES = (("Royal Navy", "Great Britain"), ("Kriegsmarine", "Germany"),
         ("Regia Marina", "Italy"), ("Marine nationale", "France"))  # fmt: skip
SHIP_WORDS = (
    "Exeter", "Ajax", "Achilles", "Hood", "Renown", "Warspite", "Valiant", "Sheffield",
    "Belfast", "Norfolk", "Suffolk", "Dorsetshire", "Cossack", "Glowworm", "Hardy", "Havock",
    "Hotspur", "Hunter", "Eskimo", "Bedouin", "Punjabi", "Tartar", "Ark Royal", "Furious",
    "Hipper", "Blucher", "Lutzow", "Emden", "Koln", "Leipzig", "Nurnberg", "Karlsruhe",
    "Gneisenau", "Scharnhorst", "Tirpitz", "Bismarck", "Eckoldt", "Lody", "Galster", "Heidkamp",
)  # fmt: skip
CLASSES = ("York", "Leander", "Town", "County", "Tribal", "J", "K", "L", "Hipper",
           "Deutschland", "Konigsberg", "Type 1934", "Type 1936", "Queen Elizabeth")  # fmt: skip
ARMOUR = ("A", "B", "C", "D", "E")
SURNAMES = ("Harwood", "Langsdorff", "Warburton-Lee", "Bonte", "Vian", "Lutjens", "Tovey",
            "Holland", "Marschall", "Cunningham", "Somerville", "Kummetz", "Bey")  # fmt: skip
EFFECTS = ("Fire", "Steering jammed", "B turret out", "Speed -5 kn", "Flooding", "Radar out",
           "Fire control hit", "Bridge hit", "Boiler room", "Magazine flooded")  # fmt: skip
BASE_TIME = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Built:
    """What the benchmark needs to know about a campaign file it made."""

    path: Path
    sizes: Sizes
    campaign_id: int
    campaign_name: str
    squadron_id: int  # the first squadron: its record sheet is the one the benchmark opens
    probe_ship_id: int  # its first ship, taking part in the scenario in play
    probe_ship_name: str
    hit_ship_ids: tuple[int, ...]  # ships taking part, for recording hits
    seconds: float

    def as_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "campaign_id": self.campaign_id,
            "campaign_name": self.campaign_name,
            "squadron_id": self.squadron_id,
            "probe_ship_id": self.probe_ship_id,
            "probe_ship_name": self.probe_ship_name,
            "hit_ship_ids": list(self.hit_ship_ids),
            "seconds": round(self.seconds, 2),
        }


def _defaults(model: type[SQLModel]) -> dict[str, Any]:
    """The model's field defaults, so a bulk row is whole even when a column is added later
    (a row's identity aside: each row gets its own, Rows.add)."""
    values: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        if name in ("id", "uid"):
            continue
        if info.default_factory is not None:
            values[name] = info.default_factory()  # type: ignore[call-arg]
        elif info.default is not PydanticUndefined:
            values[name] = info.default
    return values


class Rows:
    """Rows for one table, each with its explicit id (so others can point at it)."""

    def __init__(self, conn: Connection, model: type[SQLModel]) -> None:
        self.model = model
        self.table = model.__table__  # type: ignore[attr-defined]
        self.defaults = _defaults(model)
        self.columns = {column.name for column in self.table.columns}
        self.next_id = (conn.execute(select(func.max(self.table.c.id))).scalar() or 0) + 1
        self.rows: list[dict[str, Any]] = []

    def add(self, **values: Any) -> int:
        unknown = set(values) - self.columns
        assert not unknown, f"{self.table.name} has no {unknown}"
        row_id = self.next_id
        self.next_id += 1
        identity = {"uid": new_uid()} if "uid" in self.columns else {}
        self.rows.append({**self.defaults, **identity, **values, "id": row_id})
        return row_id

    def state(self, row_id: int) -> dict[str, Any]:
        """A row as journal.row_state gives it: without id and version."""
        row = self.rows[row_id - self.rows[0]["id"]]
        return {key: value for key, value in row.items() if key not in ("id", "version")}

    def insert(self, conn: Connection) -> None:
        if self.rows:
            conn.execute(self.table.insert(), self.rows)


def _detail(
    before: Any = None,
    after: Any = None,
    dice: Any = None,
    changes: tuple[dict[str, Any], ...] = (),
) -> str:
    """A journal entry's detail exactly as services.journal.append writes it."""
    return json.dumps(
        {"before": before, "after": after, "dice": dice, "changes": list(changes)},
        sort_keys=True,
    )


def _change(
    table: str, row_id: int, before: dict[str, Any], after: dict[str, Any]
) -> dict[str, Any]:
    return {"table": table, "id": row_id, "before": before, "after": after}


class Journal:
    """Journal rows in order, with the scenario and turn the services would stamp on them."""

    def __init__(self, rows: Rows, campaign_id: int) -> None:
        self.rows = rows
        self.campaign_id = campaign_id
        self.scenario_id: int | None = None
        self.turn: int | None = None
        self.clock = BASE_TIME

    def add(
        self,
        kind: str,
        summary: str,
        *,
        ship_id: int | None = None,
        side_id: int | None = None,
        detail: str | None = None,
        undoable: bool = False,
        reverts_id: int | None = None,
    ) -> int:
        self.clock += timedelta(seconds=41)
        return self.rows.add(
            at=self.clock,
            campaign_id=self.campaign_id,
            scenario_id=self.scenario_id,
            turn=self.turn,
            side_id=side_id,
            ship_id=ship_id,
            kind=kind,
            summary=summary[:400],
            detail=detail or _detail(),
            undoable=undoable,
            reverts_id=reverts_id,
        )

    def __len__(self) -> int:
        return len(self.rows.rows)


@dataclass
class Skeleton:
    campaign_id: int
    name: str
    side_ids: list[int]
    side_names: list[str]
    scenario_ids: list[int]
    scenario_titles: list[str]


def _skeleton(factory: SessionFactory, sizes: Sizes, name: str) -> Skeleton:
    """Campaign, sides, scenarios and a critical table, through the services."""
    # The largest budget the campaign declares: a big roster of units fits under it.
    budget = rules(CampaignCreate, ("was_fleet_points",))[0].high
    assert budget is not None
    campaign = campaigns.create_campaign(
        factory,
        name=name,
        notes="Generated by bench/generate.py for the benchmark.",
        was_fleet_points=budget,
    )
    sides = [
        campaigns.create_side(factory, campaign_id=campaign.id, name=side, nation=nation)
        for side, nation in (SIDES * (sizes.sides // len(SIDES) + 1))[: sizes.sides]
    ]
    titles = [f"Engagement {number}" for number in range(1, sizes.scenarios + 1)]
    made = [
        campaigns.add_scenario(
            factory, campaign_id=campaign.id, title=title, date=f"{number} Dec 1939"
        )
        for number, title in enumerate(titles, start=1)
    ]
    for low, effect in zip(range(1, 11, 3), EFFECTS, strict=False):
        rule_tables.save_table_row(
            factory,
            campaign_id=campaign.id,
            kind="structural",
            low=low,
            high=min(low + 2, 10),
            effect=effect,
        )
    return Skeleton(
        campaign_id=campaign.id,
        name=name,
        side_ids=[side.id for side in sides],
        side_names=[side.name for side in sides],
        scenario_ids=[s.id for s in made],
        scenario_titles=titles,
    )


def pick(
    rng: random.Random,
    model: type[SQLModel],
    key: str,
    low: int | None = None,
    high: int | None = None,
) -> int:
    """A whole number for the model's field: wanted in low..high (else anywhere in its bounds),
    and always within the bounds the model declares, so a bound changed in the model is
    followed by the generated campaigns."""
    rule = rules(model, (key,))[0]
    floor = rule.low if rule.low is not None else low
    ceiling = rule.high if rule.high is not None else high
    if floor is None or ceiling is None:
        raise ValueError(f"{model.__name__}.{key} declares no bounds: say which values to pick")
    low = floor if low is None else min(max(low, floor), ceiling)
    high = ceiling if high is None else max(min(high, ceiling), low)
    return rng.randint(low, high)


def declared_words(model: type[SQLModel], key: str) -> tuple[str, ...]:
    """The words the model declares for a field (its enum or its one_of)."""
    words = words_of(model.model_fields[key])
    if not words:
        raise ValueError(f"{model.__name__}.{key} declares no words")
    return words


class Bulk:
    """Every bulk row of one campaign, made in memory, then inserted table by table."""

    def __init__(self, conn: Connection, sizes: Sizes, skeleton: Skeleton, rng: random.Random):
        self.conn, self.sizes, self.sk, self.rng = conn, sizes, skeleton, rng
        self.commanders = Rows(conn, Commander)
        self.crews = Rows(conn, Crew)
        self.squadrons = Rows(conn, Squadron)
        self.ships = Rows(conn, Ship)
        self.batteries = Rows(conn, Battery)
        self.units = Rows(conn, WasUnit)
        self.markers = Rows(conn, SubMarker)
        self.boundaries = Rows(conn, SeaBoundary)
        self.minefields = Rows(conn, Minefield)
        self.participations = Rows(conn, Participation)
        self.snapshots = Rows(conn, ShipSnapshot)
        self.journal = Journal(Rows(conn, JournalEntry), skeleton.campaign_id)
        self.journal.scenario_id, self.journal.turn = skeleton.scenario_ids[0], 1
        existing = conn.execute(select(func.count()).select_from(JournalEntry)).scalar() or 0
        # The bulk leaves room for the entries the services write afterwards.
        self.journal_budget = max(0, sizes.journal - existing - 2 - SERVICE_HITS)
        self.squadron_side: dict[int, int] = {}
        self.squadron_names: dict[int, str] = {}
        self.squadron_ships: dict[int, list[int]] = {}
        self.ship_names: dict[int, str] = {}
        self.ship_side: dict[int, int] = {}
        self.reverted: list[dict[str, int]] = []

    # --- the set-up: squadrons, ships, roster, ledger ---------------------------------------

    def _setup_entry(self, kind: str, summary: str, **values: Any) -> None:
        # Set-up entries take at most half the journal; the battles take the rest.
        if len(self.journal) < self.journal_budget // 2:
            self.journal.add(kind, summary, **values)

    def forces(self) -> None:
        sizes, rng, sk = self.sizes, self.rng, self.sk
        per_squadron = [sizes.ships // sizes.squadrons] * sizes.squadrons
        for index in range(sizes.ships % sizes.squadrons):
            per_squadron[index] += 1
        numbers: dict[str, int] = {}
        for index in range(sizes.squadrons):
            side_index = index % sizes.sides
            side_id, side_name = sk.side_ids[side_index], sk.side_names[side_index]
            training, roll = pick(rng, Commander, "training"), pick(rng, Commander, "roll")
            grade = smr.grade_from_roll(training, roll)
            commander_name = f"Capt {rng.choice(SURNAMES)}"
            commander = self.commanders.add(
                campaign_id=sk.campaign_id,
                name=commander_name,
                air=False,
                acquisition="random",
                training=training,
                roll=roll,
                grade=grade,
                modifier_now=smr.grade_modifier(grade),
                radius_now_cm=smr.command_radius_cm(grade),
                status="active",
            )
            crew_training, crew_roll = pick(rng, Crew, "training"), pick(rng, Crew, "roll")
            crew_grade = smr.grade_from_roll(crew_training, crew_roll)
            crew = self.crews.add(
                campaign_id=sk.campaign_id,
                acquisition="random",
                training=crew_training,
                roll=crew_roll,
                roll_modified=crew_roll,
                grade=crew_grade,
                modifier_now=smr.grade_modifier(crew_grade),
            )
            name = f"{rng.choice(('Force', 'Flotilla', 'Squadron', 'Group'))} {index + 1}"
            squadron = self.squadrons.add(
                side_id=side_id, name=name, commander_id=commander, crew_id=crew
            )
            self.squadron_side[squadron], self.squadron_names[squadron] = side_id, name
            self._setup_entry("squadron", f"Added squadron {name} to {side_name}")
            self._setup_entry(
                "commander",
                f"{name}: commander {commander_name} rolled {roll} at training "
                f"{smr.training_numeral(training)}: {smr.rating_name(grade)} "
                f"({smr.grade_modifier(grade):+d})",
                side_id=side_id,
                detail=_detail(
                    after=self.commanders.state(commander), dice={"d10": roll, "training": training}
                ),
            )
            self._setup_entry(
                "crew",
                f"{name}: crew {smr.quality_name(crew_grade)} "
                f"({smr.grade_modifier(crew_grade):+d})",
                side_id=side_id,
                detail=_detail(
                    after=self.crews.state(crew),
                    dice={"d10": crew_roll, "commander_modifier": None, "modified": crew_roll},
                ),
            )
            self.squadron_ships[squadron] = [
                self._ship(squadron, side_id, SIDES[side_index % len(SIDES)][1], numbers)
                for _ in range(per_squadron[index])
            ]

    def _ship(self, squadron: int, side_id: int, nation: str, numbers: dict[str, int]) -> int:
        rng = self.rng
        word = rng.choice(SHIP_WORDS)
        numbers[word] = numbers.get(word, 0) + 1
        # Unique in the whole campaign, so the finder and the journal name one ship.
        name = word if numbers[word] == 1 else f"{word} {numbers[word]}"
        structure = pick(rng, Ship, "structure_max", 4, 40)
        flotation = pick(rng, Ship, "flotation_max", 3, 30)
        damaged = rng.random() < 0.15
        counter: dict[str, Any] = {}
        if rng.random() < 0.1:  # a Second World War at Sea counter, with fuel
            wanted = rng.choice((0, 0, 2, 4))
            torpedoes = pick(rng, Ship, "torpedo_factors", wanted, wanted)
            counter = {
                # An entered counter: one of the sizes printed, never the blank.
                "counter_size": rng.choice([size for size in declared_words(Ship, "counter_size")
                                            if size]),
                "speed_rating": pick(rng, Ship, "speed_rating", 1, 3),
                "torpedo_factors": torpedoes,
                "mines_loaded": pick(rng, Ship, "mines_loaded", 0, torpedoes),
                "hull_boxes": pick(rng, Ship, "hull_boxes", 1, 4),
                "fuel_full": pick(rng, Ship, "fuel_full", 1, 5),
                "fuel_empty": pick(rng, Ship, "fuel_empty", 0, 2),
            }  # fmt: skip
        ship = self.ships.add(
            name=name,
            class_name=rng.choice(CLASSES),
            type_abbrev=rng.choice(smr.TYPE_ABBREVIATIONS),
            nation=nation,
            size_modifier=pick(rng, Ship, "size_modifier", -1, 3),
            speed_kn=pick(rng, Ship, "speed_kn", 18, 36),
            armour_class=rng.choice(ARMOUR),
            structure_max=structure,
            structure_now=pick(rng, Ship, "structure_now", 1, structure) if damaged else structure,
            flotation_max=flotation,
            flotation_now=pick(rng, Ship, "flotation_now", 1, flotation) if damaged else flotation,
            points_base=pick(rng, Ship, "points_base", 100, 1490),
            side_id=side_id,
            squadron_id=squadron,
            original_squadron_id=squadron,
            **counter,
        )
        self.ship_names[ship], self.ship_side[ship] = name, side_id
        for mount, calibre, guns in (
            ("turret", f"{rng.choice((6, 8, 11, 15))}in", 6),
            ("shielded", "4in", 4),
        ):
            self.batteries.add(
                ship_id=ship,
                mount=mount,
                calibre=calibre,
                guns=guns,
                ip=str(rng.randint(2, 11)),
                range_bands=str(rng.randint(2, 5)),
            )
        self._setup_entry(
            "ship",
            f"Added {name} to {self.squadron_names[squadron]}",
            ship_id=ship,
            detail=_detail(after=self.ships.state(ship)),
        )
        return ship

    def roster(self) -> None:
        """War at Sea submarines and their markers: two each, a third for an extra decoy."""
        sizes, rng, sk = self.sizes, self.rng, self.sk
        counts = [0] * sizes.sides
        codes = [0] * sizes.sides
        left, number = sizes.markers, 0
        while left > 0:
            side_index = number % sizes.sides
            side_id = sk.side_ids[side_index]
            count = 3 if left == 3 else min(2, left)
            number += 1
            counts[side_index] += 1
            unit_name = f"U-{counts[side_index]}"
            unit = self.units.add(
                side_id=side_id,
                name=unit_name,
                unit_type="submarine",
                nation=SIDES[side_index % len(SIDES)][1],
                points=10,
                year=1940,
                speed="2",
                armor=1,
                vital_armor=2,
                hull_points=1,
                attacks=json.dumps({"torpedo": [3, 2, None, None]}, sort_keys=True),
                extra_decoys=count - 2 if count > 2 else 0,
            )
            self._setup_entry(
                "roster",
                f"{sk.side_names[side_index]}: added {unit_name} (submarine, 10 pts)",
                side_id=side_id,
            )
            marker_codes = []
            for _ in range(count):
                codes[side_index] += 1
                marker_codes.append(f"M-{codes[side_index]:02d}")
            real = rng.randrange(count)
            salt = f"{rng.getrandbits(128):032x}"
            assignment = {code: index == real for index, code in enumerate(marker_codes)}
            seal = secrets.seal_of(assignment, salt)
            sector = f"{rng.choice('ABCDEFGHJK')}{rng.randint(1, 9)}"
            for code, is_real in assignment.items():
                self.markers.add(
                    side_id=side_id,
                    unit_id=unit,
                    code=code,
                    sector=sector,
                    state="concealed",
                    secret=secrets.seal_note({"unit": unit, "real": is_real, "salt": salt}, None),
                    seal=seal,
                    at=self.journal.clock,
                )
            self._setup_entry(
                "marker",
                f"{sk.side_names[side_index]}: markers "
                f"{', '.join(marker_codes)} placed in {sector} (seal {seal})",
                side_id=side_id,
            )
            left -= count

    def ledger(self) -> None:
        """Boundaries between sea areas, and minefields on them or in War at Sea sectors."""
        sizes, rng, sk = self.sizes, self.rng, self.sk
        areas = [f"Area {index:02d}" for index in range(1, 41)]
        pairs = [(a, b) for i, a in enumerate(areas) for b in areas[i + 1 :]]
        rng.shuffle(pairs)
        boundaries = []
        for area_a, area_b in pairs[: sizes.boundaries]:
            boundaries.append(
                (
                    self.boundaries.add(campaign_id=sk.campaign_id, area_a=area_a, area_b=area_b),
                    area_a,
                    area_b,
                )
            )
            self._setup_entry("ledger", f"boundary {area_a} | {area_b} added")
        closed = sk.scenario_ids[: max(0, sizes.scenarios - 2)] or sk.scenario_ids[:1]
        # The statuses a player sets (void is only an undo's), mostly active ones.
        statuses = [s for s in declared_words(Minefield, "status") if s != MinefieldStatus.VOID]
        for index in range(sizes.minefields):
            side_index = index % sizes.sides
            side_id = sk.side_ids[side_index]
            boundary, area_a, area_b = rng.choice(boundaries)
            in_sector = rng.random() < 0.2
            sector = f"{rng.choice('ABCDEFGHJK')}{rng.randint(1, 9)}" if in_sector else ""
            status = rng.choices(statuses, weights=[STATUS_WEIGHTS.get(s, 5) for s in statuses])[0]
            turn = rng.randint(1, 12)
            layer = rng.choice(SHIP_WORDS)
            notes = rng.choice(("", "", "off the estuary", "covering the approaches"))
            drifting = rng.random() < 0.1
            place: dict[str, Any] = {
                "boundary_id": None if in_sector else boundary,
                "sector": sector,
                "notes": notes,
                "path": [],
                "layer_name": layer,
            }
            secret = rng.random() < 0.15
            if secret:  # stored as mines.places.store stores it (no passphrase: plain)
                sealed_place = {key: value for key, value in place.items() if key != "boundary_id"}
                sealed_place["boundary"] = None if in_sector else [area_a, area_b]
                columns: dict[str, Any] = {
                    "sealed": secrets.seal_note(sealed_place, None),
                    "boundary_id": None,
                    "sector": "",
                    "notes": "",
                    "path": "[]",
                    "layer_name": "",
                }
            else:
                columns = {
                    "sealed": "",
                    "boundary_id": place["boundary_id"],
                    "sector": sector,
                    "notes": notes,
                    "path": "[]",
                    "layer_name": layer,
                }
            field = self.minefields.add(
                campaign_id=sk.campaign_id,
                side_id=side_id,
                status=status,
                laid_by="surface",
                scenario_id=rng.choice(closed),
                turn_started=turn,
                turn_completed=None if status == "sowing" else turn + rng.randint(0, 2),
                drifting=drifting,
                secret=secret,
                at=self.journal.clock,
                **columns,
            )
            where = (
                "a secret place"
                if secret
                else (f"sector {sector}" if in_sector else f"{area_a} | {area_b}")
            )
            verb = "began sowing" if status == "sowing" else "laid"
            layer_label = "a surface minelayer" if secret else layer
            self._setup_entry(
                "minefield",
                f"{sk.side_names[side_index]}: {layer_label} {verb} minefield #{field} ({where})",
                side_id=side_id,
                undoable=True,
                detail=_detail(
                    changes=(_change("minefield", field, {"status": "void"}, {"status": status}),)
                ),
            )

    # --- the battles: closed scenarios with their journal -----------------------------------

    def battles(self) -> list[tuple[int, dict[str, Any]]]:
        """Each closed scenario: its participants and snapshots, and its share of the journal;
        returns the changes to make to the scenario rows."""
        sizes, rng, sk = self.sizes, self.rng, self.sk
        closed = list(zip(sk.scenario_ids, sk.scenario_titles, strict=True))[
            : max(0, sizes.scenarios - 2)
        ]
        updates: list[tuple[int, dict[str, Any]]] = []
        ship_ids = list(self.ship_names)
        left = self.journal_budget - len(self.journal)
        for number, (scenario_id, title) in enumerate(closed):
            share = left // (len(closed) - number)
            left -= share
            taking_part = sorted(
                rng.sample(ship_ids, min(len(ship_ids), max(4, sizes.ships // 20)))
            )
            self.journal.scenario_id, self.journal.turn = scenario_id, 1
            if share >= 1:
                self.journal.add(
                    "scenario",
                    f"{title}: {len(taking_part)} ships taking part",
                    detail=_detail(
                        after={"ships": sorted(self.ship_names[ship] for ship in taking_part)}
                    ),
                )
            if share >= 2:
                self.journal.add("begin", f"{title} begins: {len(taking_part)} ships, turn 1")
            for ship in taking_part:
                self.participations.add(scenario_id=scenario_id, ship_id=ship)
            turn = self._fight(title, taking_part, max(0, share - 3))
            outcome = rng.choice(("Drawn", "British victory", "German victory", "Broken off"))
            if share >= 3:
                self.journal.add(
                    "close",
                    f"{title} closed: {outcome}",
                    detail=_detail(after={"outcome": outcome}),
                )
            for ship in taking_part:
                for phase in ("start", "end"):
                    self._snapshot(scenario_id, ship, phase)
            updates.append((scenario_id, {"status": "closed", "turn": turn, "outcome": outcome}))
        return updates

    def _fight(self, title: str, taking_part: list[int], count: int) -> int:
        """`count` journal entries of a battle (hits, fire, tests, turns); returns the last turn."""
        rng, journal = self.rng, self.journal
        turn = 1
        target = len(journal) + count
        while len(journal) < target:
            ship = rng.choice(taking_part)
            name, side_id = self.ship_names[ship], self.ship_side[ship]
            roll = rng.random()
            if roll < 0.06:
                turn += 1
                journal.add(
                    "turn",
                    f"{title}: turn {turn}",
                    undoable=True,
                    detail=_detail(
                        changes=(
                            _change(
                                "scenario",
                                self.journal.scenario_id or 0,
                                {"turn": turn - 1},
                                {"turn": turn},
                            ),
                        )
                    ),
                )
                journal.turn = turn
            elif roll < 0.16:
                before = rng.randint(0, 2)
                journal.add(
                    "fire",
                    f"{name}: fire markers {before} -> {before + 1}",
                    ship_id=ship,
                    side_id=side_id,
                    undoable=True,
                    detail=_detail(
                        {"fire_markers": before},
                        {"fire_markers": before + 1},
                        changes=(
                            _change(
                                "ship", ship, {"fire_markers": before}, {"fire_markers": before + 1}
                            ),
                        ),
                    ),
                )
            elif roll < 0.24:
                die, modifier = rng.randint(1, 10), rng.randint(-2, 2)
                total = die + modifier
                journal.add(
                    "test",
                    f"{name}: command test {'passed' if total >= 6 else 'failed'} "
                    f"(d10 {die} {modifier:+d} = {total})",
                    side_id=side_id,
                    detail=_detail(
                        dice={
                            "d10": die,
                            "modifier": modifier,
                            "under_fire": False,
                            "extra": 0,
                            "total": total,
                        }
                    ),
                )
            else:
                self._hit(ship, name, side_id, undo=len(journal) < target - 1)
        return turn

    def _hit(self, ship: int, name: str, side_id: int, *, undo: bool) -> None:
        rng = self.rng
        row = self.ships.rows[ship - self.ships.rows[0]["id"]]
        maximum = row["structure_max"]
        before = rng.randint(1, maximum)
        after = max(0, before - rng.randint(1, 4))
        change = _change("ship", ship, {"structure_now": before}, {"structure_now": after})
        dice = None
        summary = f"{name}: S {before}->{after}/{maximum}"
        if rng.random() < 0.1:
            effect_roll = rng.randint(1, 10)
            dice = {"criticals": [{"die": "critical", "kind": "structural", "roll": effect_roll}]}
            summary += f", structural critical ({effect_roll}): {rng.choice(EFFECTS)}"
        entry = self.journal.add(
            "damage",
            summary,
            ship_id=ship,
            side_id=side_id,
            undoable=True,
            detail=_detail(change["before"], change["after"], dice, (change,)),
        )
        if undo and rng.random() < 0.01:
            # Now and then a hit on the wrong ship, undone at once (ctrl+z).
            undone_by = self.journal.add(
                "undo",
                f"Undid #{entry}: {summary}",
                ship_id=ship,
                side_id=side_id,
                undoable=True,
                reverts_id=entry,
                detail=_detail(changes=(_change("ship", ship, change["after"], change["before"]),)),
            )
            # Set once both rows are in: the foreign key points forward.
            self.reverted.append({"entry": entry, "undo": undone_by})

    def _snapshot(self, scenario_id: int, ship: int, phase: str) -> None:
        row = self.ships.rows[ship - self.ships.rows[0]["id"]]
        start = phase == "start"
        self.snapshots.add(
            scenario_id=scenario_id,
            ship_id=ship,
            phase=phase,
            structure=row["structure_max"] if start else row["structure_now"],
            flotation=row["flotation_max"] if start else row["flotation_now"],
            fire_markers=0,
            speed_kn=row["speed_kn"],
            sunk=False,
            condition="",
            criticals="[]",
            counter=json.dumps({key: row[key] for key in COUNTER_STATE}),
            at=self.journal.clock,
        )

    def insert(self) -> None:
        # Parents before children: the foreign keys are on.
        for rows in (
            self.commanders,
            self.crews,
            self.squadrons,
            self.ships,
            self.batteries,
            self.units,
            self.markers,
            self.boundaries,
            self.minefields,
            self.participations,
            self.snapshots,
            self.journal.rows,
        ):
            rows.insert(self.conn)
        if self.reverted:
            table = self.journal.rows.table
            self.conn.execute(
                update(table)
                .where(table.c.id == bindparam("entry"))
                .values(reverted_by_id=bindparam("undo")),
                self.reverted,
            )


def generate(path: Path, sizes: Sizes, *, seed: int = 10, name: str = "Bench campaign") -> Built:
    """Write a new campaign file at path (which must not exist) with a seeded generator."""
    sizes.check()
    if path.exists():
        raise FileExistsError(f"{path} exists: the generator writes a new file")
    started = time.perf_counter()
    rng = random.Random(seed)
    engine = make_engine(str(path))
    try:
        migrate(engine)
        factory = session_factory(engine)
        skeleton = _skeleton(factory, sizes, name)
        with engine.begin() as conn:
            bulk = Bulk(conn, sizes, skeleton, rng)
            bulk.forces()
            bulk.roster()
            bulk.ledger()
            updates = bulk.battles()
            bulk.insert()
            scenario = Scenario.__table__  # type: ignore[attr-defined]
            for scenario_id, values in updates:
                conn.execute(
                    update(scenario)
                    .where(scenario.c.id == scenario_id)
                    .values(**values, version=scenario.c.version + 1)
                )
        # The scenario in play, through the services: the first squadrons' ships take part.
        in_play = skeleton.scenario_ids[max(0, sizes.scenarios - 2)]
        squadrons = list(bulk.squadron_ships)
        taking_part = [
            ship for squadron in squadrons[:10] for ship in bulk.squadron_ships[squadron]
        ]
        scenarios.set_participants(factory, scenario_id=in_play, ship_ids=taking_part)
        scenarios.start_scenario(factory, scenario_id=in_play)
        probe = bulk.squadron_ships[squadrons[0]][0]
        others = [ship for ship in taking_part if ship != probe] or [probe]
        for ship in (others * SERVICE_HITS)[:SERVICE_HITS]:
            damage.record_hit(factory, request=damage.HitRequest(ship_id=ship, structure=1))
        checkpoint(factory)
    finally:
        engine.dispose()
    return Built(
        path=path,
        sizes=sizes,
        campaign_id=skeleton.campaign_id,
        campaign_name=name,
        squadron_id=squadrons[0],
        probe_ship_id=probe,
        probe_ship_name=bulk.ship_names[probe],
        hit_ship_ids=tuple(others),
        seconds=time.perf_counter() - started,
    )


def check_file(built: Built) -> dict[str, int]:
    """Read the file back through the services, as the screens do; counts of what they saw."""
    engine = make_engine(str(built.path))
    try:
        factory = session_factory(engine)
        overview = campaigns.get_overview(factory, campaign_id=built.campaign_id)
        record = sheet.load_record_sheet(factory, squadron_id=built.squadron_id)
        side_id = overview.sides[0].id
        markers = [
            marker
            for side in overview.sides
            for marker in roster.roster(factory, side_id=side.id, owner=True).markers
        ]
        ledger = mines.ledger(factory, campaign_id=built.campaign_id)
        owned = mines.ledger(factory, campaign_id=built.campaign_id, owner_side_id=side_id)
        entries = history.list_entries(factory, campaign_id=built.campaign_id, limit=50)
        history.journal_filters(factory, campaign_id=built.campaign_id)
        preview = damage.preview_hit(
            factory, request=damage.HitRequest(ship_id=built.probe_ship_id, structure=1)
        )
        assert preview.ship_name == built.probe_ship_name
        assert all(marker.real is not None for marker in markers)
        assert len(owned.minefields) == len(ledger.minefields)
        with engine.connect() as conn:
            journal = conn.execute(select(func.count()).select_from(JournalEntry)).scalar() or 0
        return {
            "squadrons": sum(len(side.squadrons) for side in overview.sides),
            "sheet_ships": len(record.ships),
            "markers": len(markers),
            "minefields": len(ledger.minefields),
            "journal": journal,
            "entries_read": len(entries),
        }
    finally:
        engine.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.generate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", type=Path, help="the campaign file to write (must not exist)")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="small")
    parser.add_argument("--sizes", default="", help="overrides, e.g. ships=8,journal=200")
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--name", default="Bench campaign")
    args = parser.parse_args(argv)
    sizes = Sizes.parse(args.sizes, PRESETS[args.preset])
    built = generate(args.path, sizes, seed=args.seed, name=args.name)
    print(
        json.dumps(
            {**built.as_json(), "sizes": sizes.label(), "read_back": check_file(built)}, indent=1
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
