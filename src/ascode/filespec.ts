// The backups file (`backupctl export | plan | apply`), described once: the
// JSON Schema that editors read (`backupctl schema file`,
// docs/backups.schema.json) and the checks that report each problem with its
// line and column are both made from this description.

import { STORAGE_PROVIDERS } from '../resources/storage.js';
import { providerAliases } from '../util/providers.js';

export type Check = 'cron' | 'timezone' | 'duration' | 'sql' | 'expect';

export type FieldNode =
  /** `aliases`: other spellings of an enum value, case-insensitively (`aws` for `cloud_a`), read as the value. */
  | { t: 'string'; enum?: readonly string[]; aliases?: Readonly<Record<string, string>>; check?: Check; secret?: boolean; description?: string }
  | { t: 'integer'; min?: number; max?: number; description?: string }
  | { t: 'boolean'; description?: string }
  /** A config value: a string, number or boolean. */
  | { t: 'scalar'; secret?: boolean; description?: string }
  | { t: 'array'; items: FieldNode; description?: string }
  | { t: 'object'; fields: Record<string, Field>; oneOf?: readonly string[]; description?: string }
  /** A map keyed by name; each value is `values`. */
  | { t: 'map'; values: FieldNode; description?: string };

export interface Field {
  node: FieldNode;
  required?: boolean;
}

const f = (node: FieldNode, required = false): Field => ({ node, required });

/** A secret is never written to the file: it is `${env:NAME}` or `${file:path}`, read when needed. */
export const SECRET_REFERENCE = /^\$\{(env|file):([^}]+)\}$/;

const retention: FieldNode = {
  t: 'object',
  description: 'How many snapshots or backups are kept; a count left out is 0',
  fields: {
    hourly: f({ t: 'integer', min: 0 }),
    daily: f({ t: 'integer', min: 0 }),
    weekly: f({ t: 'integer', min: 0 }),
    monthly: f({ t: 'integer', min: 0 }),
  },
};

const timezone: FieldNode = { t: 'string', check: 'timezone', description: 'IANA time zone, e.g. Europe/Paris' };

export const STORAGE_FIELDS: Record<string, Field> = {
  provider: f({ t: 'string', enum: STORAGE_PROVIDERS, aliases: providerAliases(STORAGE_PROVIDERS), description: 'Storage provider: the token or the published name, as `storage add --provider` takes' }, true),
  region: f({ t: 'string', description: 'Region; every provider but custom needs one' }),
  bucket: f({ t: 'string' }),
  endpoint: f({ t: 'string', description: 'Endpoint URL; custom providers only' }),
  key: f({ t: 'string', secret: true, description: 'Access key id: ${env:NAME} or ${file:path}; sent when the storage is created' }),
  secret: f({ t: 'string', secret: true, description: 'Secret access key: ${env:NAME} or ${file:path}; sent when the storage is created' }),
};

export const SCHEDULE_FIELDS: Record<string, Field> = {
  cron: f({ t: 'string', check: 'cron', description: '5-field cron expression, in the schedule\'s time zone' }, true),
  timezone: f(timezone),
  run_offset: f({ t: 'integer', min: 0, description: 'Offset after the scheduled time' }),
  retention: f(retention),
};

export const JOB_FIELDS: Record<string, Field> = {
  recipe: f({ t: 'string', description: 'Recipe slug, as the service shows it (files, mysql, ...)' }, true),
  recipe_id: f({ t: 'integer', min: 1, description: 'Recipe id: needed only to create the job (the service does not show it)' }),
  compute: f(
    {
      t: 'object',
      description: 'Where the job runs: exactly one of server, serverless, agent',
      oneOf: ['server', 'serverless', 'agent'],
      fields: {
        server: f({ t: 'string', description: 'A server, by name (or id)' }),
        serverless: f({ t: 'string', enum: ['EU', 'US'] }),
        agent: f({ t: 'boolean' }),
      },
    },
    true,
  ),
  config: f({ t: 'map', values: { t: 'scalar', secret: true }, description: 'Config values of the recipe; a secret one as ${env:NAME} or ${file:path}' }),
  storage: f(
    {
      t: 'array',
      items: { t: 'object', fields: { storage: f({ t: 'string', description: 'Storage, by name' }, true), priority: f({ t: 'integer', min: 0 }) } },
    },
    true,
  ),
  schedules: f({ t: 'array', items: { t: 'object', fields: SCHEDULE_FIELDS } }, true),
  encryption_key: f({ t: 'string', description: 'Encryption key id (the interface lists no keys to name them by); set when the job is created' }),
  proxy: f({ t: 'integer', min: 1, description: 'Proxy id; set when the job is created' }),
};

