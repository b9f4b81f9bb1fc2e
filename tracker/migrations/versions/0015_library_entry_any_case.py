"""a library entry is one entry whatever the case of its name and nation

Two ship classes or two cards whose name and nation differ only in case ("Bismarck" of
"Germany", "BISMARCK" of "germany") are one entry: every key the tracker matches an entry by
(models.library.entry_key: a re-import, a ship or a unit built from the library) already took
the newest of them. The older ones are removed, each said in the upgrade's notes (the backup
made before the upgrade keeps them), and a unique index on the name and nation in lower case
keeps it so.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07 11:00:00.000000

"""

from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0015'
down_revision: Union[str, None] = '0014'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

TABLES = {"shipclass": "ship class", "unitcard": "card"}


def _label(name: str, nation: str) -> str:
    return f"{name} ({nation})" if nation else name


def upgrade() -> None:
    conn = op.get_bind()
    config = op.get_context().config
    notes = config.attributes.get("notes") if config is not None else None
    for table, what in TABLES.items():
        newest: dict[tuple[str, str], tuple[int, str, str]] = {}
        rows = conn.execute(sa.text(f"SELECT id, name, nation FROM {table} ORDER BY id DESC"))
        for row_id, name, nation in rows.all():
            key = (name.casefold(), nation.casefold())
            kept = newest.setdefault(key, (row_id, name, nation))
            if kept[0] == row_id:
                continue
            conn.execute(sa.text(f"DELETE FROM {table} WHERE id = :id"), {"id": row_id})
            if notes is not None:
                notes.append(
                    f"the library's {what} {_label(name, nation)} was the same as "
                    f"{_label(kept[1], kept[2])} in another case: the newer is kept"
                )
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.create_index(
                f"ix_{table}_entry_any_case",
                [sa.text("lower(name)"), sa.text("lower(nation)")],
                unique=True,
            )


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(f"ix_{table}_entry_any_case")
