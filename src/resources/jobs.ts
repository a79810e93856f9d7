// Backup jobs: what is backed up (recipe, config), where it runs (compute),
// where it goes (storage) and when (schedules); their backups; their
// encryption key, proxy, schedules and storage.
import * as z from 'zod/mini';
import type { ApiResponse, Column, Handler, Result } from '../contract/context.js';
import type { ModuleSpec, ParamSpec } from '../contract/spec.js';
import { UsageError } from '../errors.js';
import { snapshotScheduleCron } from '../util/snapshot-cron.js';
import { scheduleBasis } from '../util/schedule-basis.js';
import { retentionText } from '../backups/retention.js';
import { datetime, jobArg, loose, modifiedSince, record, serverSchema, setTagNames } from './common.js';
import { listField, recordOf } from '../http/shape.js';
import { startBackup, startBackupSpec } from './start-backup.js';
import { BACKUP_STATUSES } from '../backups/status.js';
import { backupSchema, looseBackup } from '../backups/record.js';
import { backupOfJob } from '../backups/ownership.js';


const TAGS = ['manual', 'hourly', 'daily', 'weekly', 'monthly'] as const;

const scheduleSchema = record({
  id: z.nullish(z.int()),
  schedule_name: z.nullish(z.string()),
  schedule_order: z.nullish(z.number()),
  status: z.nullish(z.string()),
  frequency: z.nullish(z.union([z.number(), z.string()])),
  frequency_mode: z.nullish(z.string()),
  cron: z.nullish(z.string()),
  timezone: z.nullish(z.string()),
  run_offset: z.nullish(z.number()),
  retention: z.nullish(z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())])),
});

const jobStorageSchema = record({
  id: z.int(),
  name: z.nullish(z.string()),
  provider: z.nullish(z.string()),
  region: z.nullish(z.string()),
  bucket: z.nullish(z.string()),
  endpoint: z.nullish(z.string()),
});

export const jobSchema = record({
  id: z.string(),
  name: z.nullish(z.string()),
  recipe: z.nullish(z.string()),
  compute_type: z.nullish(z.string()),
  compute: z.nullish(record({ type: z.nullish(z.string()), server_id: z.nullish(z.number()), region: z.nullish(z.string()), server: z.nullish(serverSchema) })),
  config: z.nullish(z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())])),
  last_ran_at: z.nullish(datetime),
  created_at: z.nullish(datetime),
  updated_at: z.nullish(datetime),
  schedule: z.nullish(z.array(scheduleSchema)),
  storage: z.nullish(z.array(jobStorageSchema)),
  last_backups: z.nullish(z.array(backupSchema)),
});

/** The 202 answer of POST /jobs/{id}/backups/start. */
const startAnswerSchema = record({
  status: z.nullish(z.string()),
  backup_id: z.nullish(z.string()),
  url: z.nullish(z.string()),
  config: z.nullish(z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())])),
  tags: z.nullish(z.record(z.string(), z.unknown())),
});
/** What `jobs backup start --json` prints: the answer, and with --wait the backup as it ended. */
const startedSchema = z.extend(startAnswerSchema, { backup: z.optional(backupSchema) });
/** The 200 answer of DELETE /jobs/{id}/backups. */
const backupsDeletedSchema = record({ message: z.nullish(z.string()) });

export const schemas = {
  job: jobSchema,
  backup: backupSchema,
  schedule: scheduleSchema,
  startAnswer: startAnswerSchema,
  started: startedSchema,
  backupsDeleted: backupsDeletedSchema,
};

export function computeText(j: { compute?: { type?: string | null; region?: string | null; server?: { name?: string | null; host?: string | null } | null } | null; compute_type?: string | null }): string {
  const type = j.compute?.type ?? j.compute_type ?? '';
  if (type === 'server') return `server ${j.compute?.server?.name ?? j.compute?.server?.host ?? ''}`.trim();
  if (type === 'ss_serverless') return `serverless ${j.compute?.region ?? ''}`.trim();
  if (type === 'ss_agent') return 'agent';
  return type;
}

