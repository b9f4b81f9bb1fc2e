"""a War at Sea unit holds every value of its card: its class, air-to-air dice, flagship
rating and plane capacity

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03 10:00:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision: str = '0012'
down_revision: Union[str, None] = '0011'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('wasunit', schema=None) as batch_op:
        batch_op.add_column(sa.Column('class_name', sqlmodel.sql.sqltypes.AutoString(length=60), server_default='', nullable=False))
        batch_op.add_column(sa.Column('air_to_air', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('flagship', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('plane_capacity', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('wasunit', schema=None) as batch_op:
        batch_op.drop_column('plane_capacity')
        batch_op.drop_column('flagship')
        batch_op.drop_column('air_to_air')
        batch_op.drop_column('class_name')
