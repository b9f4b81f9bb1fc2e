"""ships retired by a delete after they took part in a scenario

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


def downgrade() -> None:
    with op.batch_alter_table('ship', schema=None) as batch_op:
        batch_op.drop_column('retired')
