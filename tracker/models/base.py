"""The base of every model: SQLModel, its validators built when first used."""

from sqlmodel import Field, SQLModel
from sqlmodel.main import SQLModelConfig


class Model(SQLModel):
    """Pydantic builds a model's validator and serializer at its first validation or dump, not
    when its module is imported: the start imports every model, and a session uses a few of
    them (building all of them took about 190 ms and 3 MiB; bench/README.md, figure 12)."""

    model_config = SQLModelConfig(defer_build=True)


class Input(Model):
    """What the player typed for a Create or Update: surrounding blanks dropped before any bound
    is checked, and a key the model does not know refused (a typo must not be dropped silently)."""

    model_config = SQLModelConfig(str_strip_whitespace=True, extra="forbid")


class Row(Model):
    """A table's row number, its primary key: put first among a table's bases, so that it comes
    before the table's own columns."""

    id: int | None = Field(default=None, primary_key=True)


class CampaignRow(Row):
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")


class SideRow(Row):
    side_id: int = Field(foreign_key="side.id", index=True, ondelete="CASCADE")


class ShipRow(Row):
    ship_id: int = Field(foreign_key="ship.id", index=True, ondelete="CASCADE")
