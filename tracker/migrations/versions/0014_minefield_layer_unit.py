"""a minefield's War at Sea minelayer

A minefield sown by a War at Sea submarine of a roster keeps that unit (minefield.layer_unit_id),
as one sown by a record-sheet ship keeps the ship: whether a unit is still sowing is asked of
its own id, never of its name. A public minefield laid before names its layer by name only: the
submarine of that name on the minefield's side is taken as its layer.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02 10:00:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision: str = '0014'
down_revision: Union[str, None] = '0013'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('minefield', schema=None) as batch_op:
        batch_op.add_column(sa.Column('layer_unit_id', sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f('ix_minefield_layer_unit_id'), ['layer_unit_id'], unique=False)
        batch_op.create_foreign_key('fk_minefield_layer_unit_id', 'wasunit', ['layer_unit_id'], ['id'], ondelete='SET NULL')
    # A secret minefield's layer is sealed: only a public one's name can be read here.
    op.execute(
        "UPDATE minefield SET layer_unit_id = (SELECT wasunit.id FROM wasunit"
        " WHERE wasunit.side_id = minefield.side_id AND wasunit.name = minefield.layer_name"
        " AND wasunit.unit_type = 'submarine')"
        " WHERE laid_by = 'submarine' AND layer_ship_id IS NULL AND layer_name != ''"
    )


def downgrade() -> None:
    with op.batch_alter_table('minefield', schema=None) as batch_op:
        batch_op.drop_constraint('fk_minefield_layer_unit_id', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_minefield_layer_unit_id'))
        batch_op.drop_column('layer_unit_id')
