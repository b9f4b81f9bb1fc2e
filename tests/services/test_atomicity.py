"""A hit and its journal entry are written together or not at all."""

from __future__ import annotations

from typing import Any

import pytest

from tracker.db import SessionFactory
from tracker.services import campaigns, damage, demo, history, journal, sheet


class Boom(RuntimeError):
    pass


def test_a_failure_while_journaling_leaves_no_half_written_hit(
    factory: SessionFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign_id = demo.create_sample_campaign(factory)
    squadron = campaigns.get_overview(factory, campaign_id=campaign_id).sides[0].squadrons[0].id
    exeter = sheet.load_record_sheet(factory, squadron_id=squadron).ships[0]
    entries_before = len(history.list_entries(factory, campaign_id=campaign_id))

    def fail(*args: Any, **kwargs: Any) -> None:
        raise Boom("disk pulled out mid-write")

    # Either way of writing the entry (append through the session, insert_entry as a row).
    monkeypatch.setattr(journal, "append", fail)
    monkeypatch.setattr(journal, "insert_entry", fail)
    request = damage.HitRequest(
        ship_id=exeter.id, structure=5, criticals=(damage.CriticalRequest(effect="Bridge hit"),)
    )
    with pytest.raises(Boom):
        damage.record_hit(factory, request=request)
    monkeypatch.undo()

    after = sheet.load_ship(factory, ship_id=exeter.id)[0]
    assert (after.structure_now, after.flotation_now) == (12, 9)
    assert damage.list_criticals(factory, ship_id=exeter.id) == []
    assert len(history.list_entries(factory, campaign_id=campaign_id)) == entries_before
