// The emulator's state: one table per kind of record, held in memory.
// Records are kept in the service's internal form (times as epoch ms, tags as
// booleans); src/emulator/render.ts turns them into the shapes sent on the wire.
import type { ArchiveKind, FileFault } from './archives.js';
import { notFound } from './reply.js';

export const TAG_NAMES = ['manual', 'hourly', 'daily', 'weekly', 'monthly'] as const;
export type TagName = (typeof TAG_NAMES)[number];
export type Tags = Record<TagName, boolean>;

export function makeTags(set: readonly TagName[] = []): Tags {
  return {
    manual: set.includes('manual'),
    hourly: set.includes('hourly'),
    daily: set.includes('daily'),
    weekly: set.includes('weekly'),
    monthly: set.includes('monthly'),
  };
}

export const ACCOUNT_PROVIDERS = [
  'cloud_a',
  'cloud_b',
  'cloud_c',
  'cloud_d',
  'cloud_e',
  'cloud_f',
  'cloud_g',
  'cloud_h',
] as const;
export type AccountProvider = (typeof ACCOUNT_PROVIDERS)[number];

export const STORAGE_PROVIDERS = [
  'cloud_i',
  'cloud_a',
  'cloud_j',
  'cloud_k',
  'cloud_l',
  'cloud_f',
  'cloud_m',
  'cloud_g',
  'cloud_c',
  'custom',
] as const;
export type StorageProvider = (typeof STORAGE_PROVIDERS)[number];

/** Schedule frequencies of the real service: hour mode, then minute mode. */
export const FREQUENCIES = ['h24', 'h12', 'h6', 'h4', 'h3', 'h2', 'h1', 'm30', 'm20', 'm15', 'm10', 'm6', 'm5'] as const;

export interface SshKeyRecord {
  id: number;
  name: string;
  public_key: string;
  created_at: number;
  updated_at: number;
  last_used: number | null;
}

export interface ServerRecord {
  id: number;
  name: string;
  host: string;
  user: string;
  port: number;
  key_id: number;
  status: string;
  created_at: number;
  updated_at: number;
  last_used: number | null;
}

