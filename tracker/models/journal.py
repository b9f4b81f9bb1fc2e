"""The campaign journal: append-only history of every change a service makes."""

from datetime import datetime

from sqlalchemy import Index, false
from sqlmodel import Field

from tracker.models.base import Row
from tracker.models.campaign import utcnow
from tracker.models.identity import Identified
from tracker.models.kinds import JournalKind, Stored, text_column


class JournalEntry(Row, Identified, table=True):
    # The kinds a campaign's journal holds, for the journal screen's filter, are read from this
    # index alone, skipping from one kind to the next: the journal grows without bound.
    __table_args__ = (Index("ix_journalentry_campaign_id_kind", "campaign_id", "kind"),)
    at: datetime = Field(default_factory=utcnow)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    scenario_id: int | None = Field(default=None)
    turn: int | None = Field(default=None)
    side_id: int | None = Field(default=None, index=True)
    ship_id: int | None = Field(default=None, index=True)
    kind: Stored[JournalKind] = Field(max_length=30, index=True, sa_type=text_column(30))
    summary: str = Field(max_length=400)
    # JSON text {"before", "after", "dice", "changes"}: plain text so every backend stores it
    # alike. "changes" lists the rows touched ({"table", "id", "before", "after"}): what undo uses;
    # "rows" the others the act wrote (services.rowlog).
    detail: str = Field(default="{}")
    undoable: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    # Undo appends an inverse entry that names the entry it reverts; history is never rewritten.
    reverts_id: int | None = Field(default=None, foreign_key="journalentry.id")
    reverted_by_id: int | None = Field(default=None, foreign_key="journalentry.id")