/**
 * A schedule as every command reads it (src/util/schedule-basis.ts): its cron, or its frequency and
 * run_offset ("every 6h from 00:00") when it has one, whatever placeholder cron stands beside it.
 */
const oneScheduleText = (s: unknown): string | undefined => {
  if (!s || typeof s !== 'object') return undefined;
  const basis = scheduleBasis(s as Record<string, unknown>);
  return basis.source === 'none' ? undefined : basis.text;
};

/** One schedule fits a column; more than one shows the first and how many others (`jobs get` lists them all). */
const scheduleText = (schedules: unknown) => {
  if (!Array.isArray(schedules) || !schedules.length) return '';
  const text = oneScheduleText(schedules[0]);
  if (!text) return `${schedules.length} schedule${schedules.length > 1 ? 's' : ''}`;
  return schedules.length > 1 ? `${text} (+${schedules.length - 1})` : text;
};

export const columns: Record<string, Column[]> = {
  job: [
    { key: 'id', header: 'ID' },
    { key: 'name', header: 'Name' },
    { key: 'recipe', header: 'Recipe', dropEarly: true },
    { key: 'compute', header: 'Compute', get: computeText, dropEarly: true },
    { key: 'schedule', header: 'Schedule', get: (j) => scheduleText(j.schedule) },
    { key: 'storage', header: 'Storage', get: (j) => (Array.isArray(j.storage) ? j.storage.map((s: { name?: string; id?: number }) => s.name ?? s.id).join(', ') : ''), dropEarly: true },
    { key: 'last_ran_at', header: 'Last ran', format: 'time' },
    { key: 'created_at', header: 'Created', format: 'time', extra: true },
  ],
  schedule: [
    { key: 'id', header: 'ID' },
    { key: 'schedule_name', header: 'Name' },
    { key: 'cron', header: 'Schedule', get: (s) => oneScheduleText(s) ?? '' },
    { key: 'timezone', header: 'Time zone' },
    { key: 'retention', header: 'Retention', get: (s) => retentionText(s.retention) },
    { key: 'status', header: 'Status', format: 'status' },
  ],
  storage: [
    { key: 'id', header: 'ID' },
    { key: 'name', header: 'Name' },
    { key: 'provider', header: 'Provider' },
    { key: 'region', header: 'Region' },
    { key: 'bucket', header: 'Bucket' },
  ],
  backup: [
    { key: 'id', header: 'ID' },
    { key: 'status', header: 'Status', format: 'status' },
    { key: 'tags', header: 'Tags', get: (b) => setTagNames(b.tags) },
    { key: 'created_at', header: 'Created', format: 'time' },
    { key: 'started_at', header: 'Started', format: 'time', dropEarly: true },
    { key: 'completed_at', header: 'Completed', format: 'time' },
    { key: 'files', header: 'Files', get: (b) => (Array.isArray(b.files) ? b.files.length : ''), dropEarly: true },
  ],
  /** The files of one backup, below it in backups get and jobs backup get. */
  file: [
    { key: 'name', header: 'Name' },
    { key: 'size', header: 'Size', format: 'size' },
  ],
  /** The newest backups in `jobs get`, at a glance: `backups get <id>` shows one with its files. */
  lastBackup: [
    { key: 'id', header: 'ID' },
    { key: 'status', header: 'Status', format: 'status' },
    { key: 'tags', header: 'Tags', get: (b) => setTagNames(b.tags) },
    { key: 'created_at', header: 'Created', format: 'time' },
    { key: 'completed_at', header: 'Completed', format: 'time' },
  ],
};

