"""a stable id for each campaign and side, kept in every copy of the file

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03 10:00:00.000000

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel

from tracker.models.identity import first_uid


revision: str = '0013'
down_revision: Union[str, None] = '0012'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

TABLES = ('campaign', 'side')


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=36),
                                          nullable=True))
    # Each existing row gets the id derived from its campaign's creation time and its row
    # numbers (models.identity.first_uid): a backup taken before this upgrade is known by the
    # same ids when a passphrase set later seals it.
    conn = op.get_bind()
    campaigns = conn.execute(sa.text('SELECT id, created_at FROM campaign')).all()
    for campaign_id, created_at in campaigns:
        conn.execute(sa.text('UPDATE campaign SET uid = :uid WHERE id = :id'),
                     {'uid': first_uid(created_at, campaign_id), 'id': campaign_id})
    created = dict(campaigns)
    for side_id, campaign_id in conn.execute(sa.text('SELECT id, campaign_id FROM side')).all():
        conn.execute(sa.text('UPDATE side SET uid = :uid WHERE id = :id'),
                     {'uid': first_uid(created[campaign_id], campaign_id, side_id), 'id': side_id})
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column('uid', existing_type=sqlmodel.sql.sqltypes.AutoString(length=36),
                                  nullable=False)
            batch_op.create_index(batch_op.f(f'ix_{table}_uid'), ['uid'], unique=True)


def downgrade() -> None:
    for table in reversed(TABLES):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(batch_op.f(f'ix_{table}_uid'))
            batch_op.drop_column('uid')
