"""the library: SMR2 ship classes and War at Sea unit cards, shared by the file's campaigns

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 19:20:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision: str = '0011'
down_revision: Union[str, None] = '0010'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def _text(length: int | None = None) -> sqlmodel.sql.sqltypes.AutoString:
    return sqlmodel.sql.sqltypes.AutoString(length=length)


def upgrade() -> None:
    op.create_table('shipclass',
    sa.Column('name', _text(60), nullable=False),
    sa.Column('type_abbrev', _text(8), nullable=False),
    sa.Column('nation', _text(40), nullable=False),
    sa.Column('size_modifier', sa.Integer(), nullable=False),
    sa.Column('speed_kn', sa.Integer(), nullable=False),
    sa.Column('armour_class', _text(20), nullable=False),
    sa.Column('structure', sa.Integer(), nullable=False),
    sa.Column('flotation', sa.Integer(), nullable=False),
    sa.Column('points', sa.Integer(), nullable=False),
    sa.Column('batteries', _text(2000), nullable=False),
    sa.Column('notes', _text(4000), nullable=False),
    sa.Column('version', sa.Integer(), server_default='1', nullable=False),
    sa.Column('id', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name', 'nation')
    )
    op.create_table('unitcard',
    sa.Column('name', _text(60), nullable=False),
    sa.Column('nation', _text(40), nullable=False),
    sa.Column('unit_type', _text(20), nullable=False),
    sa.Column('year', sa.Integer(), nullable=True),
    sa.Column('points', sa.Integer(), nullable=False),
    sa.Column('armor', sa.Integer(), nullable=False),
    sa.Column('vital_armor', sa.Integer(), nullable=False),
    sa.Column('hull_points', sa.Integer(), nullable=False),
    sa.Column('speed', _text(4), nullable=False),
    sa.Column('air_to_air', sa.Integer(), nullable=True),
    sa.Column('flagship', sa.Integer(), nullable=True),
    sa.Column('plane_capacity', sa.Integer(), nullable=True),
    sa.Column('class_name', _text(60), nullable=False),
    sa.Column('alliance', _text(20), nullable=False),
    sa.Column('set_name', _text(60), nullable=False),
    sa.Column('set_number', _text(12), nullable=False),
    sa.Column('rarity', _text(20), nullable=False),
    sa.Column('back_text', _text(4000), nullable=False),
    sa.Column('notes', _text(2000), nullable=False),
    sa.Column('version', sa.Integer(), server_default='1', nullable=False),
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('attacks', _text(), nullable=False),
    sa.Column('abilities', _text(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name', 'nation')
    )


def downgrade() -> None:
    op.drop_table('unitcard')
    op.drop_table('shipclass')