const retentionFlags = (prefix = ''): ParamSpec[] =>
  (['hourly', 'daily', 'weekly', 'monthly'] as const).map((k) => ({
    name: `${prefix}retention_${k}`,
    flag: `retention-${k}`,
    in: prefix ? 'local' : 'body',
    type: 'integer',
    min: 0,
    placeholder: 'n',
    description: `Backups kept, ${k}`,
  }));
const storageFlag = (required: boolean): ParamSpec => ({
  name: 'storage',
  in: 'body',
  type: 'storage',
  required,
  placeholder: 'id[:priority]',
  description: 'Storage destination id or name, optionally with its priority (default: its position)',
  names: 'storage',
});
const EX = '3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c';
const BACKUP_EX = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

const backupArg = (description: string): ParamSpec => ({ name: 'backup_id', flag: 'backup', in: 'path', type: 'uuid', positional: true, required: true, complete: 'backups', description });
// The body fields createJob builds from local flags (--server/--serverless/--agent, --config, --cron ...), for docs/openapi.json.
const COMPUTE_BODY = {
  type: 'object',
  description: 'Where the job runs (backupctl: --server, --serverless or --agent)',
  properties: {
    type: { type: 'string', enum: ['server', 'ss_serverless', 'ss_agent'] },
    server_id: { type: 'integer', description: 'With type server' },
    region: { type: 'string', enum: ['EU', 'US'], description: 'With type ss_serverless' },
  },
  required: ['type'],
};
const CONFIG_BODY = {
  type: 'object',
  description: 'Config values of the recipe (backupctl: --config key=value)',
  additionalProperties: { type: ['string', 'number', 'boolean'] },
};
/** The schedule frequencies of the service (api-facts: hour mode h24 ... h1, minute mode m30 ... m5). */
export const SCHEDULE_FREQUENCIES = ['h24', 'h12', 'h6', 'h4', 'h3', 'h2', 'h1', 'm30', 'm20', 'm15', 'm10', 'm6', 'm5'] as const;

function scheduleFrequencyFlag(where: 'local' | 'body'): ParamSpec {
  return {
    name: 'frequency',
    in: where,
    type: 'enum',
    values: SCHEDULE_FREQUENCIES,
    placeholder: 'freq',
    description: 'Schedule: how often it runs (h = hours, m = minutes between runs), counted from --run-offset hours after 00:00 of its time zone',
  };
}

function runOffsetFlag(where: 'local' | 'body'): ParamSpec {
  return {
    name: 'run_offset',
    in: where,
    type: 'integer',
    min: 0,
    max: 23,
    placeholder: 'hours',
    description: 'Hours after 00:00 of the time zone the runs of --frequency start from (UTC, h6, 3: 03:00, 09:00, 15:00, 21:00)',
  };
}

const SCHEDULES_BODY = {
  type: 'array',
  description: 'Schedules (backupctl: --cron, --timezone, --retention-*)',
  items: {
    type: 'object',
    properties: {
      order: { type: 'integer' },
      cron: { type: 'string', description: '5-field cron expression' },
      frequency: { type: 'string', enum: ['h24', 'h12', 'h6', 'h4', 'h3', 'h2', 'h1', 'm30', 'm20', 'm15', 'm10', 'm6', 'm5'] },
      timezone: { type: 'string' },
      run_offset: { type: 'integer', description: 'Hours after 00:00 of the time zone' },
      ...Object.fromEntries(['hourly', 'daily', 'weekly', 'monthly'].map((k) => [`retention_${k}`, { type: 'integer', minimum: 0 }])),
    },
  },
};

