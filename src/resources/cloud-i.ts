// The cloud_i area: snapshot schedules of droplets and of block volumes. The
// two share every verb, field and answer, so one description here builds both
// modules; droplets.ts and volumes.ts name only their differences.
import * as z from 'zod/mini';
import type { Column, Handler } from '../contract/context.js';
import type { CommandSpec, ModuleSpec, ParamSpec } from '../contract/spec.js';
import { retentionText } from '../backups/retention.js';
import { datetime, modifiedSince, record, setTagNames, snapshotFilters, status } from './common.js';
import { MACHINE_SNAPSHOT_STATUSES } from '../backups/status.js';

export interface CloudIKind {
  /** Command group, module name and path segment under /cloud_i: `droplets`. */
  plural: 'droplets' | 'volumes';
  /** The word in messages and schema names: `droplet`. */
  singular: 'droplet' | 'volume';
  /** Droplet ids are integers, volume ids UUIDs. */
  idType: 'integer' | 'uuid';
  /** An id for the examples. */
  exampleId: string;
  /** Fields the list sorts by. */
  sort: readonly string[];
  /** Droplets have a host (IP address): a column and a list filter. */
  host: boolean;
  /** Droplets can copy snapshots to a secondary region. */
  secondaryRegion: boolean;
}

export interface CloudIModule {
  module: ModuleSpec;
  schemas: Record<string, unknown>;
  columns: Record<string, Column[]>;
  handlers: Record<string, Handler>;
}

export const MACHINE_STATUSES = ['destroyed', 'inactive', 'paused', 'running', 'active'] as const;
export const SNAPSHOT_STATUSES = MACHINE_SNAPSHOT_STATUSES;
const SNAPSHOT_SORT = ['id', 'name', 'size', 'started_at', 'completed_at'] as const;
const RETENTION_KEYS = ['hourly', 'daily', 'weekly', 'monthly'] as const;
const SNAPSHOT_TAGS = ['manual', ...RETENTION_KEYS] as const;
const RETENTION_FLAGS = RETENTION_KEYS.map((k) => `--retention-${k}`).join(', ');

// ---------------------------------------------------------------------------
// Schemas (lenient: unknown fields kept, odd values passed through)

export const machineSnapshotSchema = record({
  id: z.int(),
  name: z.nullish(z.string()),
  status: z.nullish(status(...SNAPSHOT_STATUSES)),
  // An integer number of bytes (api-facts); a human string is shown as sent.
  size: z.nullish(z.union([z.number(), z.string()])),
  tags: z.nullish(z.record(z.string(), z.unknown())),
  started_at: z.nullish(datetime),
  completed_at: z.nullish(datetime),
});

/** Counts per period; Laravel renders an empty map as `[]`, so an array is accepted too. */
const retentionSchema = z.union([
  record({
    hourly: z.nullish(z.number()),
    daily: z.nullish(z.number()),
    weekly: z.nullish(z.number()),
    monthly: z.nullish(z.number()),
  }),
  z.array(z.unknown()),
]);

function machineSchema(kind: CloudIKind) {
  return record({
    id: kind.idType === 'integer' ? z.int() : z.string(),
    name: z.nullish(z.string()),
    ...(kind.host ? { host: z.nullish(z.string()) } : {}),
    account: z.nullish(z.string()),
    estimated_cost: z.nullish(z.string()),
    status: z.nullish(status(...MACHINE_STATUSES)),
    size: z.nullish(z.union([z.string(), z.number()])),
    location: z.nullish(z.string()),
    timezone: z.nullish(z.string()),
    run_offset: z.nullish(z.union([z.number(), z.string()])),
    frequency: z.nullish(z.union([z.number(), z.string()])),
    retention: z.nullish(retentionSchema),
    ...(kind.secondaryRegion ? { secondary_region: z.nullish(z.string()) } : {}),
    created_at: z.nullish(datetime),
    snapshots: z.nullish(z.array(machineSnapshotSchema)),
  });
}

// ---------------------------------------------------------------------------
// Columns

/** `every 24h` from the hours between snapshots; anything else as sent. */
export function frequencyText(frequency: unknown): string | undefined {
  if (frequency === null || frequency === undefined || frequency === '') return undefined;
  const text = String(frequency);
  return /^\d+$/.test(text) ? `every ${text}h` : text;
}


