// Seed data. Everything comes from one seeded generator, so names, ids and
// sizes are the same on every run; times are measured back from the start
// of the emulator, so ages ("3 hours ago") look like a live team's.
import { jobSlug, makeBackupFiles, sealedDataKey } from './routes/backups.js';
import { scheduleFrequency } from './routes/jobs.js';
import {
  makeTags,
  type AccountProvider,
  type BackupRecord,
  type JobCompute,
  type JobRecord,
  type MachineKind,
  type MachineRecord,
  type Retention,
  type Store,
  type StorageProvider,
  type TagName,
} from './store.js';
import {
  DAY,
  HOUR,
  MINUTE,
  SECOND,
  createRng,
  fileStamp,
  pick,
  randInt,
  rsaPublicKeyLine,
  uuidFrom,
  wallClockToUtc,
  wholeSeconds,
  type Rng,
} from './util.js';

export interface SeedOptions {
  seed: 'demo' | 'empty';
  /** The emulator's start, whole seconds. */
  now: number;
  /** Backups of the extra "bulk" job; 0 for none. */
  bigJob: number;
}

export function seedStore(store: Store, opts: SeedOptions): void {
  const rng = createRng(0x5eed_0001);
  const seeder = new Seeder(store, rng, opts.now);
  // A team starts with one generated key, so even an empty account has it.
  seeder.sshKey('Default key', 400);
  if (opts.seed === 'demo') seeder.demo();
  if (opts.bigJob > 0) seeder.bulkJob(opts.bigJob);
}