export const module: ModuleSpec = {
  name: 'jobs',
  commands: [
    {
      path: ['jobs', 'list'],
      summary: 'List backup jobs',
      examples: ['backupctl jobs list', 'backupctl jobs list --host 203.0.113.10 --sort -last_ran_at --json'],
      method: 'GET',
      endpoint: '/jobs',
      params: [{ name: 'host', in: 'query', type: 'string', description: 'Only jobs on the server with this host' }, modifiedSince],
      list: { sort: ['id', 'name', 'last_ran_at', 'created_at', 'updated_at'], whole: true },
      output: { kind: 'list', schema: 'job', columns: 'job' },
    },
    {
      path: ['jobs', 'get'],
      summary: 'Show a job with its schedules, storage and last backups',
      examples: [`backupctl jobs get ${EX}`, `backupctl jobs get ${EX} --json`],
      method: 'GET',
      endpoint: '/jobs/{job_id}',
      params: [jobArg()],
      output: {
        kind: 'record',
        schema: 'job',
        columns: 'job',
        sections: [
          { title: 'Schedules', field: 'schedule', columns: 'schedule' },
          { title: 'Storage', field: 'storage', columns: 'storage' },
          // Newest first (issue 25 §6): --jq '.last_backups[0]' is the newest.
          { title: 'Last backups', field: 'last_backups', columns: 'lastBackup', newestFirst: true },
        ],
      },
    },
    {
      path: ['jobs', 'create'],
      summary: 'Create a backup job',
      description:
        'From flags for the common case (one compute, storage destinations, one schedule), or from --file with the ' +
        'whole JSON body; flags given beside --file override its fields.',
      examples: [
        'backupctl jobs create --name www --recipe-id 3 --server 12 --config root_path=/var/www --storage 4 --cron "0 2 * * *" --timezone Europe/Paris --retention-daily 7',
        'backupctl jobs create --file job.json --name www-copy',
        'backupctl jobs create --name db --recipe-id 1 --serverless EU --config database=shop --storage 1 --frequency h6 --run-offset 3',
      ],
      method: 'POST',
      endpoint: '/jobs',
      params: [
        { name: '.', flag: 'file', in: 'body', type: 'json-file', description: 'The whole JSON body (path or - for stdin)' },
        { name: 'name', in: 'body', type: 'string', description: 'Name of the job' },
        { name: 'recipe_id', in: 'body', type: 'integer', min: 1, placeholder: 'n', description: 'Recipe id' },
        { name: 'server', in: 'local', type: 'integer', min: 1, placeholder: 'server', description: 'Run on this server, by id or name (compute type server)', names: 'servers' },
        { name: 'serverless', in: 'local', type: 'enum', values: ['EU', 'US'], placeholder: 'region', description: 'Run on the service\'s workers in this region' },
        { name: 'agent', in: 'local', type: 'boolean', description: 'Run on a server connected by an agent' },
        { name: 'config', in: 'local', type: 'kv', placeholder: 'key=value', description: 'A config value of the recipe' },
        storageFlag(false),
        { name: 'cron', in: 'local', type: 'cron', placeholder: 'expr', description: 'Schedule: a 5-field cron expression, or @hourly, @daily, @weekly, @monthly, @yearly' },
        scheduleFrequencyFlag('local'),
        runOffsetFlag('local'),
        { name: 'timezone', in: 'local', type: 'timezone', placeholder: 'tz', description: 'Time zone of the schedule (default UTC)' },
        ...retentionFlags('schedule_'),
        { name: 'encryption_key_id', flag: 'encryption-key', in: 'body', type: 'string', placeholder: 'id', description: 'Encryption key id', names: 'encryption-keys' },
        { name: 'proxy_id', flag: 'proxy', in: 'body', type: 'integer', min: 1, placeholder: 'id', description: 'Proxy id' },
      ],
      body: { fields: { compute: COMPUTE_BODY, config: CONFIG_BODY, schedules: SCHEDULES_BODY } },
      checks: { atMostOne: ['server', 'serverless', 'agent'] },
      output: { kind: 'record', schema: 'job', columns: 'job' },
      handler: 'createJob',
      dryRunInHandler: true,
    },
    {
      path: ['jobs', 'update'],
      summary: 'Change the storage or schedules of a job',
      examples: [`backupctl jobs update ${EX} --storage 4:1 --storage 7:2`, `backupctl jobs update ${EX} --file changes.json`],
      method: 'PATCH',
      endpoint: '/jobs/{job_id}',
      params: [jobArg(), { name: '.', flag: 'file', in: 'body', type: 'json-file', description: 'JSON body with schedules and/or storage' }, storageFlag(false)],
      body: { fields: { schedules: SCHEDULES_BODY } },
      // Only storage and schedules change a job: a --file without them changes nothing.
      checks: { nothingToUpdate: { what: 'job {job_id}', fields: ['storage', 'schedules'], flags: ['--storage', '--file (with schedules or storage)'] } },
      output: { kind: 'none', done: 'Updated job {job_id}.' },
    },
    {
      path: ['jobs', 'delete'],
      summary: 'Delete a job',
      examples: [`backupctl jobs delete ${EX}`, `backupctl jobs delete ${EX} --yes`],
      method: 'DELETE',
      endpoint: '/jobs/{job_id}',
      params: [jobArg()],
      confirm: 'Delete job {job_id}?',
      output: { kind: 'none', done: 'Deleted job {job_id}.' },
    },
    startBackupSpec,
    {
      path: ['jobs', 'backup', 'list'],
      summary: 'List the backups of a job',
      description: 'Newest first (--sort -created_at) unless --sort says otherwise.',
      examples: [`backupctl jobs backup list ${EX}`, `backupctl jobs backup list ${EX} --status failed --started-since 7d --json`, `backupctl jobs backup list ${EX} --sort created_at`],
      method: 'GET',
      endpoint: '/jobs/{job_id}/backups',
      params: [
        jobArg(),
        { name: 'status', in: 'query', type: 'enum', values: BACKUP_STATUSES, description: 'Only backups with this status' },
        { name: 'tags', in: 'query', type: 'tags', tagValue: 1, values: TAGS, placeholder: 'tags', description: 'Only backups with these tags set' },
        { name: 'tags#without', flag: 'without-tags', in: 'query', type: 'tags', tagValue: 0, values: TAGS, placeholder: 'tags', description: 'Only backups with these tags unset' },
        { name: 'started_since', in: 'query', type: 'datetime', placeholder: 'when', description: 'Started since (ISO 8601 or an age: 24h, 7d)' },
        { name: 'completed_since', in: 'query', type: 'datetime', placeholder: 'when', description: 'Completed since (ISO 8601 or an age)' },
      ],
      // Newest first, as people read a history (issue 25): page 1 is today, not a month ago.
      list: { sort: ['id', 'name', 'created_at', 'started_at', 'completed_at'], defaultSort: '-created_at' },
      output: { kind: 'list', schema: 'backup', columns: 'backup' },
    },
    {
      path: ['jobs', 'backup', 'get'],
      summary: 'Show one backup of a job and its files (as backups get does)',
      examples: [`backupctl jobs backup get ${EX} ${BACKUP_EX}`, `backupctl jobs backup get "shop mysql" ${BACKUP_EX} --json`],
      method: 'GET',
      endpoint: '/backups/{backup_id}',
      params: [{ ...jobArg(), in: 'local' }, backupArg('Backup id')],
      output: { kind: 'record', schema: 'backup', columns: 'backup' },
      handler: 'getJobBackup',
    },
    {
      path: ['jobs', 'backup', 'delete'],
      summary: 'Delete one backup of a job, or ALL of them with --all',
      description: 'Give exactly one of <backup> and --all. One backup is deleted as backups delete does, once it is checked to be a backup of the job.',
      examples: [`backupctl jobs backup delete ${EX} ${BACKUP_EX}`, `backupctl jobs backup delete ${EX} --all`, `backupctl jobs backup delete ${EX} --all --yes`],
      method: 'DELETE',
      endpoint: '/jobs/{job_id}/backups',
      params: [
        jobArg(),
        { ...backupArg('Backup id (leave out with --all)'), in: 'local', required: false },
        { name: 'all', in: 'local', type: 'boolean', description: 'Delete every backup of the job' },
      ],
      confirm: 'Delete ALL backups of job {job_id}?',
      checks: {
        orAll: {
          param: 'backup_id',
          noun: 'backup',
          owner: '{job_id}',
          one: { endpoint: '/backups/{backup_id}', confirm: 'Delete backup {backup_id} of job {job_id}?', done: 'Deleted backup {backup_id} of job {job_id}.' },
        },
      },
      // The service's message on stderr in a table (--json prints the answer).
      output: { kind: 'object', schema: 'backupsDeleted', messageField: 'message', done: 'All backups of job {job_id} scheduled for deletion.' },
      // Only the ownership check of one backup (exit 5 for a backup of another job) before the generic delete.
      handler: 'deleteJobBackups',
      alsoCalls: ['GET /backups/{backup_id}', 'DELETE /backups/{backup_id}'],
    },
    {
      path: ['jobs', 'encryption-key', 'set'],
      summary: 'Encrypt the backups of a job with a key',
      examples: [`backupctl jobs encryption-key set ${EX} 5`],
      method: 'POST',
      endpoint: '/jobs/{job_id}/encryption-key',
      params: [jobArg(), { name: 'encryption_key_id', flag: 'key-id', in: 'body', type: 'integer', min: 1, positional: true, required: true, description: 'Encryption key id', names: 'encryption-keys' }],
      output: { kind: 'none', done: 'Encryption key {encryption_key_id} set on job {job_id}.' },
    },
    {
      path: ['jobs', 'encryption-key', 'remove'],
      summary: 'Stop encrypting the backups of a job',
      examples: [`backupctl jobs encryption-key remove ${EX} --yes`],
      method: 'DELETE',
      endpoint: '/jobs/{job_id}/encryption-key',
      params: [jobArg()],
      confirm: 'Remove the encryption key of job {job_id}?',
      output: { kind: 'none', done: 'Encryption key removed from job {job_id}.' },
    },
    {
      path: ['jobs', 'proxy', 'set'],
      summary: 'Send the backups of a job through a proxy',
      examples: [`backupctl jobs proxy set ${EX} 2`],
      method: 'POST',
      endpoint: '/jobs/{job_id}/proxy',
      params: [jobArg(), { name: 'proxy_id', flag: 'proxy-id', in: 'body', type: 'integer', min: 1, positional: true, required: true, description: 'Proxy id' }],
      output: { kind: 'none', done: 'Proxy {proxy_id} set on job {job_id}.' },
    },
    {
      path: ['jobs', 'proxy', 'remove'],
      summary: 'Stop using a proxy for a job',
      examples: [`backupctl jobs proxy remove ${EX} --yes`],
      method: 'DELETE',
      endpoint: '/jobs/{job_id}/proxy',
      params: [jobArg()],
      confirm: 'Remove the proxy of job {job_id}?',
      output: { kind: 'none', done: 'Proxy removed from job {job_id}.' },
    },
    {
      path: ['jobs', 'schedule', 'update'],
      summary: 'Change a schedule of a job',
      examples: [`backupctl jobs schedule update ${EX} 31 --cron "30 3 * * *" --timezone UTC --retention-daily 14`, `backupctl jobs schedule update ${EX} 31 --frequency h6 --run-offset 3`],
      method: 'PATCH',
      endpoint: '/jobs/{job_id}/schedules/{schedule_id}',
      params: [
        jobArg(),
        { name: 'schedule_id', flag: 'schedule', in: 'path', type: 'integer', min: 1, positional: true, required: true, description: 'Schedule id' },
        { name: 'timezone', in: 'body', type: 'timezone', placeholder: 'tz', description: 'Time zone' },
        runOffsetFlag('body'),
        { name: 'cron', in: 'body', type: 'cron', placeholder: 'expr', description: '5-field cron expression, or @hourly, @daily, @weekly, @monthly, @yearly' },
        scheduleFrequencyFlag('body'),
        ...retentionFlags(),
      ],
      checks: { nothingToUpdate: { what: 'schedule {schedule_id} of job {job_id}' } },
      output: { kind: 'none', done: 'Updated schedule {schedule_id} of job {job_id}.' },
    },
    {
      path: ['jobs', 'storage', 'set'],
      summary: 'Set the storage destinations of a job',
      examples: [`backupctl jobs storage set ${EX} --storage 4:1 --storage 7:2`],
      method: 'PATCH',
      endpoint: '/jobs/{job_id}/storage',
      params: [jobArg(), storageFlag(true)],
      output: { kind: 'none', done: 'Storage of job {job_id} set.' },
    },
  ],
};

