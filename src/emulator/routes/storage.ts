// Storage destinations where backups are written.
import { listPage, type ListDef } from '../listing.js';
import { created, noContent } from '../reply.js';
import { renderStorage } from '../render.js';
import type { RouteDef } from '../routing.js';
import { ACCOUNT_PROVIDERS, STORAGE_PROVIDERS, type StorageProvider, type StorageRecord } from '../store.js';
import { Validation } from '../validate.js';

/** The service's own storage takes no key or secret. */
const KEYLESS_PROVIDERS: readonly StorageProvider[] = ['cloud_m'];

const storageList: ListDef<StorageRecord> = {
  filters: [
    // The published page lists the account providers for this filter: both lists are taken (issue 30 §7).
    { param: 'provider', kind: 'enum', values: [...new Set<string>([...STORAGE_PROVIDERS, ...ACCOUNT_PROVIDERS])], matches: (s, p) => s.provider === p },
    { param: 'region', kind: 'exact', get: (s) => s.region },
    { param: 'modified_since', kind: 'since', get: (s) => s.updated_at },
  ],
  sort: { id: (s) => s.id, name: (s) => s.name },
};

export const storageRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/storage',
    handler: (c) => listPage(c, c.rt.store.storage, storageList, (s) => renderStorage(s)),
  },
  {
    method: 'POST',
    path: '/v1/storage',
    handler: ({ rt, input }) => {
      const v = new Validation(input);
      const name = v.string('name', { required: true, max: 255 });
      const provider = v.string('provider', { required: true, oneOf: STORAGE_PROVIDERS }) as StorageProvider | undefined;
      const needsKey = provider !== undefined && !KEYLESS_PROVIDERS.includes(provider);
      const key = v.string('key', { required: needsKey });
      const secret = v.string('secret', { required: needsKey });
      const bucket = v.string('bucket', { required: true, max: 255 });
      const endpoint = v.string('endpoint', { required: false });
      if (provider === 'custom' && !v.filled('endpoint')) v.fail('endpoint', 'The endpoint field is required when provider is custom.');
      if (endpoint !== undefined && !/^https?:\/\/\S+$/.test(endpoint)) v.fail('endpoint', 'The endpoint field must be a valid URL.');
      const region = v.string('region');
      if (provider !== undefined && provider !== 'custom' && !v.filled('region'))
        v.fail('region', 'The region field is required unless provider is in custom.');
      v.check();
      const now = rt.now();
      const storage = rt.store.storage.insert({
        id: rt.store.storage.nextId(),
        name: name!,
        provider: provider!,
        region: region ?? null,
        bucket: bucket!,
        endpoint: endpoint ?? null,
        key: key ?? null,
        secret: secret ?? null,
        estimated_size: 0,
        priority: rt.store.storage.size + 1,
        created_at: now,
        updated_at: now,
      });
      return created(renderStorage(storage));
    },
  },
  {
    method: 'PATCH',
    path: '/v1/storage/{storage_id}',
    handler: ({ rt, params, input }) => {
      const storage = rt.store.storage.require(params.storage_id!);
      const v = new Validation(input);
      const name = v.string('name', { max: 255 });
      const key = v.string('key');
      const secret = v.string('secret');
      if (KEYLESS_PROVIDERS.includes(storage.provider)) {
        if (v.filled('key')) v.fail('key', 'The key field is prohibited.');
        if (v.filled('secret')) v.fail('secret', 'The secret field is prohibited.');
      }
      v.check();
      rt.store.storage.patch(storage, {
        name: name ?? storage.name,
        key: key ?? storage.key,
        secret: secret ?? storage.secret,
        updated_at: rt.now(),
      });
      return noContent();
    },
  },
  {
    method: 'DELETE',
    path: '/v1/storage/{storage_id}',
    handler: ({ rt, params }) => {
      const storage = rt.store.storage.require(params.storage_id!);
      rt.store.storage.remove(storage);
      for (const job of rt.store.jobs.rows) {
        if (job.storage.some((s) => s.storage_id === storage.id))
          rt.store.jobs.patch(job, { storage: job.storage.filter((s) => s.storage_id !== storage.id) });
      }
      return noContent();
    },
  },
];