/** Tables show `d7 w4 m3`; tsv the hourly, daily, weekly and monthly counts, one field each. */
export const retentionColumn: Column = { key: 'retention', header: 'Retention', show: (r) => retentionText(r.retention), flat: RETENTION_KEYS };

export const snapshotColumns: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name' },
  { key: 'status', header: 'Status', format: 'status' },
  { key: 'size', header: 'Size', format: 'size' },
  // The names of the tags set, so a script matching "manual" in TSV does not also hit `"manual":0`.
  { key: 'tags', header: 'Tags', format: 'tags', get: (s) => setTagNames(s.tags) },
  { key: 'started_at', header: 'Started', format: 'time' },
  { key: 'completed_at', header: 'Completed', format: 'time' },
];

function machineColumns(kind: CloudIKind): Column[] {
  const optional = (present: boolean, column: Column): Column[] => (present ? [column] : []);
  return [
    { key: 'id', header: 'ID' },
    { key: 'name', header: 'Name' },
    ...optional(kind.host, { key: 'host', header: 'Host' }),
    { key: 'status', header: 'Status', format: 'status' },
    // tsv: the hours, and the four retention counts.
    { key: 'frequency', header: 'Frequency', show: (m) => frequencyText(m.frequency) },
    retentionColumn,
    { key: 'timezone', header: 'Timezone' },
    { key: 'size', header: 'Size' },
    { key: 'location', header: 'Location' },
    { key: 'estimated_cost', header: 'Est. cost' },
    { key: 'created_at', header: 'Created', format: 'time' },
    { key: 'run_offset', header: 'Run offset', extra: true },
    ...optional(kind.secondaryRegion, { key: 'secondary_region', header: 'Secondary region', extra: true }),
    { key: 'account', header: 'Account', extra: true },
  ];
}

/**
 * The single-record view has room for the extra columns, and the answer
 * carries its snapshots. The secondary region stays extra: the interface lists
 * it only as an input, so most answers would show it blank.
 */
function detailColumns(list: Column[]): Column[] {
  const all: Column[] = list.map((c) => (c.key === 'secondary_region' ? c : { ...c, extra: false }));
  const created = all.findIndex((c) => c.key === 'created_at');
  all.splice(created, 0, {
    key: 'snapshots',
    header: 'Snapshots',
    get: (m) => (Array.isArray(m.snapshots) ? m.snapshots.length : undefined),
  });
  return all;
}

// ---------------------------------------------------------------------------
// Commands