/**
 * The body of jobs create from its flags and --file, refused when a part is missing or a schedule flag has no
 * schedule. Run twice: as the handler's check, before --server or --storage given by name is looked up (so
 * nothing is sent), then with the ids.
 */
async function jobBody(input: Parameters<Handler>[0], ctx: Parameters<Handler>[1]): Promise<Record<string, unknown>> {
  const v = input.values;
  const body: Record<string, unknown> = { ...((input.request?.body as Record<string, unknown> | undefined) ?? {}) };
  if (v.server !== undefined) body.compute = { type: 'server', server_id: v.server };
  else if (v.serverless !== undefined) body.compute = { type: 'ss_serverless', region: v.serverless };
  else if (v.agent === true) body.compute = { type: 'ss_agent' };
  if (v.config !== undefined) body.config = { ...((body.config as object | undefined) ?? {}), ...(v.config as object) };
  const retention = Object.fromEntries(
    (['hourly', 'daily', 'weekly', 'monthly'] as const)
      .filter((k) => v[`schedule_retention_${k}`] !== undefined)
      .map((k) => [`retention_${k}`, v[`schedule_retention_${k}`]]),
  );
  // Each schedule flag overrides its own field of the --file's schedule (its time zone,
  // run_offset and retention stay); without a file they describe the one schedule.
  const flagged = {
    ...(v.cron !== undefined ? { cron: v.cron } : {}),
    ...(v.frequency !== undefined ? { frequency: v.frequency } : {}),
    ...(v.run_offset !== undefined ? { run_offset: v.run_offset } : {}),
    ...(v.timezone !== undefined ? { timezone: v.timezone } : {}),
    ...retention,
  };
  // The published service numbers schedules from 0 and takes a frequency without a cron; the
  // interface document's from 1, with a cron (made from the frequency when only that is given).
  // The spelling as set or remembered here (the check sends nothing); createJob asks the client,
  // which probes once when it is not known yet (src/cli/dialect.ts), and respells it.
  const published = await ctx.settings().then((st) => st.providerNames === 'published', () => false);
  const fromFile = Array.isArray(body.schedules) ? (body.schedules as unknown[]) : undefined;
  if (Object.keys(flagged).length && fromFile?.length) {
    if (fromFile.length > 1) {
      throw new UsageError(`--file holds ${fromFile.length} schedules: --cron, --timezone and --retention-* change one schedule`, [
        '  Edit the schedules in the file, or give one schedule there.',
      ]);
    }
    body.schedules = [{ ...(fromFile[0] as object), ...flagged }];
  } else if (v.cron !== undefined || v.frequency !== undefined) {
    const made = v.frequency !== undefined && v.cron === undefined && !published ? snapshotScheduleCron(v.frequency, v.run_offset ?? 0) : undefined;
    body.schedules = [
      {
        order: published ? 0 : 1,
        ...(v.cron !== undefined ? { cron: v.cron } : made && 'cron' in made ? { cron: made.cron } : {}),
        ...(v.frequency !== undefined ? { frequency: v.frequency, run_offset: v.run_offset ?? 0 } : v.run_offset !== undefined ? { run_offset: v.run_offset } : {}),
        timezone: v.timezone ?? 'UTC',
        ...retention,
      },
    ];
  } else if (Object.keys(flagged).length) {
    throw new UsageError('--timezone, --run-offset and --retention-* describe the schedule of --cron or --frequency: give one of them too');
  }
  const missing = [
    ['name', '--name'],
    ['recipe_id', '--recipe-id'],
    ['compute', '--server, --serverless or --agent'],
    ['storage', '--storage'],
    ['schedules', '--cron or --frequency'],
  ].filter(([k]) => body[k!] === undefined);
  if (missing.length) {
    throw new UsageError(`missing ${missing.map(([, f]) => f).join('; ')}`, ['  Give them as flags, or in the body of --file.']);
  }
  return body;
}

