// Records as the service sends them. Each function gives one documented shape;
// where an endpoint shows a record with fewer fields, its options say so.
import { displayConfigValue, recipeById } from './recipes.js';
import type { Runtime } from './runtime.js';
import type {
  AccountRecord,
  BackupRecord,
  FileRecord,
  JobRecord,
  MachineRecord,
  MachineSnapshotRecord,
  ResourceRecord,
  RestoreRecord,
  ScheduleRecord,
  ServerRecord,
  SnapshotRecord,
  SshKeyRecord,
  StorageRecord,
  Tags,
} from './store.js';
import { exactSizeText, humanSize, isoMicro, isoMicroOrNull, sqlDateTime } from './util.js';

/** How many recent backups a job record carries in last_backups. */
const LAST_BACKUPS = 5;

export function providerObject(name: string) {
  return { name, pretty_name: `Cloud ${name.slice(-1).toUpperCase()}` };
}

function tagsAsIntegers(tags: Tags) {
  return {
    manual: Number(tags.manual),
    hourly: Number(tags.hourly),
    daily: Number(tags.daily),
    weekly: Number(tags.weekly),
    monthly: Number(tags.monthly),
  };
}

export function renderSshKey(key: SshKeyRecord) {
  return {
    id: key.id,
    public_key: key.public_key,
    name: key.name,
    created_at: isoMicro(key.created_at),
    last_used: isoMicroOrNull(key.last_used),
  };
}

export function renderServer(rt: Runtime, server: ServerRecord, opts: { withKey: boolean } = { withKey: true }) {
  const base = {
    id: server.id,
    name: server.name,
    host: server.host,
    user: server.user,
    port: server.port,
    created_at: isoMicro(server.created_at),
    last_used: isoMicroOrNull(server.last_used),
    status: server.status,
  };
  if (!opts.withKey) return base;
  const key = rt.store.sshKeys.get(server.key_id);
  return { ...base, key: key ? renderSshKey(key) : null };
}

/** Account endpoints use `YYYY-MM-DD HH:MM:SS`; the list adds the provider. */
export function renderAccount(account: AccountRecord, opts: { withProvider: boolean }) {
  const base = {
    id: account.id,
    name: account.name,
    expires_at: account.expires_at === null ? null : sqlDateTime(account.expires_at),
    created_at: sqlDateTime(account.created_at),
    updated_at: sqlDateTime(account.updated_at),
  };
  return opts.withProvider ? { ...base, provider: providerObject(account.provider) } : base;
}

/** The account embedded in snapshots and resources (`credentials`), with ISO datetimes. */
function embeddedAccount(account: AccountRecord | undefined) {
  if (!account) return null;
  return {
    id: account.id,
    name: account.name,
    expires_at: isoMicroOrNull(account.expires_at),
    created_at: isoMicro(account.created_at),
    updated_at: isoMicro(account.updated_at),
  };
}

function resourceCore(resource: ResourceRecord) {
  return {
    id: resource.id,
    type: resource.type,
    backups_activated: resource.backups_activated,
    last_known_ip: resource.last_known_ip,
    last_synced_at: sqlDateTime(resource.last_synced_at),
  };
}

export function renderResource(rt: Runtime, resource: ResourceRecord, opts: { list: boolean }) {
  if (!opts.list) return resourceCore(resource);
  const account = rt.store.accounts.get(resource.account_id);
  return {
    ...resourceCore(resource),
    credentials: embeddedAccount(account),
    provider: account ? providerObject(account.provider) : null,
  };
}

export function renderSnapshot(rt: Runtime, snapshot: SnapshotRecord) {
  const account = rt.store.accounts.get(snapshot.account_id);
  const resource = rt.store.resources.get(snapshot.resource_id);
  return {
    id: snapshot.id,
    name: snapshot.name,
    status: snapshot.status,
    ...(snapshot.status === 'failed' ? { fail_reason: snapshot.fail_reason ?? 'Unknown error' } : {}),
    size: humanSize(snapshot.size),
    tags: tagsAsIntegers(snapshot.tags),
    started_at: isoMicro(snapshot.started_at),
    completed_at: isoMicroOrNull(snapshot.completed_at),
    credentials: embeddedAccount(account),
    provider: account ? providerObject(account.provider) : null,
    resource: resource ? resourceCore(resource) : null,
  };
}

/** Storage inside a job omits estimated_size and priority. */
export function renderStorage(storage: StorageRecord, opts: { embedded: boolean } = { embedded: false }) {
  const base = {
    id: storage.id,
    name: storage.name,
    provider: storage.provider,
    region: storage.region,
    bucket: storage.bucket,
    endpoint: storage.endpoint,
  };
  return opts.embedded ? base : { ...base, estimated_size: storage.estimated_size, priority: storage.priority };
}

export function renderMachineSnapshot(snapshot: MachineSnapshotRecord) {
  return {
    id: snapshot.id,
    name: snapshot.name,
    status: snapshot.status,
    size: snapshot.size,
    tags: tagsAsIntegers(snapshot.tags),
    started_at: isoMicro(snapshot.started_at),
    completed_at: isoMicroOrNull(snapshot.completed_at),
  };
}

