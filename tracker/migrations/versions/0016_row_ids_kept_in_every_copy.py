"""an id for every row a player refers to, the same in every copy of its campaign

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07 14:30:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision: str = '0016'
down_revision: Union[str, None] = '0015'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

# The campaign and its sides have theirs since 0013 (models.identity.Identified).
TABLES = ('scenario', 'squadron', 'ship', 'battery', 'commander', 'crew', 'critical', 'repair',
          'wasunit', 'submarker', 'minefield', 'minecheck', 'journalentry')

# A random version 4 UUID as text for each row, made by the database itself: one UPDATE a
# table, however long its journal (models.identity.new_uid makes the same shape).
RANDOM_UUID = {
    'sqlite': "lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4'"
              " || substr(hex(randomblob(2)), 2) || '-'"
              " || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2)"
              " || '-' || hex(randomblob(6)))",
    'postgresql': 'gen_random_uuid()::text',
}


def upgrade() -> None:
    fresh = RANDOM_UUID[op.get_bind().dialect.name]
    for table in TABLES:
        # Added alone first: SQLite adds a column without copying the table.
        op.add_column(table, sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=36),
                                       nullable=True))
        op.execute(f'UPDATE {table} SET uid = {fresh}')
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column('uid', existing_type=sqlmodel.sql.sqltypes.AutoString(length=36),
                                  nullable=False)
            batch_op.create_index(batch_op.f(f'ix_{table}_uid'), ['uid'], unique=True)


def downgrade() -> None:
    for table in reversed(TABLES):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(batch_op.f(f'ix_{table}_uid'))
            batch_op.drop_column('uid')