export function cloudIModule(kind: CloudIKind): CloudIModule {
  const { plural, singular } = kind;
  const base = `/cloud_i/${plural}`;
  const idName = `${singular}_id`;
  const one = `${base}/{${idName}}`;
  const cmd = (...words: string[]) => `backupctl ${plural} ${words.join(' ')}`;
  const id = kind.exampleId;
  const schemaKey = singular;
  const detailKey = `${singular}Detail`;

  const idParam = (flag: string): ParamSpec => ({
    name: idName,
    flag,
    in: 'path',
    type: kind.idType,
    min: kind.idType === 'integer' ? 1 : undefined,
    positional: true,
    required: true,
    description: `${capitalised(singular)} id or name`,
    names: plural,
  });
  const machineId = idParam('id');
  const ownerId = idParam(singular);

  const schedule = (required: boolean): ParamSpec[] => [
    {
      name: 'frequency',
      in: 'body',
      type: 'integer',
      min: 1,
      required,
      placeholder: 'hours',
      description: 'Hours between snapshots',
    },
    ...RETENTION_KEYS.map(
      (period): ParamSpec => ({
        name: `retention.${period}`,
        in: 'body',
        type: 'integer',
        min: 0,
        placeholder: 'n',
        description: `${capitalised(period)} snapshots to keep`,
      }),
    ),
    { name: 'timezone', in: 'body', type: 'timezone', required, placeholder: 'tz', description: 'Timezone of the schedule, e.g. Europe/Amsterdam' },
    {
      name: 'run_offset',
      in: 'body',
      type: 'integer',
      min: 0,
      max: 23,
      placeholder: 'hours',
      description: 'Hours after 00:00 (in the timezone) when the schedule starts',
    },
    ...(kind.secondaryRegion
      ? [
          {
            name: 'secondary_region',
            in: 'body',
            type: 'string',
            nullable: true,
            placeholder: 'slug',
            description: 'Region that also receives each snapshot, e.g. ams3',
          } satisfies ParamSpec,
        ]
      : []),
  ];

  const commands: CommandSpec[] = [
    {
      path: [plural, 'list'],
      summary: `List ${plural} and their snapshot schedules`,
      examples: [
        cmd('list'),
        cmd('list', '--status', 'active', '--sort', '-created_at'),
        ...(kind.host ? [cmd('list', '--host', '164.90.180.12', '-q')] : [cmd('list', '--name', 'pgdata', '-q')]),
      ],
      method: 'GET',
      endpoint: base,
      params: [
        { name: 'name', in: 'query', type: 'string', description: `Only ${plural} whose name is like this` },
        ...(kind.host ? [{ name: 'host', in: 'query', type: 'string', description: 'Only the droplet with this IP address' } satisfies ParamSpec] : []),
        { name: 'status', in: 'query', type: 'enum', values: MACHINE_STATUSES, description: `Only ${plural} in this state` },
        modifiedSince,
      ],
      list: { sort: kind.sort, whole: true },
      output: { kind: 'list', schema: schemaKey, columns: schemaKey },
    },
    {
      path: [plural, 'get'],
      summary: `Show a ${singular}, its schedule and its snapshots`,
      examples: [cmd('get', id), cmd('get', id, '--json')],
      method: 'GET',
      endpoint: one,
      params: [machineId],
      output: { kind: 'record', schema: schemaKey, columns: detailKey, sections: [{ title: 'Snapshots', field: 'snapshots', columns: 'snapshot' }] },
    },
    {
      path: [plural, 'update'],
      summary: `Change the snapshot schedule of a ${singular}`,
      description:
        'Only the values given change. Retention counts are sent together as one object holding the counts given.' +
        (kind.secondaryRegion ? ' --no-secondary-region removes the secondary region.' : ''),
      examples: [
        cmd('update', id, '--frequency', '12', '--retention-daily', '7', '--retention-weekly', '4'),
        cmd('update', id, '--timezone', 'Europe/Amsterdam', '--run-offset', '2'),
        ...(kind.secondaryRegion ? [cmd('update', id, '--no-secondary-region')] : []),
      ],
      method: 'PATCH',
      endpoint: one,
      params: [machineId, ...schedule(false)],
      checks: {
        nothingToUpdate: {
          what: `${singular} {${idName}}`,
          flags: ['--frequency', RETENTION_FLAGS, '--timezone', '--run-offset', ...(kind.secondaryRegion ? ['--secondary-region', '--no-secondary-region'] : [])],
        },
      },
      output: { kind: 'none', done: `Updated the schedule of ${singular} {${idName}}.` },
    },
    {
      path: [plural, 'activate'],
      summary: `Start taking snapshots of a ${singular} on a schedule`,
      description: `--frequency, --timezone and at least one of ${RETENTION_FLAGS} are required.`,
      examples: [
        cmd('activate', id, '--frequency', '24', '--retention-daily', '7', '--retention-weekly', '4', '--timezone', 'UTC'),
        cmd('activate', id, '--frequency', '6', '--retention-hourly', '4', '--timezone', 'Europe/Paris', '--run-offset', '1'),
      ],
      method: 'PATCH',
      endpoint: `${one}/activate`,
      params: [machineId, ...schedule(true)],
      // The interface requires a retention on activate, which no single flag carries.
      body: { required: ['retention'] },
      checks: {
        atLeastOne: {
          params: RETENTION_KEYS.map((k) => `retention.${k}`),
          message: `missing a retention count: give at least one of ${RETENTION_FLAGS}`,
          hint: `  e.g. ${cmd('activate', `{${idName}}`, '--frequency', '24', '--retention-daily', '7', '--timezone', 'UTC')}`,
        },
      },
      output: { kind: 'none', done: `Activated snapshots of ${singular} {${idName}}.` },
    },
    {
      path: [plural, 'pause'],
      summary: `Pause the snapshot schedule of a ${singular}`,
      examples: [cmd('pause', id)],
      method: 'PATCH',
      endpoint: `${one}/pause`,
      params: [machineId],
      output: { kind: 'none', done: `Paused snapshots of ${singular} {${idName}}.` },
    },
    {
      path: [plural, 'resume'],
      summary: `Resume the paused snapshot schedule of a ${singular}`,
      examples: [cmd('resume', id)],
      method: 'PATCH',
      endpoint: `${one}/resume`,
      params: [machineId],
      output: { kind: 'none', done: `Resumed snapshots of ${singular} {${idName}}.` },
    },
    {
      path: [plural, 'deactivate'],
      summary: `Stop taking snapshots of a ${singular}`,
      examples: [cmd('deactivate', id), cmd('deactivate', id, '--yes')],
      method: 'PATCH',
      endpoint: `${one}/deactivate`,
      params: [machineId],
      confirm: `Deactivate snapshots of ${singular} {${idName}}?`,
      output: { kind: 'none', done: `Deactivated snapshots of ${singular} {${idName}}.` },
    },
    {
      path: [plural, 'snapshot', 'list'],
      summary: `List the snapshots of a ${singular}`,
      examples: [
        cmd('snapshot', 'list', id),
        cmd('snapshot', 'list', id, '--status', 'completed', '--sort', '-started_at'),
        cmd('snapshot', 'list', id, '--tags', 'manual', '--started-since', '7d', '-q'),
      ],
      method: 'GET',
      endpoint: `${one}/snapshots`,
      params: [
        ownerId,
        ...snapshotFilters({ statuses: SNAPSHOT_STATUSES, tags: SNAPSHOT_TAGS }),
      ],
      list: { sort: SNAPSHOT_SORT },
      output: { kind: 'list', schema: 'snapshot', columns: 'snapshot' },
    },
    {
      path: [plural, 'snapshot', 'create'],
      summary: `Request a manual snapshot of a ${singular}`,
      description: `The service answers at once; the snapshot shows in \`${plural} snapshot list\` while it runs.`,
      examples: [cmd('snapshot', 'create', id), cmd('snapshot', 'create', id, '-q')],
      method: 'POST',
      endpoint: `${one}/snapshots/manual`,
      params: [ownerId],
      output: { kind: 'none', done: `Manual snapshot of ${singular} {${idName}} requested.` },
    },
    {
      path: [plural, 'snapshot', 'delete'],
      summary: `Delete one snapshot of a ${singular}, or all of them with --all`,
      description: 'Give exactly one of <snapshot> and --all.',
      examples: [cmd('snapshot', 'delete', id, '1024'), cmd('snapshot', 'delete', id, '--all', '--yes')],
      method: 'DELETE',
      endpoint: `${one}/snapshots/{snapshot_id}`,
      params: [
        ownerId,
        {
          name: 'snapshot_id',
          flag: 'snapshot',
          in: 'path',
          type: 'integer',
          min: 1,
          positional: true,
          complete: `${plural}-snapshots`,
          description: 'Snapshot id (leave out with --all)',
        },
        { name: 'all', in: 'local', type: 'boolean', description: `Delete every snapshot of the ${singular}` },
      ],
      confirm: `Delete snapshot {snapshot_id} of ${singular} {${idName}}?`,
      checks: {
        orAll: {
          param: 'snapshot_id',
          noun: 'snapshot',
          owner: `{${idName}}`,
          all: { endpoint: `${one}/snapshots`, confirm: `Delete ALL snapshots of ${singular} {${idName}}?`, done: `Deleted all snapshots of ${singular} {${idName}}.` },
        },
      },
      output: { kind: 'none', done: `Deleted snapshot {snapshot_id} of ${singular} {${idName}}.` },
      alsoCalls: [`DELETE ${one}/snapshots`],
    },
  ];

  const module: ModuleSpec = { name: plural, commands };
  const schemas = { [schemaKey]: machineSchema(kind), snapshot: machineSnapshotSchema };
  const listColumns = machineColumns(kind);
  const columns: Record<string, Column[]> = { [schemaKey]: listColumns, [detailKey]: detailColumns(listColumns), snapshot: snapshotColumns };
  return { module, schemas, columns, handlers: {} };
}

function capitalised(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