/** A droplet or volume; volumes have no host and may lack estimated_cost. */
export function renderMachine(rt: Runtime, machine: MachineRecord, opts: { withSnapshots: boolean }) {
  const { hourly, daily, weekly, monthly } = machine.retention;
  const record: Record<string, unknown> = { id: machine.id, name: machine.name };
  if (machine.kind === 'droplet') record.host = machine.host;
  record.account = machine.account;
  if (machine.estimated_cost !== null) record.estimated_cost = machine.estimated_cost;
  Object.assign(record, {
    status: machine.status,
    size: machine.size,
    location: machine.location,
    timezone: machine.timezone,
    run_offset: machine.run_offset,
    frequency: machine.frequency,
    retention: hourly === undefined ? { daily, weekly, monthly } : { hourly, daily, weekly, monthly },
    created_at: isoMicro(machine.created_at),
  });
  if (opts.withSnapshots) {
    record.snapshots = rt.store.snapshotsOfMachine(machine).map(renderMachineSnapshot);
  }
  return record;
}

export function renderFile(rt: Runtime, ownerId: string, file: FileRecord) {
  return { id: file.id, name: file.name, size: exactSizeText(file.size), url: rt.recordFileUrl(ownerId, file) };
}

/** Tags are booleans in the backups list and integers inside job records. */
export function renderBackup(rt: Runtime, backup: BackupRecord, opts: { tags: 'boolean' | 'integer' }) {
  return {
    id: backup.id,
    job_id: backup.job_id,
    status: backup.status,
    tags: opts.tags === 'boolean' ? { ...backup.tags } : tagsAsIntegers(backup.tags),
    s3_directory: backup.s3_directory,
    created_at: isoMicro(backup.created_at),
    started_at: isoMicroOrNull(backup.started_at),
    completed_at: isoMicroOrNull(backup.completed_at),
    monitoring_available: backup.monitoring_available,
    ...(opts.tags === 'boolean' ? { encryption_key: backup.encryption_key } : {}),
    files: backup.files.map((f) => renderFile(rt, backup.id, f)),
  };
}

export function renderSchedule(job: JobRecord, schedule: ScheduleRecord) {
  return {
    id: schedule.id,
    schedule_name: scheduleName(schedule),
    schedule_order: schedule.order,
    status: schedule.status,
    frequency: schedule.frequency,
    frequency_mode: schedule.frequency_mode,
    cron: schedule.cron,
    timezone: schedule.timezone,
    run_offset: schedule.run_offset,
    retention: { ...schedule.retention },
    resource_type: 'BackupJob',
    resource_id: job.id,
  };
}

function scheduleName(schedule: ScheduleRecord): string {
  if (schedule.frequency_mode === 'minute') return `Every ${schedule.frequency} minutes`;
  if (schedule.frequency < 24) return `Every ${schedule.frequency} hours`;
  const [minute, hour, , , weekday] = schedule.cron.split(/\s+/);
  const at = /^\d+$/.test(hour ?? '') && /^\d+$/.test(minute ?? '') ? ` at ${hour!.padStart(2, '0')}:${minute!.padStart(2, '0')}` : '';
  return weekday && weekday !== '*' ? `Weekly${at}` : `Daily${at}`;
}

function renderCompute(rt: Runtime, job: JobRecord) {
  const { compute } = job;
  if (compute.type === 'server') {
    const server = compute.server_id === undefined ? undefined : rt.store.servers.get(compute.server_id);
    return { type: 'server', server_id: compute.server_id, server: server ? renderServer(rt, server) : null };
  }
  if (compute.type === 'ss_serverless') return { type: 'ss_serverless', region: compute.region };
  return { type: compute.type };
}

export function renderJob(rt: Runtime, job: JobRecord) {
  const recipe = recipeById(job.recipe_id);
  const config: Record<string, { value: string | number; label: string; type: string }> = {};
  for (const field of recipe?.config ?? []) {
    config[field.key] = { value: displayConfigValue(field, job.config[field.key]), label: field.label, type: field.type };
  }
  const backups = rt.store.backupsOfJob(job.id);
  const lastBackups = backups.slice(-LAST_BACKUPS).reverse();
  return {
    id: job.id,
    name: job.name,
    recipe: recipe?.slug ?? 'unknown',
    compute_type: job.compute.type,
    compute: renderCompute(rt, job),
    config,
    last_ran_at: isoMicroOrNull(job.last_ran_at),
    created_at: isoMicro(job.created_at),
    updated_at: isoMicro(job.updated_at),
    schedule: job.schedules.map((s) => renderSchedule(job, s)),
    storage: [...job.storage]
      .sort((a, b) => a.priority - b.priority)
      .flatMap(({ storage_id }) => {
        const storage = rt.store.storage.get(storage_id);
        return storage ? [renderStorage(storage, { embedded: true })] : [];
      }),
    last_backups: lastBackups.map((b) => renderBackup(rt, b, { tags: 'integer' })),
  };
}

export function renderRestore(rt: Runtime, restore: RestoreRecord, opts: { withFiles: boolean }) {
  const server = rt.store.servers.get(restore.server_id);
  const record = {
    id: restore.id,
    job_id: restore.job_id,
    backup_id: restore.backup_id,
    compute: { id: restore.server_id, type: 'server', server: server ? renderServer(rt, server, { withKey: false }) : null },
    status: restore.status,
    created_at: isoMicro(restore.created_at),
    started_at: isoMicroOrNull(restore.started_at),
    completed_at: isoMicroOrNull(restore.completed_at),
  };
  return opts.withFiles ? { ...record, files: restore.files.map((f) => renderFile(rt, restore.id, f)) } : record;
}
