// Disks and servers found in connected accounts (/v1/snapshots/resources).
import { listPage, type ListDef } from '../listing.js';
import { noContent, okData } from '../reply.js';
import { renderResource } from '../render.js';
import type { RouteDef } from '../routing.js';
import { ACCOUNT_PROVIDERS, FREQUENCIES, type ResourceRecord } from '../store.js';
import { Validation } from '../validate.js';

export const resourceRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/snapshots/resources',
    handler: (c) => {
      const { store } = c.rt;
      const def: ListDef<ResourceRecord> = {
        filters: [
          {
            param: 'provider',
            kind: 'enum',
            values: ACCOUNT_PROVIDERS,
            matches: (r, p) => store.accounts.get(r.account_id)?.provider === p,
          },
          { param: 'modified_since', kind: 'since', get: (r) => r.updated_at },
        ],
        sort: { id: (r) => r.id, last_synced_at: (r) => r.last_synced_at },
      };
      return listPage(c, store.resources, def, (r) => renderResource(c.rt, r, { list: true }));
    },
  },
  {
    method: 'GET',
    path: '/v1/snapshots/resources/{resource_id}',
    handler: ({ rt, params }) => okData(renderResource(rt, rt.store.resources.require(params.resource_id!), { list: false })),
  },
  {
    method: 'PATCH',
    path: '/v1/snapshots/resources/{resource_id}/activate',
    handler: ({ rt, params, input }) => {
      const resource = rt.store.resources.require(params.resource_id!);
      const v = new Validation(input);
      const frequency = v.string('frequency', { required: true, oneOf: FREQUENCIES });
      const hourly = v.integer('retention_hourly', { required: true, min: 0 });
      const daily = v.integer('retention_daily', { required: true, min: 0 });
      const weekly = v.integer('retention_weekly', { required: true, min: 0 });
      const monthly = v.integer('retention_monthly', { required: true, min: 0 });
      const timezone = v.timezone('timezone', { required: true });
      const runOffset = v.integer('run_offset', { required: true, min: 0, max: 23 });
      v.check();
      rt.store.resources.patch(resource, {
        backups_activated: true,
        updated_at: rt.now(),
        schedule: {
          frequency: frequency!,
          retention: { hourly: hourly!, daily: daily!, weekly: weekly!, monthly: monthly! },
          timezone: timezone!,
          run_offset: runOffset!,
        },
      });
      return noContent();
    },
  },
  {
    method: 'PATCH',
    path: '/v1/snapshots/resources/{resource_id}/deactivate',
    handler: ({ rt, params }) => {
      const resource = rt.store.resources.require(params.resource_id!);
      rt.store.resources.patch(resource, { backups_activated: false, updated_at: rt.now() });
      return noContent();
    },
  },
  {
    method: 'DELETE',
    path: '/v1/snapshots/resources/{resource_id}/clear',
    handler: ({ rt, params }) => {
      const resource = rt.store.resources.require(params.resource_id!);
      rt.store.snapshots.removeWhere((s) => s.resource_id === resource.id);
      return noContent();
    },
  },
];
