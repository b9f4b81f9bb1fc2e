"""The campaign journal: append-only history of every change a service makes."""

from datetime import datetime

from sqlmodel import Field, SQLModel

from tracker.models.campaign import utcnow


class JournalEntry(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utcnow)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    scenario_id: int | None = Field(default=None)
    turn: int | None = Field(default=None)
    ship_id: int | None = Field(default=None, index=True)
    kind: str = Field(max_length=30)
    summary: str = Field(max_length=400)
    # JSON text {"before", "after", "dice"}: plain text so every backend stores it alike.
    detail: str = Field(default="{}")
