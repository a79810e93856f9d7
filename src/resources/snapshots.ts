// Snapshots taken at connected provider accounts (/v1/snapshots). Snapshots of
// cloud_i machines live under droplets and volumes instead.
import * as z from 'zod/mini';
import type { Column } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { datetime, idArg, record, snapshotFilters, status } from './common.js';
import { ACCOUNT_PROVIDERS, accountSchema, providerColumn, providerSchema } from './accounts.js';
import { providerAliases } from '../util/providers.js';
import { resourceSchema } from './snapshot-resources.js';
import { setTagNames } from './common.js';
import { SNAPSHOT_STATUSES, SNAPSHOT_STATUS_FILTER } from '../backups/status.js';

/** The values the status filter takes; answers also carry `in-progress` and `delete-request` (src/backups/status.ts). */
const STATUS_FILTER = SNAPSHOT_STATUS_FILTER;
const TAGS = ['manual', 'hourly', 'daily', 'weekly', 'monthly'] as const;

export const snapshotSchema = record({
  id: z.int(),
  name: z.nullish(z.string()),
  status: z.nullish(status(...SNAPSHOT_STATUSES)),
  fail_reason: z.nullish(z.string()),
  // A human string such as "255.89 MB" (api-facts); a number of bytes is shown humanised.
  size: z.nullish(z.union([z.string(), z.number()])),
  tags: z.nullish(z.record(z.string(), z.unknown())),
  started_at: z.nullish(datetime),
  completed_at: z.nullish(datetime),
  credentials: z.nullish(accountSchema),
  provider: z.nullish(providerSchema),
  resource: z.nullish(resourceSchema),
});

/** `server 12`: what the snapshot is of. */
function resourceText(resource: unknown): string | undefined {
  if (!resource || typeof resource !== 'object') return undefined;
  const r = resource as { type?: unknown; id?: unknown };
  const parts = [r.type, r.id].filter((p) => typeof p === 'string' || typeof p === 'number');
  return parts.length ? parts.join(' ') : undefined;
}

const snapshotColumns: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name' },
  providerColumn,
  { key: 'status', header: 'Status', format: 'status' },
  { key: 'size', header: 'Size', format: 'size' },
  // The names of the tags set, so TSV holds `daily,weekly` rather than the 0/1 object.
  { key: 'tags', header: 'Tags', format: 'tags', get: (s) => setTagNames(s.tags) },
  { key: 'started_at', header: 'Started', format: 'time' },
  { key: 'completed_at', header: 'Completed', format: 'time' },
  { key: 'account', header: 'Account', get: (s) => s.credentials?.name },
  // tsv: its type and id, two fields.
  { key: 'resource', header: 'Resource', show: (s) => resourceText(s.resource), flat: ['type', 'id'] },
  { key: 'fail_reason', header: 'Fail reason', extra: true },
];

export const schemas = { snapshot: snapshotSchema };

export const columns: Record<string, Column[]> = {
  snapshot: snapshotColumns,
  // One snapshot has room to say why it failed.
  snapshotDetail: snapshotColumns.map((c) => ({ ...c, extra: false })),
};

export const module: ModuleSpec = {
  name: 'snapshots',
  commands: [
    {
      path: ['snapshots', 'list'],
      summary: 'List snapshots taken at connected accounts',
      examples: [
        'backupctl snapshots list',
        'backupctl snapshots list --provider cloud_a --status failed --started-since 7d',
        'backupctl snapshots list --tags daily --without-tags manual --sort -started_at -o ndjson',
      ],
      method: 'GET',
      endpoint: '/snapshots',
      params: [
        { name: 'provider', in: 'query', type: 'enum', values: ACCOUNT_PROVIDERS, aliases: providerAliases(ACCOUNT_PROVIDERS), description: 'Only snapshots of accounts at this provider' },
        ...snapshotFilters({ statuses: STATUS_FILTER, tags: TAGS, tagsExample: 'manual,daily' }),
      ],
      list: { sort: ['id', 'name', 'size', 'started_at', 'completed_at'] },
      output: { kind: 'list', schema: 'snapshot', columns: 'snapshot' },
    },
    {
      path: ['snapshots', 'get'],
      summary: 'Show a snapshot',
      examples: ['backupctl snapshots get 118', 'backupctl snapshots get 118 --json'],
      method: 'GET',
      endpoint: '/snapshots/{snapshot_id}',
      params: [{ ...idArg('snapshot_id', 'Snapshot'), complete: 'snapshots' }],
      output: { kind: 'record', schema: 'snapshot', columns: 'snapshotDetail' },
    },
    {
      path: ['snapshots', 'delete'],
      summary: 'Delete a snapshot',
      examples: ['backupctl snapshots delete 118', 'backupctl snapshots delete 118 --yes'],
      method: 'DELETE',
      endpoint: '/snapshots/{snapshot_id}',
      params: [{ ...idArg('snapshot_id', 'Snapshot'), complete: 'snapshots' }],
      confirm: 'Delete snapshot {snapshot_id}?',
      output: { kind: 'none', done: 'Deleted snapshot {snapshot_id}.' },
    },
  ],
};
