import { ErrorCode } from '../../errors';
import { removeSnapshot } from '../../services/import.service';
import { envelopeSchema } from '../envelope-schema';
import { SnapshotIdInput } from '../inputs/snapshot.inputs';
import { ok, type RouteDefinition } from '../route-definition';
import { adminOnly } from '../route-roles';

const REMOVED_RESPONSE = envelopeSchema(
  {
    snapshot_id: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    latest_snapshot_id: { type: ['string', 'null'] },
  },
  ['snapshot_id', 'created_at', 'latest_snapshot_id'],
);

/** `DEL`/`DELETE /pipelines/snapshots/{snapshot_id}` (the server maps `DEL` to `DELETE`). */
const removeSnapshotRoute: RouteDefinition<SnapshotIdInput> = {
  method: 'DELETE',
  path: '/pipelines/snapshots/:snapshot_id',
  summary:
    'Remove a snapshot as retention would (admin): reads of it answer 404 naming the removal; the latest one left is what reads see',
  tag: 'Pipelines',
  authenticated: true,
  roles: adminOnly('remove a snapshot'),
  errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
  input: SnapshotIdInput,
  response: REMOVED_RESPONSE,
  handler: async (ctx, input) => {
    const removed = await removeSnapshot(ctx, input.snapshot_id, {
      queue: ctx.access.imports,
    });
    const latest = removed.latest
      ? `the latest snapshot is now ${removed.latest.snapshotId} (${removed.latest.snapshotAt.toISOString()})`
      : 'no snapshot is left';
    return ok(`Snapshot ${removed.snapshotId} removed; ${latest}`, {
      snapshot_id: removed.snapshotId,
      created_at: removed.snapshotAt.toISOString(),
      latest_snapshot_id: removed.latest?.snapshotId ?? null,
    });
  },
};

/** `DEL /pipelines/snapshots/{snapshot_id}`. */
export const snapshotsRoutes: RouteDefinition[] = [removeSnapshotRoute as RouteDefinition];