/** Lengths of seeded backup files: multiples of 256 bytes, so "150.25 KB" states them exactly. */
/** A seed for a generator of one job's own, from its name (FNV-1a). */
function nameSeed(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

const seededFileSize = (rng: Rng) => randInt(rng, 32, 1200) * 256;

interface DemoJob {
  name: string;
  recipeId: number;
  compute: { type: 'server'; server: string } | { type: 'ss_serverless'; region: 'EU' | 'US' } | { type: 'ss_agent' };
  cron: string;
  timezone: string;
  storage: number[];
  /** healthy: daily successes; failing: the newest runs failed; stale: nothing for 5 days; with-errors: one run with errors. */
  history: 'healthy' | 'failing' | 'stale' | 'with-errors';
  config?: JobRecord['config'];
  encryptionKeyId?: number;
  proxyId?: number;
}

const DEMO_JOBS: readonly DemoJob[] = [
  {
    name: 'web-01 files',
    recipeId: 1,
    compute: { type: 'server', server: 'web-01' },
    cron: '0 2 * * *',
    timezone: 'Europe/Paris',
    storage: [1],
    history: 'healthy',
    config: { root_path: '/var/www', exclude: 'cache/\nnode_modules/', use_sudo: true },
    encryptionKeyId: 1,
  },
  {
    name: 'shop mysql',
    recipeId: 2,
    compute: { type: 'server', server: 'db-01' },
    cron: '30 1 * * *',
    timezone: 'Europe/Berlin',
    storage: [1, 2],
    history: 'healthy',
    config: { mysql_username: 'shop', mysql_password: 'hunter2-not-real', mysql_database: 'shop_production', compression_level: 9 },
    encryptionKeyId: 2,
  },
  {
    name: 'api postgres',
    recipeId: 3,
    compute: { type: 'server', server: 'db-02' },
    cron: '0 */6 * * *',
    timezone: 'UTC',
    storage: [3],
    history: 'healthy',
    config: { postgres_username: 'api', postgres_database: 'api' },
  },
  {
    name: 'marketing site',
    recipeId: 5,
    compute: { type: 'ss_serverless', region: 'EU' },
    cron: '0 3 * * *',
    timezone: 'Europe/London',
    storage: [2],
    history: 'with-errors',
    config: { url: 'https://www.example.com' },
  },
  {
    name: 'crm-db-failing',
    recipeId: 2,
    compute: { type: 'server', server: 'db-03' },
    cron: '15 1 * * *',
    timezone: 'Europe/Paris',
    storage: [1],
    history: 'failing',
    config: { mysql_username: 'crm', mysql_database: 'crm' },
  },
  {
    name: 'archive files',
    recipeId: 1,
    compute: { type: 'ss_agent' },
    cron: '0 4 * * *',
    timezone: 'America/New_York',
    storage: [5],
    history: 'stale',
    config: { root_path: '/srv/archive', use_compression: false },
  },
  {
    name: 'git server',
    recipeId: 1,
    compute: { type: 'server', server: 'git-01' },
    cron: '15 0 * * *',
    timezone: 'Europe/Paris',
    storage: [4, 6],
    history: 'healthy',
    config: { root_path: '/var/opt/gitlab/backups' },
    proxyId: 1,
  },
  {
    name: 'events mongodb',
    recipeId: 4,
    compute: { type: 'server', server: 'app-02' },
    cron: '45 2 * * *',
    timezone: 'Asia/Tokyo',
    storage: [3],
    history: 'healthy',
    config: { mongodb_database: 'events' },
  },
];

const SERVER_NAMES = [
  'web-01', 'web-02', 'web-03', 'web-04', 'db-01', 'db-02', 'db-03', 'app-01', 'app-02', 'app-03',
  'cache-01', 'mail-01', 'git-01', 'ci-runner-01', 'monitoring', 'vpn-gw', 'staging-web', 'staging-db',
  'backup-proxy', 'legacy-erp',
] as const;

const FAIL_REASONS = [
  'Snapshot quota exceeded in region',
  'The volume is attached to an instance that is being stopped',
  'Provider API answered 503 Service Unavailable',
];

class Seeder {
  constructor(
    private readonly store: Store,
    private rng: Rng,
    private readonly now: number,
  ) {}

  /** A time `days` (fractional) before now, on a whole second. */
  private ago(days: number): number {
    return wholeSeconds(this.now - days * DAY);
  }

  sshKey(name: string, ageDays: number, lastUsedDaysAgo: number | null = null): void {
    const { sshKeys } = this.store;
    const id = sshKeys.nextId();
    const createdAt = this.ago(ageDays);
    sshKeys.insert({
      id,
      name,
      public_key: rsaPublicKeyLine(this.rng, `backup-service-key-${id}`),
      created_at: createdAt,
      updated_at: createdAt,
      last_used: lastUsedDaysAgo === null ? null : this.ago(lastUsedDaysAgo),
    });
  }

  demo(): void {
    this.sshKey('deploy laptop', 210, 1.2);
    this.sshKey('ci-runner', 90, 0.1);
    this.store.sshKeys.patch(this.store.sshKeys.get(1)!, { last_used: this.ago(0.05) });
    this.servers();
    this.storage();
    this.accountsAndSnapshots();
    this.machines();
    this.store.encryptionKeys.insert({ id: 1, name: 'ops-2024', public_key: null, created_at: this.ago(300) });
    this.store.encryptionKeys.insert({ id: 2, name: 'finance-offline', public_key: null, created_at: this.ago(120) });
    this.store.proxies.insert({ id: 1, name: 'eu-egress' });
    this.store.proxies.insert({ id: 2, name: 'us-egress' });
    for (const job of DEMO_JOBS) this.demoJob(job);
    this.restores();
  }

  private servers(): void {
    SERVER_NAMES.forEach((name, i) => {
      const staging = name.startsWith('staging');
      const createdAt = this.ago(200 - i * 8 - this.rng() * 3);
      const used = i % 9 !== 8;
      this.store.servers.insert({
        id: this.store.servers.nextId(),
        name,
        host: staging ? `198.51.100.${20 + i}` : name === 'git-01' ? 'git.example.com' : `203.0.113.${10 + i}`,
        user: pick(this.rng, ['root', 'root', 'root', 'ubuntu', 'deploy']),
        port: i % 7 === 3 ? 2222 : 22,
        key_id: i % 5 === 4 ? 2 : i % 11 === 10 ? 3 : 1,
        status: 'success',
        created_at: createdAt,
        updated_at: createdAt + randInt(this.rng, 0, 5) * DAY,
        last_used: used ? this.ago(this.rng() * 2) : null,
      });
    });
  }

  private storage(): void {
    const rows: Array<[string, StorageProvider, string | null, string, string | null]> = [
      ['Primary object storage', 'cloud_a', 'eu-central-1', 'acme-backups', null],
      ['Spaces fra1', 'cloud_i', 'fra1', 'acme-spaces-backups', null],
      ['Managed storage', 'cloud_m', 'eu', 'team-1842', null],
      ['MinIO on-prem', 'custom', 'us-east-1', 'backups', 'https://minio.internal.example:9000'],
      ['Cold archive', 'cloud_j', 'nl-ams', 'acme-archive', null],
      ['Offsite copy', 'cloud_f', 'de-fra', 'acme-offsite', null],
    ];
    rows.forEach(([name, provider, region, bucket, endpoint], i) => {
      const createdAt = this.ago(250 - i * 30);
      this.store.storage.insert({
        id: this.store.storage.nextId(),
        name,
        provider,
        region,
        bucket,
        endpoint,
        key: provider === 'cloud_m' ? null : `AKIA${uuidFrom(this.rng).replace(/-/g, '').slice(0, 16).toUpperCase()}`,
        secret: provider === 'cloud_m' ? null : uuidFrom(this.rng),
        estimated_size: randInt(this.rng, 200, 90_000) * 1024 * 1024,
        priority: i + 1,
        created_at: createdAt,
        updated_at: createdAt,
      });
    });
  }

  private accountsAndSnapshots(): void {
    const accounts: Array<[string, AccountProvider, number | null]> = [
      ['prod-cloud-a', 'cloud_a', null],
      ['analytics-cloud-b', 'cloud_b', null],
      ['eu-cloud-e', 'cloud_e', null],
      ['legacy-cloud-f', 'cloud_f', 20],
    ];
    for (const [name, provider, expiresInDays] of accounts) {
      const createdAt = this.ago(randInt(this.rng, 60, 300));
      this.store.accounts.insert({
        id: this.store.accounts.nextId(),
        name,
        provider,
        credentials: {},
        expires_at: expiresInDays === null ? null : this.ago(-expiresInDays),
        created_at: createdAt,
        updated_at: this.ago(this.rng() * 3),
      });
    }
    const resources: Array<[number, 'disk' | 'server', boolean]> = [
      [1, 'server', true],
      [1, 'disk', true],
      [2, 'disk', false],
      [3, 'server', true],
      [3, 'disk', false],
      [4, 'server', true],
    ];
    resources.forEach(([accountId, type, activated], i) => {
      const syncedAt = this.ago(this.rng() * 0.8);
      this.store.resources.insert({
        id: this.store.resources.nextId(),
        account_id: accountId,
        type,
        backups_activated: activated,
        last_known_ip: `192.0.2.${30 + i * 7}`,
        last_synced_at: syncedAt,
        updated_at: syncedAt,
        schedule: activated ? { frequency: 'h24', retention: { hourly: 0, daily: 7, weekly: 4, monthly: 2 }, timezone: 'UTC', run_offset: 1 } : null,
      });
    });
    // About 30 snapshots: mostly daily successes of the activated resources, and one of every odd state.
    const oddStates = ['failed', 'in-progress', 'pre_request', 'expired', 'expired', 'delete-request', 'failed'];
    for (let n = 0; n < 30; n++) {
      const resource = this.store.resources.rows[n % this.store.resources.size]!;
      const daysAgo = Math.floor(n / this.store.resources.size) * 2 + this.rng() * 1.5 + (n < 6 ? 0.05 : 0.5);
      const status = n % 4 === 3 ? oddStates[(n >> 2) % oddStates.length]! : 'completed';
      const startedAt = this.ago(daysAgo);
      const done = status === 'completed' || status === 'failed' || status === 'expired' || status === 'delete-request';
      const tags: TagName[] = n % 9 === 4 ? ['manual'] : n % 7 === 0 ? ['daily', 'weekly'] : ['daily'];
      this.store.snapshots.insert({
        id: this.store.snapshots.nextId(),
        name: `${resource.type}-${resource.id}-${new Date(startedAt).toISOString().slice(0, 10)}`,
        status,
        fail_reason: status === 'failed' ? pick(this.rng, FAIL_REASONS) : null,
        size: status === 'completed' || status === 'expired' ? randInt(this.rng, 40, 60_000) * 1024 * 1024 + randInt(this.rng, 0, 1_000_000) : 0,
        tags: makeTags(tags),
        started_at: startedAt,
        completed_at: done ? startedAt + randInt(this.rng, 2, 40) * MINUTE : null,
        account_id: resource.account_id,
        resource_id: resource.id,
      });
    }
  }

  private machines(): void {
    const droplets: Array<[string, string, string, string, number]> = [
      ['web-01', 's-2vcpu-4gb', 'fra1', 'active', 1.06],
      ['db-primary', 's-4vcpu-8gb', 'fra1', 'active', 3.2],
      ['staging', 's-1vcpu-1gb', 'ams3', 'paused', 0.48],
      ['old-wordpress', 's-1vcpu-2gb', 'nyc3', 'inactive', 0.62],
    ];
    droplets.forEach(([name, size, location, status, cost], i) =>
      this.machine('droplet', 301_234_567 + i * 7_919, name, size, location, status, cost, `164.90.${180 + i}.${12 + i * 9}`),
    );
    const volumes: Array<[string, string, string, string, number | null]> = [
      ['pgdata-fra1', '100GiB', 'fra1', 'active', 0.55],
      ['uploads-fra1', '250GiB', 'fra1', 'active', null],
      ['scratch-ams3', '20GiB', 'ams3', 'inactive', 0.11],
    ];
    volumes.forEach(([name, size, location, status, cost]) =>
      this.machine('volume', uuidFrom(this.rng), name, size, location, status, cost, null),
    );
  }

  private machine(
    kind: MachineKind,
    id: number | string,
    name: string,
    size: string,
    location: string,
    status: string,
    cost: number | null,
    host: string | null,
  ): void {
    const active = status === 'active';
    const retention: Retention = active && name === 'db-primary' ? { hourly: 6, daily: 7, weekly: 4, monthly: 3 } : { daily: 7, weekly: 4, monthly: active ? 3 : 0 };
    const createdAt = this.ago(randInt(this.rng, 90, 400));
    const machine: MachineRecord = {
      kind,
      id,
      name,
      host,
      account: 'ops@example.com',
      estimated_cost: cost === null ? null : `$${cost.toFixed(2)}/month`,
      status,
      size,
      location,
      timezone: pick(this.rng, ['UTC', 'Europe/Amsterdam', 'Europe/Paris']),
      run_offset: randInt(this.rng, 0, 5),
      frequency: retention.hourly ? 6 : 24,
      retention,
      secondary_region: active && kind === 'droplet' ? 'ams3' : null,
      created_at: createdAt,
      updated_at: createdAt + 3 * DAY,
    };
    this.store.machines(kind).insert(machine);

    // Active machines: a snapshot a day for a week (the newest maybe still copying); paused: stopped 4 days ago.
    const days = active ? [7, 6, 5, 4, 3, 2, 1, 0.2] : status === 'paused' ? [12, 11, 10, 9, 8, 4.5] : [40];
    days.forEach((daysAgo, i) => {
      const newest = i === days.length - 1;
      const startedAt = this.ago(daysAgo);
      const snapshotStatus = status === 'inactive' ? 'expired' : newest && active && kind === 'droplet' ? 'transferring' : i === 2 && name === 'db-primary' ? 'failed' : 'completed';
      const tags: TagName[] = i === 3 && active ? ['manual'] : daysAgo >= 7 ? ['daily', 'weekly'] : ['daily'];
      this.store.machineSnapshots.insert({
        id: this.store.machineSnapshots.nextId(),
        machine_kind: kind,
        machine_id: id,
        name: `${name}-${new Date(startedAt).toISOString().slice(0, 10)}`,
        status: snapshotStatus,
        size: snapshotStatus === 'failed' ? 0 : randInt(this.rng, 800, 40_000) * 1024 * 1024,
        tags: makeTags(tags),
        started_at: startedAt,
        completed_at: snapshotStatus === 'transferring' ? null : startedAt + randInt(this.rng, 1, 25) * MINUTE,
      });
    });
  }

  private compute(spec: DemoJob['compute']): JobCompute {
    if (spec.type !== 'server') return spec;
    const server = this.store.servers.rows.find((s) => s.name === spec.server)!;
    return { type: 'server', server_id: server.id };
  }

  private demoJob(spec: DemoJob): void {
    const createdAt = this.ago(randInt(this.rng, 40, 160));
    const schedule = {
      id: this.store.newScheduleId(),
      order: 1,
      cron: spec.cron,
      timezone: spec.timezone,
      run_offset: 0,
      retention: { hourly: spec.cron.includes('*/') ? 24 : 0, daily: 7, weekly: 4, monthly: 3 },
      status: 'active',
      ...scheduleFrequency(spec.cron),
    };
    const job = this.store.jobs.insert({
      id: uuidFrom(this.rng),
      name: spec.name,
      recipe_id: spec.recipeId,
      compute: this.compute(spec.compute),
      config: spec.config ?? {},
      schedules: [schedule],
      storage: spec.storage.map((storage_id, i) => ({ storage_id, priority: i + 1 })),
      encryption_key_id: spec.encryptionKeyId ?? null,
      proxy_id: spec.proxyId ?? null,
      last_ran_at: null,
      created_at: createdAt,
      updated_at: createdAt + randInt(this.rng, 1, 20) * DAY,
    });

    // How many runs fall in the last ten days depends on the time of day the
    // emulator starts, so the backups draw from a generator of their own: the
    // rest of the seed (ids of later jobs, ...) is then the same at any hour.
    const main = this.rng;
    this.rng = createRng(nameSeed(spec.name));
    try {
      const runs = this.scheduledRuns(spec.cron, spec.timezone, spec.history === 'stale' ? 5 : 0);
      runs.forEach((run, i) => {
        const fromEnd = runs.length - 1 - i;
        // A stray completed_with_errors (1 in 20), placed by its distance from the newest and never the
        // newest itself, so a job's recent history reads the same whatever the hour.
        let status = fromEnd > 0 && nameSeed(`${spec.name}#${fromEnd}`) % 20 === 0 ? 'completed_with_errors' : 'completed';
        if (spec.history === 'failing' && fromEnd < 3) status = 'failed';
        if (spec.history === 'with-errors' && fromEnd === 2) status = 'completed_with_errors';
        this.backup(job, run.at, status, run.tags);
      });
      if (spec.name === 'shop mysql') this.backup(job, this.ago(3.3), 'completed', ['manual']);
    } finally {
      this.rng = main;
    }
    const newest = this.store.backupsOfJob(job.id).reduce((max, b) => Math.max(max, b.created_at), 0);
    this.store.jobs.patch(job, { last_ran_at: newest || null });
  }

  /**
   * When a schedule ran over the last ten days, up to `stopDaysAgo` before now.
   * Understands the seed's cron forms: daily at H:M, every N hours (a step in the hour field), weekly on day D.
   */
  private scheduledRuns(cron: string, zone: string, stopDaysAgo: number): Array<{ at: number; tags: TagName[] }> {
    const [minuteField = '0', hourField = '0', , , weekday = '*'] = cron.split(/\s+/);
    const every = /^\*\/(\d+)$/.exec(hourField);
    const hours = every ? Array.from({ length: 24 / Number(every[1]) }, (_, i) => i * Number(every[1])) : [Number(hourField)];
    const runs: Array<{ at: number; tags: TagName[] }> = [];
    const newestAllowed = this.now - Math.max(stopDaysAgo * DAY, 10 * MINUTE);
    for (let d = 10; d >= 0; d--) {
      const day = this.now - d * DAY;
      const date = new Date(day);
      if (weekday !== '*' && date.getUTCDay() !== Number(weekday)) continue;
      hours.forEach((hour, i) => {
        const at = wallClockToUtc(day, hour, Number(minuteField), zone) + randInt(this.rng, 0, 90) * SECOND;
        if (at > newestAllowed || at < this.now - 10 * DAY) return;
        const tags: TagName[] = every ? (i === 0 ? ['hourly', 'daily'] : ['hourly']) : ['daily'];
        if (date.getUTCDay() === 0 && (!every || i === 0)) tags.push('weekly');
        if (date.getUTCDate() === 1 && (!every || i === 0)) tags.push('monthly');
        runs.push({ at, tags });
      });
    }
    return runs.sort((a, b) => a.at - b.at);
  }

  private backup(job: JobRecord, at: number, status: string, tags: TagName[]): BackupRecord {
    const startedAt = at + randInt(this.rng, 3, 40) * SECOND;
    // Finished before the emulator started: a run ten minutes old with a fifteen-minute
    // duration would otherwise have completed in the future.
    const completedAt = Math.max(startedAt + 20 * SECOND, Math.min(startedAt + randInt(this.rng, 20, 900) * SECOND, this.now - 30 * SECOND));
    const withFiles = status === 'completed' || status === 'completed_with_errors';
    return this.store.backups.insert({
      id: uuidFrom(this.rng),
      job_id: job.id,
      status,
      tags: makeTags(tags),
      s3_directory: `backups/${jobSlug(job)}/${fileStamp(at)}`,
      created_at: wholeSeconds(at),
      started_at: wholeSeconds(startedAt),
      completed_at: wholeSeconds(completedAt),
      monitoring_available: true,
      encryption_key: sealedDataKey(this.rng, job),
      files: withFiles ? makeBackupFiles(this.rng, job, at, seededFileSize) : [],
    });
  }

  private restores(): void {
    const jobNamed = (name: string) => this.store.jobs.rows.find((j) => j.name === name)!;
    const newestCompleted = (job: JobRecord, skip = 0) =>
      this.store.backupsOfJob(job.id).filter((b) => b.status === 'completed').reverse()[skip]!;
    const serverNamed = (name: string) => this.store.servers.rows.find((s) => s.name === name)!.id;
    const plans: Array<[string, number, string, string, number]> = [
      ['shop mysql', 0, 'db-01', 'completed', 2.1],
      ['web-01 files', 4, 'web-02', 'failed', 5.2],
      ['git server', 0, 'git-01', 'running', 0.007],
    ];
    for (const [jobName, skip, serverName, status, daysAgo] of plans) {
      const job = jobNamed(jobName);
      const backup = newestCompleted(job, skip);
      const createdAt = this.ago(daysAgo);
      this.store.restores.insert({
        id: uuidFrom(this.rng),
        job_id: job.id,
        backup_id: backup.id,
        server_id: serverNamed(serverName),
        status,
        created_at: createdAt,
        started_at: createdAt + 20 * SECOND,
        completed_at: status === 'running' ? null : createdAt + randInt(this.rng, 2, 30) * MINUTE,
        files: status === 'completed' ? backup.files.map((f) => ({ id: uuidFrom(this.rng), name: f.name, size: f.size })) : [],
      });
    }
  }

  /** A job with `count` hourly backups, newest an hour ago, for long-list benchmarks. */
  bulkJob(count: number): void {
    const createdAt = this.now - (count + 24) * HOUR;
    const job = this.store.jobs.insert({
      id: uuidFrom(this.rng),
      name: 'bulk',
      recipe_id: 1,
      compute: { type: 'ss_serverless', region: 'EU' },
      config: { root_path: '/data' },
      schedules: [
        {
          id: this.store.newScheduleId(),
          order: 1,
          cron: '0 * * * *',
          timezone: 'UTC',
          run_offset: 0,
          retention: { hourly: 24, daily: 7, weekly: 4, monthly: 3 },
          status: 'active',
          ...scheduleFrequency('0 * * * *'),
        },
      ],
      storage: this.store.storage.size ? [{ storage_id: this.store.storage.rows[0]!.id, priority: 1 }] : [],
      encryption_key_id: null,
      proxy_id: null,
      last_ran_at: null,
      created_at: wholeSeconds(createdAt),
      updated_at: wholeSeconds(createdAt),
    });
    for (let i = count; i >= 1; i--) this.backup(job, wholeSeconds(this.now - i * HOUR), 'completed', ['hourly']);
    this.store.jobs.patch(job, { last_ran_at: wholeSeconds(this.now - HOUR) });
  }
}