export interface AccountRecord {
  id: number;
  name: string;
  provider: AccountProvider;
  credentials: Record<string, string>;
  expires_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ResourceSchedule {
  frequency: string;
  retention: { hourly: number; daily: number; weekly: number; monthly: number };
  timezone: string;
  run_offset: number;
}

export interface ResourceRecord {
  id: number;
  account_id: number;
  type: 'disk' | 'server';
  backups_activated: boolean;
  last_known_ip: string;
  last_synced_at: number;
  updated_at: number;
  schedule: ResourceSchedule | null;
}

export interface SnapshotRecord {
  id: number;
  name: string;
  /** Filter values use in_progress; records carry in-progress and delete-request too. */
  status: string;
  fail_reason: string | null;
  size: number;
  tags: Tags;
  started_at: number;
  completed_at: number | null;
  account_id: number;
  resource_id: number;
}

export interface StorageRecord {
  id: number;
  name: string;
  provider: StorageProvider;
  region: string | null;
  bucket: string;
  endpoint: string | null;
  key: string | null;
  secret: string | null;
  estimated_size: number;
  priority: number;
  created_at: number;
  updated_at: number;
}

export type MachineKind = 'droplet' | 'volume';

export interface Retention {
  hourly?: number;
  daily: number;
  weekly: number;
  monthly: number;
}

/** A droplet (integer id, host) or a volume (UUID id, no host) of the cloud_i area. */
export interface MachineRecord {
  kind: MachineKind;
  id: number | string;
  name: string;
  host: string | null;
  account: string;
  estimated_cost: string | null;
  status: string;
  size: string;
  location: string;
  timezone: string;
  run_offset: number;
  frequency: number;
  retention: Retention;
  secondary_region: string | null;
  created_at: number;
  updated_at: number;
}

export interface MachineSnapshotRecord {
  id: number;
  machine_kind: MachineKind;
  machine_id: number | string;
  name: string;
  status: string;
  size: number;
  tags: Tags;
  started_at: number;
  completed_at: number | null;
}

export type ComputeType = 'server' | 'ss_serverless' | 'ss_agent';

export interface JobCompute {
  type: ComputeType;
  server_id?: number;
  region?: 'EU' | 'US';
}

export interface ScheduleRecord {
  id: number;
  order: number;
  cron: string;
  timezone: string;
  run_offset: number;
  frequency: number;
  frequency_mode: 'minute' | 'hour';
  retention: { hourly: number; daily: number; weekly: number; monthly: number };
  status: string;
}

export interface JobRecord {
  id: string;
  name: string;
  recipe_id: number;
  compute: JobCompute;
  /** Config values as given, by key; rendered with the recipe's labels and types. */
  config: Record<string, string | number | boolean>;
  schedules: ScheduleRecord[];
  storage: { storage_id: number; priority: number }[];
  encryption_key_id: number | null;
  proxy_id: number | null;
  last_ran_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface FileRecord {
  id: string;
  name: string;
  /** The length the record states; the bytes served differ only under a planted fault. */
  size: number;
  /** Signed URL, made once (see files.ts). */
  url?: string;
  /** What the files server serves for it (archives.ts); without it, a line of text repeated. */
  content?: FileContent;
}

/** A real archive behind a file record, and the damage planted in it, if any. */
export interface FileContent {
  /** The archive made for it; absent when `fixture` gives the bytes (a SQLite file is no archive the emulator makes). */
  kind?: ArchiveKind;
  fault?: FileFault;
  /** Made while sent, never held in memory (the benchmark's big .tar.gz). */
  streamed?: boolean;
  /** The bytes exactly, as text (a fixture's checksum list naming its sibling's real hash). */
  text?: string;
  /** The bytes exactly, from a file of src/emulator/fixtures/restore (a real dump, or one of restore-test's faults). */
  fixture?: string;
  /** The archive of `kind`, sealed as the service seals an encrypted job's backups (demo-key.ts): its record's encryption_key opens it. */
  sealed?: import('./demo-key.js').SealedSecret;
  /** The bytes of one night of the bad-night jobs (bad-night.ts; `emulator --bad-night`). */
  night?: { job: import('./bad-night.js').BadNightJob; index: number };
}

export interface BackupRecord {
  id: string;
  job_id: string;
  status: string;
  tags: Tags;
  s3_directory: string;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  monitoring_available: boolean;
  encryption_key: string | null;
  files: FileRecord[];
}

export interface RestoreRecord {
  id: string;
  job_id: string;
  backup_id: string;
  server_id: number;
  status: string;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  files: FileRecord[];
}

export interface EncryptionKeyRecord {
  id: number;
  name: string;
  public_key: string | null;
  created_at: number;
}

export interface ProxyRecord {
  id: number;
  name: string;
}

type Id = number | string;

/**
 * Rows in creation order with an index by id. Derived orderings (filtered,
 * sorted) are cached by key and dropped on any change, so repeated list pages
 * cost a slice rather than a sort of the whole table. Every change to a row
 * must go through insert, patch, remove or changed().
 */
export class Table<T extends { id: Id }> {
  private readonly list: T[] = [];
  private readonly index = new Map<Id, T>();
  private readonly views = new Map<string, readonly T[]>();
  private nextNumericId = 1;

  constructor(
    /** Laravel model name, for 404 messages. */
    readonly model: string,
    private readonly idKind: 'integer' | 'uuid',
    /** Told of every change, so caches that span tables can drop what they hold. */
    private readonly onChange: () => void = () => {},
  ) {}

  get rows(): readonly T[] {
    return this.list;
  }

  get size(): number {
    return this.list.length;
  }

  nextId(): number {
    return this.nextNumericId++;
  }

  insert(row: T): T {
    this.list.push(row);
    this.index.set(row.id, row);
    if (typeof row.id === 'number' && row.id >= this.nextNumericId) this.nextNumericId = row.id + 1;
    this.changed();
    return row;
  }

  get(id: Id): T | undefined {
    return this.index.get(id);
  }

  /** The row named by a path parameter, or the service's 404. */
  require(param: string): T {
    const id = this.idKind === 'integer' ? (/^\d+$/.test(param) ? Number(param) : undefined) : param;
    const row = id === undefined ? undefined : this.index.get(id);
    if (!row) throw notFound(this.model, param);
    return row;
  }

