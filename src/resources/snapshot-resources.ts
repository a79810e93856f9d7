// Disks and servers found in connected accounts (/v1/snapshots/resources):
// the `resources` command group.
import * as z from 'zod/mini';
import type { Column } from '../contract/context.js';
import type { ModuleSpec, ParamSpec } from '../contract/spec.js';
import { datetime, idArg, modifiedSince, record } from './common.js';
import { ACCOUNT_PROVIDERS, accountSchema, providerColumn, providerSchema } from './accounts.js';
import { providerAliases } from '../util/providers.js';

/**
 * The real service's schedule frequencies (api-facts): hours, then minutes.
 * The interface leaves them open; the emulator takes the same list.
 */
export const FREQUENCIES = ['h24', 'h12', 'h6', 'h4', 'h3', 'h2', 'h1', 'm30', 'm20', 'm15', 'm10', 'm6', 'm5'] as const;
const RETENTION_KEYS = ['hourly', 'daily', 'weekly', 'monthly'] as const;

export const resourceSchema = record({
  id: z.int(),
  type: z.nullish(z.string()),
  backups_activated: z.nullish(z.union([z.boolean(), z.number()])),
  last_known_ip: z.nullish(z.string()),
  last_synced_at: z.nullish(datetime),
  // Only in the list.
  credentials: z.nullish(accountSchema),
  provider: z.nullish(providerSchema),
});

const resourceColumns: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'type', header: 'Type' },
  providerColumn,
  { key: 'account', header: 'Account', get: (r) => r.credentials?.name },
  { key: 'backups_activated', header: 'Activated', format: 'bool' },
  { key: 'last_known_ip', header: 'IP' },
  { key: 'last_synced_at', header: 'Last synced', format: 'time' },
];

export const schemas = { resource: resourceSchema };

export const columns: Record<string, Column[]> = {
  resource: resourceColumns,
  // The single-resource answer has no account or provider (interface): no empty columns for them.
  resourceDetail: resourceColumns.filter((c) => c.key !== 'provider' && c.key !== 'account'),
};

const resourceId: ParamSpec = { ...idArg('resource_id', 'Resource'), complete: 'resources' };

const scheduleParams: ParamSpec[] = [
  {
    name: 'frequency',
    in: 'body',
    // The interface does not show the values a resource takes (issue 30 §7): any h<hours> or
    // m<minutes> is sent, the job schedules' values are the ones known.
    type: 'string',
    pattern: { source: '[hm][1-9]\\d{0,3}', text: `h<hours> or m<minutes>, such as ${FREQUENCIES.join(' ')}` },
    required: true,
    placeholder: 'freq',
    description: `How often to snapshot: h<hours> or m<minutes> between snapshots; the values known from job schedules are ${FREQUENCIES.join(' ')} (the service's list for resources is not published)`,
  },
  ...RETENTION_KEYS.map(
    (period): ParamSpec => ({
      name: `retention_${period}`,
      in: 'body',
      type: 'integer',
      min: 0,
      required: true,
      placeholder: 'n',
      description: `${period.charAt(0).toUpperCase()}${period.slice(1)} snapshots to keep`,
    }),
  ),
  { name: 'timezone', in: 'body', type: 'timezone', required: true, placeholder: 'tz', description: 'Timezone of the schedule, e.g. Europe/Amsterdam' },
  {
    name: 'run_offset',
    in: 'body',
    type: 'integer',
    min: 0,
    required: true,
    placeholder: 'n',
    description: "Offset of the runs within the schedule (the service's run_offset, e.g. hours after 00:00)",
  },
];

export const module: ModuleSpec = {
  name: 'snapshot-resources',
  commands: [
    {
      path: ['resources', 'list'],
      summary: 'List disks and servers found in connected accounts',
      examples: ['backupctl resources list', 'backupctl resources list --provider cloud_a --sort -last_synced_at', 'backupctl resources list --modified-since 24h -q'],
      method: 'GET',
      endpoint: '/snapshots/resources',
      params: [
        { name: 'provider', in: 'query', type: 'enum', values: ACCOUNT_PROVIDERS, aliases: providerAliases(ACCOUNT_PROVIDERS), description: 'Only resources of accounts at this provider' },
        modifiedSince,
      ],
      list: { sort: ['id', 'last_synced_at'], whole: true },
      output: { kind: 'list', schema: 'resource', columns: 'resource' },
    },
    {
      path: ['resources', 'get'],
      summary: 'Show a snapshot resource',
      examples: ['backupctl resources get 3', 'backupctl resources get 3 --json'],
      method: 'GET',
      endpoint: '/snapshots/resources/{resource_id}',
      params: [resourceId],
      output: { kind: 'record', schema: 'resource', columns: 'resourceDetail' },
    },
    {
      path: ['resources', 'activate'],
      summary: 'Start taking snapshots of a resource on a schedule',
      description: 'Every flag is required by the service. Frequencies: h24 h12 h6 h4 h3 h2 h1 (hours) and m30 m20 m15 m10 m6 m5 (minutes); which ones a plan allows is up to the service.',
      examples: [
        'backupctl resources activate 3 --frequency h24 --retention-hourly 0 --retention-daily 7 --retention-weekly 4 --retention-monthly 3 --timezone UTC --run-offset 2',
      ],
      method: 'PATCH',
      endpoint: '/snapshots/resources/{resource_id}/activate',
      params: [resourceId, ...scheduleParams],
      output: { kind: 'none', done: 'Activated snapshots of resource {resource_id}.' },
    },
    {
      path: ['resources', 'deactivate'],
      summary: 'Stop taking snapshots of a resource',
      examples: ['backupctl resources deactivate 3', 'backupctl resources deactivate 3 --yes'],
      method: 'PATCH',
      endpoint: '/snapshots/resources/{resource_id}/deactivate',
      params: [resourceId],
      confirm: 'Deactivate snapshots of resource {resource_id}?',
      output: { kind: 'none', done: 'Deactivated snapshots of resource {resource_id}.' },
    },
    {
      path: ['resources', 'clear'],
      summary: 'Remove all snapshots of a resource',
      examples: ['backupctl resources clear 3', 'backupctl resources clear 3 --yes'],
      method: 'DELETE',
      endpoint: '/snapshots/resources/{resource_id}/clear',
      params: [resourceId],
      confirm: 'Remove all snapshots of resource {resource_id}?',
      output: { kind: 'none', done: 'Removed all snapshots of resource {resource_id}.' },
    },
  ],
};
