"""A hit entered in a form instead of a line (ctrl+f on damage entry)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tracker.screens.calls import Call
from tracker.screens.fields import specs_from
from tracker.screens.form import FieldSpec, FormScreen
from tracker.services import damage
from tracker.services.damage import CriticalRequest, DamageResult, HitAmounts, HitRequest, ShipPick
from tracker.services.damage_entry import CRITICAL_KINDS

if TYPE_CHECKING:
    from tracker.services.common import SessionFactory


def hit_fields(afloat: list[tuple[str, int]], first: int | None) -> list[FieldSpec]:
    """The hit's form: the ship (`afloat` as (shown, id), `first` chosen), the numbers as the
    model declares them, and one critical."""
    return [
        FieldSpec("ship_id", "Ship", kind="select", value=first or afloat[0][1], options=afloat),
        *specs_from(HitAmounts),
        FieldSpec("kind", "Critical", kind="select", value=CRITICAL_KINDS[0],
                  options=[(kind, kind) for kind in CRITICAL_KINDS]),
        FieldSpec("effect", "Critical effect (blank: none)"),
    ]  # fmt: skip


def hit_form(
    factory: SessionFactory, picks: list[ShipPick], first: tuple[int | None, ...]
) -> FormScreen | None:
    """The form on the first of the ships `first` names that is afloat; None if none is."""
    afloat = [(f"{p.name} ({p.squadron})", p.id) for p in picks if not p.sunk]
    if not afloat:
        return None
    ids = {i for _, i in afloat}
    chosen = next((i for i in first if i in ids), None)

    def submit(values: dict[str, Any]) -> Call[DamageResult]:
        effect = values.pop("effect").strip()
        kind = values.pop("kind")
        criticals = (CriticalRequest(kind=kind, effect=effect),) if effect else ()
        request = HitRequest(**values, criticals=criticals)
        return Call(damage.record_hit, factory, request=request)

    return FormScreen("Record a hit", hit_fields(afloat, chosen), submit)
