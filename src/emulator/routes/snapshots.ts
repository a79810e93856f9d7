// Snapshots taken at connected provider accounts.
import { listPage, type ListDef } from '../listing.js';
import { noContent, okData } from '../reply.js';
import { renderSnapshot } from '../render.js';
import type { RouteDef } from '../routing.js';
import { ACCOUNT_PROVIDERS, type SnapshotRecord } from '../store.js';

/** Filter values use underscores; records may carry the hyphenated form. */
function snapshotHasStatus(snapshot: SnapshotRecord, wanted: string): boolean {
  return snapshot.status.replace(/-/g, '_') === wanted;
}

export const SNAPSHOT_STATUS_FILTER = ['pre_request', 'in_progress', 'expired', 'failed', 'completed'] as const;

export const snapshotRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/snapshots',
    handler: (c) => {
      const { store } = c.rt;
      const providerOf = (s: SnapshotRecord) => store.accounts.get(s.account_id)?.provider;
      const def: ListDef<SnapshotRecord> = {
        filters: [
          { param: 'provider', kind: 'enum', values: ACCOUNT_PROVIDERS, matches: (s, p) => providerOf(s) === p },
          { param: 'status', kind: 'enum', values: SNAPSHOT_STATUS_FILTER, matches: snapshotHasStatus },
          { param: 'tags', kind: 'tags', get: (s) => s.tags },
          { param: 'started_since', kind: 'since', get: (s) => s.started_at },
          { param: 'completed_since', kind: 'since', get: (s) => s.completed_at },
        ],
        sort: {
          id: (s) => s.id,
          name: (s) => s.name,
          size: (s) => s.size,
          started_at: (s) => s.started_at,
          completed_at: (s) => s.completed_at,
        },
      };
      return listPage(c, store.snapshots, def, (s) => renderSnapshot(c.rt, s));
    },
  },
  {
    method: 'GET',
    path: '/v1/snapshots/{snapshot_id}',
    handler: ({ rt, params }) => okData(renderSnapshot(rt, rt.store.snapshots.require(params.snapshot_id!))),
  },
  {
    method: 'DELETE',
    path: '/v1/snapshots/{snapshot_id}',
    handler: ({ rt, params }) => {
      rt.store.snapshots.remove(rt.store.snapshots.require(params.snapshot_id!));
      return noContent();
    },
  },
];