export const MACHINE_STATES = ['active', 'paused', 'inactive'] as const;

export const MACHINE_FIELDS: Record<string, Field> = {
  status: f({ t: 'string', enum: MACHINE_STATES, description: 'active (snapshots taken), paused, or inactive (no schedule)' }),
  frequency: f({ t: 'integer', min: 1, description: 'Hours between snapshots' }),
  timezone: f(timezone),
  run_offset: f({ t: 'integer', min: 0, max: 23, description: 'Hours from 00:00 of the time zone' }),
  retention: f(retention),
  secondary_region: f({ t: 'string', description: 'Droplets: the secondary region, sent when the schedule is activated' }),
};

export const RESOURCE_FIELDS: Record<string, Field> = {
  activated: f({ t: 'boolean', description: 'Whether the resource takes snapshots' }, true),
  frequency: f({ t: 'string', description: 'Frequency value (h24, h12, ... m5); needed to activate' }),
  timezone: f(timezone),
  run_offset: f({ t: 'integer', min: 0 }),
  retention: f(retention),
};

/** One validation of a restored backup (docs/assurance.md): exactly one of sql (with expect), table_exists, min_rows. */
export const VALIDATION_FIELDS: Record<string, Field> = {
  sql: f({ t: 'string', check: 'sql', description: 'One SELECT (or WITH ... SELECT) statement, run by the restore\'s own confined login; its first column of its first row is compared' }),
  expect: f({ t: 'string', check: 'expect', description: 'What the sql must give: a value ("42", "t"), or a comparison ("> 0", ">= 1000", "!= 0")' }),
  table_exists: f({ t: 'string', description: 'A table that must be in the restored database (schema.table or table)' }),
  min_rows: f({ t: 'object', fields: { table: f({ t: 'string' }, true), rows: f({ t: 'integer', min: 0 }, true) }, description: 'A table that must hold at least this many rows' }),
};

/** An assurance plan (docs/assurance.md): what must be proven of a job's backups, how often. Local policy: nothing is sent. */
export const ASSURANCE_FIELDS: Record<string, Field> = {
  verify_every: f({ t: 'string', check: 'duration', description: 'A verify of the chosen backup at least this often (e.g. 1d)' }),
  restore_test_every: f({ t: 'string', check: 'duration', description: 'A restore test of the chosen backup at least this often (e.g. 7d)' }),
  backup: f({ t: 'string', enum: ['latest', 'random'], description: 'Which backup is tested: the newest completed (latest, the default) or one at random within `within`' }),
  within: f({ t: 'string', check: 'duration', description: 'For backup: random, how far back (default 30d)' }),
  engine: f({ t: 'string', description: 'restore-test --engine (local, pglite, mongo-parse, ...), or a postgres:// / mysql:// --into URL by ${env:NAME}' }),
  rto: f({ t: 'string', check: 'duration', description: 'The restore-time budget: a restore test slower than this does not meet the plan' }),
  validations: f({ t: 'array', items: { t: 'object', fields: VALIDATION_FIELDS, oneOf: ['sql', 'table_exists', 'min_rows'] }, description: 'Checks of the restored data' }),
};

export interface ValidationEntry {
  sql?: string;
  expect?: string;
  table_exists?: string;
  min_rows?: { table: string; rows: number };
}
export interface AssuranceEntry {
  verify_every?: string;
  restore_test_every?: string;
  backup?: 'latest' | 'random';
  within?: string;
  engine?: string;
  rto?: string;
  validations?: ValidationEntry[];
}

export const SECTIONS = ['storage', 'jobs', 'droplets', 'volumes', 'resources'] as const;
export type Section = (typeof SECTIONS)[number];