const createJob: Handler = async (input, ctx) => {
  let body = await jobBody(input, ctx);
  if (ctx.globals.dryRun) return (await import('../cli/dry-run.js')).printDryRun(ctx, { method: 'POST', path: '/jobs', body });
  const client = await ctx.client();
  const v = input.values;
  if (v.frequency !== undefined && v.cron === undefined && !Array.isArray(input.request?.body && (input.request.body as Record<string, unknown>).schedules) && client.providerNames) {
    // A schedule made from --frequency: the published service takes it without a cron, the neutral one
    // with the cron made from it; in the spelling the service turned out to take (probed once when not
    // known). A --cron schedule is sent as set or remembered, at no extra request.
    const published = (await client.providerNames()) === 'published';
    const was = (await ctx.settings()).providerNames === 'published';
    if (published !== was) body = await jobBody(input, { ...ctx, settings: async () => ({ ...(await ctx.settings()), providerNames: published ? 'published' : 'neutral' }) });
  }
  const res = await client.request({ method: 'POST', path: '/jobs', body }, { signal: ctx.signal });
  const raw = recordOf(res);
  // The recipe id sent and the slug answered: learnt as apply learns them (src/jobs/recipe-ids.ts), so that
  // plan and export know this recipe_id. A state folder that cannot be written costs only this.
  const slug = (raw as { recipe?: unknown } | undefined)?.recipe;
  if (typeof body.recipe_id === 'number' && typeof slug === 'string' && slug) {
    const [{ learnRecipe }, { stateDir }] = await Promise.all([import('../jobs/recipe-ids.js'), import('../config/paths.js')]);
    const settings = await ctx.settings();
    await learnRecipe(stateDir(ctx.env), settings.baseUrl, body.recipe_id, slug, String(body.name ?? ''), new Date()).catch(() => {});
  }
  return { kind: 'record', record: loose(jobSchema, raw), columns: columns.job!, idField: 'id' };
};
createJob.check = async (input, ctx) => {
  await jobBody(input, ctx);
};

/** A backup with its files as a section below it: backups get and jobs backup get. */
export function backupResult(res: ApiResponse): Result {
  const raw = recordOf(res);
  const backup = looseBackup(raw);
  return { kind: 'record', record: backup, columns: columns.backup!, idField: 'id', sections: [{ title: 'Files', rows: listField(res, raw, 'files', 'backup'), columns: columns.file! }] };
}

const getJobBackup: Handler = async (input, ctx) => {
  const { res } = await backupOfJob(await ctx.client(), String(input.values.job_id), String(input.values.backup_id), ctx.signal);
  return backupResult(res);
};

/** One backup: checked to be the job's (exit 5 otherwise) before the delete; --all as the spec says. */
const deleteJobBackups: Handler = async (input, ctx) => {
  if (input.values.all !== true) await backupOfJob(await ctx.client(), String(input.values.job_id), String(input.values.backup_id), ctx.signal);
  const { runEndpoint } = await import('../cli/generic.js');
  return runEndpoint(input, ctx, async () => ({ module, schemas, columns }));
};

export const handlers: Record<string, Handler> = { createJob, getJobBackup, deleteJobBackups, startBackup };
