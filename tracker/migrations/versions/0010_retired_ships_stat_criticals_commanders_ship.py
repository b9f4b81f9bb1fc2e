"""ships retired by a delete after they took part in a scenario; the stat a critical changed;
the ship carrying each squadron's commander

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 16:10:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision: str = '0010'
down_revision: Union[str, None] = '0009'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('ship', schema=None) as batch_op:
        batch_op.add_column(sa.Column('retired', sa.Boolean(), server_default=sa.false(), nullable=False))
    with op.batch_alter_table('critical', schema=None) as batch_op:
        batch_op.add_column(sa.Column('stat', sqlmodel.sql.sqltypes.AutoString(length=20), server_default='', nullable=False))
        batch_op.add_column(sa.Column('amount', sa.Integer(), server_default='0', nullable=False))
    with op.batch_alter_table('squadron', schema=None) as batch_op:
        batch_op.add_column(sa.Column('commander_ship_id', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('squadron', schema=None) as batch_op:
        batch_op.drop_column('commander_ship_id')
    with op.batch_alter_table('critical', schema=None) as batch_op:
        batch_op.drop_column('amount')
        batch_op.drop_column('stat')
    with op.batch_alter_table('ship', schema=None) as batch_op:
        batch_op.drop_column('retired')