  patch(row: T, fields: Partial<T>): T {
    Object.assign(row, fields);
    this.changed();
    return row;
  }

  /** Removes the rows matching `test`; returns how many. */
  removeWhere(test: (row: T) => boolean): number {
    let kept = 0;
    for (const row of this.list) {
      if (test(row)) this.index.delete(row.id);
      else this.list[kept++] = row;
    }
    const removed = this.list.length - kept;
    this.list.length = kept;
    if (removed > 0) this.changed();
    return removed;
  }

  remove(row: T): void {
    this.removeWhere((r) => r === row);
  }

  changed(): void {
    this.views.clear();
    this.onChange();
  }

  /** A derived ordering of the rows, built once per state of the table. */
  view(key: string, build: (rows: readonly T[]) => readonly T[]): readonly T[] {
    let rows = this.views.get(key);
    if (!rows) {
      // Filters on user-chosen datetimes make endless keys; a bound keeps memory flat.
      if (this.views.size >= 256) this.views.clear();
      rows = build(this.list);
      this.views.set(key, rows);
    }
    return rows;
  }
}

export class Store {
  private nextScheduleId = 1;
  /** Records as list pages show them, as JSON text; a record's shape can draw on other tables, so any change drops them all. */
  private listJsonCache = new WeakMap<object, string>();

  private readonly changed = () => {
    this.listJsonCache = new WeakMap();
  };

  readonly sshKeys = new Table<SshKeyRecord>('SshKey', 'integer', this.changed);
  readonly servers = new Table<ServerRecord>('Server', 'integer', this.changed);
  readonly accounts = new Table<AccountRecord>('ProviderAccount', 'integer', this.changed);
  readonly resources = new Table<ResourceRecord>('SnapshotResource', 'integer', this.changed);
  readonly snapshots = new Table<SnapshotRecord>('Snapshot', 'integer', this.changed);
  readonly storage = new Table<StorageRecord>('Storage', 'integer', this.changed);
  readonly droplets = new Table<MachineRecord>('Droplet', 'integer', this.changed);
  readonly volumes = new Table<MachineRecord>('Volume', 'uuid', this.changed);
  readonly machineSnapshots = new Table<MachineSnapshotRecord>('Snapshot', 'integer', this.changed);
  readonly jobs = new Table<JobRecord>('BackupJob', 'uuid', this.changed);
  readonly backups = new Table<BackupRecord>('Backup', 'uuid', this.changed);
  readonly restores = new Table<RestoreRecord>('RestoreJob', 'uuid', this.changed);
  readonly encryptionKeys = new Table<EncryptionKeyRecord>('EncryptionKey', 'integer', this.changed);
  readonly proxies = new Table<ProxyRecord>('Proxy', 'integer', this.changed);

  /** The JSON text of `row` rendered by `render`, reused until the store changes. Each table has one list shape. */
  listJson<T extends object>(row: T, render: (row: T) => unknown): string {
    let json = this.listJsonCache.get(row);
    if (json === undefined) {
      json = JSON.stringify(render(row));
      this.listJsonCache.set(row, json);
    }
    return json;
  }

  machines(kind: MachineKind): Table<MachineRecord> {
    return kind === 'droplet' ? this.droplets : this.volumes;
  }

  newScheduleId(): number {
    return this.nextScheduleId++;
  }

  /** Backups of one job, oldest first (creation order). */
  backupsOfJob(jobId: string): readonly BackupRecord[] {
    return this.backups.view(`job:${jobId}`, (rows) => rows.filter((b) => b.job_id === jobId));
  }

  /** Snapshots of one droplet or volume, oldest first. */
  snapshotsOfMachine(machine: MachineRecord): readonly MachineSnapshotRecord[] {
    return this.machineSnapshots.view(`${machine.kind}:${machine.id}`, (rows) =>
      rows.filter((s) => s.machine_kind === machine.kind && s.machine_id === machine.id),
    );
  }

  /** A file of a backup or restore job, for the files server. */
  findFile(ownerId: string, name: string): FileRecord | undefined {
    const owner = this.backups.get(ownerId) ?? this.restores.get(ownerId);
    return owner?.files.find((f) => f.name === name);
  }
}