export const FILE_NODE: FieldNode = {
  t: 'object',
  fields: {
    version: f({ t: 'integer', min: 1, max: 1, description: 'Version of this file format: 1' }, true),
    storage: f({ t: 'map', values: { t: 'object', fields: STORAGE_FIELDS }, description: 'Storage destinations, by name' }),
    jobs: f({ t: 'map', values: { t: 'object', fields: JOB_FIELDS }, description: 'Backup jobs, by name' }),
    droplets: f({ t: 'map', values: { t: 'object', fields: MACHINE_FIELDS }, description: 'Snapshot schedules of droplets, by name' }),
    volumes: f({ t: 'map', values: { t: 'object', fields: MACHINE_FIELDS }, description: 'Snapshot schedules of volumes, by name' }),
    resources: f({ t: 'map', values: { t: 'object', fields: RESOURCE_FIELDS }, description: 'Snapshot resources, by id (they have no name)' }),
    assurance: f({
      t: 'map',
      values: { t: 'object', fields: ASSURANCE_FIELDS },
      description: 'Assurance plans (docs/assurance.md), by job name or a glob of names ("* postgres", "*"): local policy for assure run, nothing is sent',
    }),
  },
};

// ---------------------------------------------------------------------------
// The typed file, once checked.

export interface Retention {
  hourly?: number;
  daily?: number;
  weekly?: number;
  monthly?: number;
}
export interface StorageEntry {
  provider: string;
  region?: string;
  bucket?: string;
  endpoint?: string;
  key?: string;
  secret?: string;
}
export interface ScheduleEntry {
  cron: string;
  timezone?: string;
  run_offset?: number;
  retention?: Retention;
}
export interface JobEntry {
  recipe: string;
  recipe_id?: number;
  compute: { server?: string; serverless?: 'EU' | 'US'; agent?: boolean };
  config?: Record<string, string | number | boolean>;
  storage: Array<{ storage: string; priority?: number }>;
  schedules: ScheduleEntry[];
  encryption_key?: string;
  proxy?: number;
}
export interface MachineEntry {
  status?: (typeof MACHINE_STATES)[number];
  frequency?: number;
  timezone?: string;
  run_offset?: number;
  retention?: Retention;
  secondary_region?: string;
}
export interface ResourceEntry {
  activated: boolean;
  frequency?: string;
  timezone?: string;
  run_offset?: number;
  retention?: Retention;
}
export interface BackupsFile {
  version: 1;
  storage?: Record<string, StorageEntry>;
  jobs?: Record<string, JobEntry>;
  droplets?: Record<string, MachineEntry>;
  volumes?: Record<string, MachineEntry>;
  resources?: Record<string, ResourceEntry>;
  assurance?: Record<string, AssuranceEntry>;
}

// ---------------------------------------------------------------------------
// JSON Schema

type JsonSchema = Record<string, unknown>;

export const SCHEMA_ID = 'https://backupctl.dev/schemas/backups.schema.json';

function toJsonSchema(node: FieldNode): JsonSchema {
  const d = node.description ? { description: node.description } : {};
  switch (node.t) {
    case 'string': {
      const secret = node.secret ? { pattern: SECRET_REFERENCE.source } : {};
      return { type: 'string', ...(node.enum ? { enum: [...node.enum, ...Object.keys(node.aliases ?? {})] } : {}), ...secret, ...d };
    }
    case 'integer':
      return { type: 'integer', ...(node.min !== undefined ? { minimum: node.min } : {}), ...(node.max !== undefined ? { maximum: node.max } : {}), ...d };
    case 'boolean':
      return { type: 'boolean', ...d };
    case 'scalar':
      return { type: ['string', 'number', 'boolean'], ...d };
    case 'array':
      return { type: 'array', items: toJsonSchema(node.items), ...d };
    case 'map':
      return { type: 'object', additionalProperties: toJsonSchema(node.values), ...d };
    case 'object': {
      const required = Object.entries(node.fields).filter(([, v]) => v.required).map(([k]) => k);
      const out: JsonSchema = {
        type: 'object',
        properties: Object.fromEntries(Object.entries(node.fields).map(([k, v]) => [k, toJsonSchema(v.node)])),
        additionalProperties: false,
        ...(required.length ? { required } : {}),
        ...d,
      };
      // `properties` names the key again so ajv's strict mode (strictRequired) accepts the branch.
      if (node.oneOf) out.oneOf = node.oneOf.map((k) => ({ properties: { [k]: true }, required: [k] }));
      return out;
    }
  }
}

/** The JSON Schema of the backups file (draft 2020-12). */
export function backupsFileSchema(): JsonSchema {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: SCHEMA_ID,
    title: 'backupctl backups file (export, plan, apply)',
    ...toJsonSchema(FILE_NODE),
  };
}
