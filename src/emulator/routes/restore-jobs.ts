// Restore jobs: read-only here, as the interface shows no way to create one.
import { listPage, type ListDef } from '../listing.js';
import { okData } from '../reply.js';
import { renderRestore } from '../render.js';
import type { RouteDef } from '../routing.js';
import type { RestoreRecord } from '../store.js';

export const RESTORE_STATUSES = ['pending', 'running', 'failed', 'completed'] as const;

const restoreList: ListDef<RestoreRecord> = {
  filters: [{ param: 'status', kind: 'enum', values: RESTORE_STATUSES, matches: (r, status) => r.status === status }],
  // The interface documents no sort field for restore jobs.
  sort: {},
};

export const restoreJobRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/restore-jobs',
    handler: (c) => listPage(c, c.rt.store.restores, restoreList, (r) => renderRestore(c.rt, r, { withFiles: false })),
  },
  {
    method: 'GET',
    path: '/v1/restore-jobs/{restore_job_id}',
    handler: ({ rt, params }) => okData(renderRestore(rt, rt.store.restores.require(params.restore_job_id!), { withFiles: true })),
  },
];
