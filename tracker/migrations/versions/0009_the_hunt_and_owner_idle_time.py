"""the hunt's searches on markers and the owner view's idle time

Revision ID: 0009
Revises: 0007
Create Date: 2026-12-01 13:10:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision: str = '0009'
down_revision: Union[str, None] = '0007'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('campaign', schema=None) as batch_op:
        batch_op.add_column(sa.Column('owner_idle_seconds', sa.Integer(), server_default='60', nullable=False))
    with op.batch_alter_table('submarker', schema=None) as batch_op:
        batch_op.add_column(sa.Column('search_scenario_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('search_turn', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('search_found', sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('submarker', schema=None) as batch_op:
        batch_op.drop_column('search_found')
        batch_op.drop_column('search_turn')
        batch_op.drop_column('search_scenario_id')
    with op.batch_alter_table('campaign', schema=None) as batch_op:
        batch_op.drop_column('owner_idle_seconds')
