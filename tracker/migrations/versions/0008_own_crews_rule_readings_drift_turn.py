"""own crews, rule readings, drift turn

A transferred ship keeps its own crew (ship.crew_id), a snapshot keeps the ship's squadron,
the campaign chooses its half-strength and aircraft-mission readings, and a minefield keeps the
turn of its last drift.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 13:20:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision: str = '0008'
down_revision: Union[str, None] = '0007'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('campaign', schema=None) as batch_op:
        batch_op.add_column(sa.Column('half_strength_scope', sqlmodel.sql.sqltypes.AutoString(length=8), server_default='scenario', nullable=False))
        batch_op.add_column(sa.Column('aircraft_mission', sqlmodel.sql.sqltypes.AutoString(length=8), server_default='turn', nullable=False))

    with op.batch_alter_table('ship', schema=None) as batch_op:
        batch_op.add_column(sa.Column('crew_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key('fk_ship_crew_id', 'crew', ['crew_id'], ['id'], ondelete='SET NULL')

    with op.batch_alter_table('shipsnapshot', schema=None) as batch_op:
        batch_op.add_column(sa.Column('squadron_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key('fk_shipsnapshot_squadron_id', 'squadron', ['squadron_id'], ['id'], ondelete='SET NULL')

    with op.batch_alter_table('minefield', schema=None) as batch_op:
        batch_op.add_column(sa.Column('drift_scenario_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('drift_turn', sa.Integer(), nullable=True))
        batch_op.create_foreign_key('fk_minefield_drift_scenario_id', 'scenario', ['drift_scenario_id'], ['id'], ondelete='SET NULL')


def downgrade() -> None:
    with op.batch_alter_table('minefield', schema=None) as batch_op:
        batch_op.drop_constraint('fk_minefield_drift_scenario_id', type_='foreignkey')
        batch_op.drop_column('drift_turn')
        batch_op.drop_column('drift_scenario_id')

    with op.batch_alter_table('shipsnapshot', schema=None) as batch_op:
        batch_op.drop_constraint('fk_shipsnapshot_squadron_id', type_='foreignkey')
        batch_op.drop_column('squadron_id')

    with op.batch_alter_table('ship', schema=None) as batch_op:
        batch_op.drop_constraint('fk_ship_crew_id', type_='foreignkey')
        batch_op.drop_column('crew_id')

    with op.batch_alter_table('campaign', schema=None) as batch_op:
        batch_op.drop_column('aircraft_mission')
        batch_op.drop_column('half_strength_scope')
