// Seed data. Everything comes from seeded generators, so names, ids and sizes
// are the same on every run; times are measured back from the emulator's clock
// (`now`), so ages ("3 hours ago") look like a live team's at any hour.
//
// History (docs/demo-data.md says the same, with how to count a report by hand).
// Every schedule runs in its own time zone, computed by croner (src/emulator/
// schedule.ts), over the HISTORY_DAYS (36) days before now. A run is "due" when
// its scheduled time is at least NOT_YET_STARTED (15 minutes) before now; a run
// due later than that has no record yet. Due runs are counted back from now:
// k = 0 is the newest due run, k = 1 the one before, ... Every due run has one
// backup (or snapshot) starting 0 to 90 s after its scheduled time and
// completed, except these:
//
//   job               schedule                          missed k     failed k    completed_with_errors k
//   web-01 files      0 2 * * *    Europe/Paris         9            16          23
//   shop mysql        30 1 * * *   Europe/Berlin        4            -           -      (+1 manual backup 3.3 days ago)
//   api postgres      0 */6 * * *  UTC                  7, 30        50          -
//   marketing site    0 3 * * *    Europe/London        -            12          2
//   crm-db-failing    15 1 * * *   Europe/Paris         20           0, 1, 2     -      (failing)
//   archive files     0 4 * * *    America/New_York     0-4          15          -      (stale)
//   git server        15 0 * * *   Europe/Paris         -            -           -
//   events mongodb    45 2 * * *   Asia/Tokyo           -            -           8
//
// Droplets and volumes snapshot every `frequency` hours from `run_offset`
// o'clock of their `timezone` (snapshotScheduleCron, as `report` reads them); snapshot resources with
// backups activated follow their schedule (h24, run_offset 1, UTC: daily at
// 01:00 UTC). Their exceptions, by the same k:
//
//   web-01 (droplet)        missed 8 (+1 manual 3.5 days ago)
//   db-primary (droplet)    missed 9; failed 2
//   staging (droplet)       paused: missed 0-4 (so stale)
//   pgdata-fra1 (volume)    missed 12
//   uploads-fra1 (volume)   failed 0, 5 (so failing)
//   resource 1              failed 3
//   resource 2              missed 6
//   resource 4              failed 10
//   resource 6              missed 2
//   inactive machines and resources without backups: a few unscheduled snapshots, none in the history window's rules.
import { jobSlug, makeBackupFiles, sealBackupKey } from './routes/backups.js';
import { scheduleFrequency } from './routes/jobs.js';
import { snapshotScheduleCron } from '../util/snapshot-cron.js';
import { runsBetween } from './schedule.js';
import { recipeById } from './recipes.js';
import {
  makeTags,
  type AccountProvider,
  type BackupRecord,
  type JobCompute,
  type JobRecord,
  type MachineKind,
  type MachineRecord,
  type MachineSnapshotRecord,
  type ResourceRecord,
  type SnapshotRecord,
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
  nameSeed,
  pick,
  randInt,
  rsaPublicKeyLine,
  uuidFrom,
  wholeSeconds,
  fileStamp,
  zonedDate,
  type Rng,
} from './util.js';

/** How many days of scheduled history the demo holds (a report of the last 30 or 35 days is whole). */
export const HISTORY_DAYS = 36;
/** A run scheduled less than this long before now has not started yet: it has no record. */
export const NOT_YET_STARTED = 15 * MINUTE;

export interface SeedOptions {
  seed: 'demo' | 'empty';
  /** The emulator's start, whole seconds. */
  now: number;
  /** Backups of the extra "bulk" job; 0 for none. */
  bigJob: number;
  /**
   * Days of scheduled history (default HISTORY_DAYS). Fewer days leave the
   * newest records as they are: a test sweeping the clock asks only for what it reads.
   */
  historyDays?: number;
  /**
   * Job schedules start on the hour (the published dialect: a frequency and a run_offset in
   * hours say no minute, so `30 1 * * *` runs at 01:00).
   */
  onTheHour?: boolean;
}

export function seedStore(store: Store, opts: SeedOptions): void {
  const rng = createRng(0x5eed_0001);
  const seeder = new Seeder(store, rng, opts.now, opts.historyDays ?? HISTORY_DAYS);
  seeder.onTheHour = opts.onTheHour === true;
  // A team starts with one generated key, so even an empty account has it.
  seeder.sshKey('Default key', 400);
  if (opts.seed === 'demo') seeder.demo();
  if (opts.bigJob > 0) seeder.bulkJob(opts.bigJob);
}

/** Lengths of seeded backup files: multiples of 256 bytes, so "150.25 KB" states them exactly. */
const seededFileSize = (rng: Rng) => randInt(rng, 32, 1200) * 256;

/**
 * A job's nightly file changes a little each night, as a tree's names do (src/emulator/archives.ts lineageOf):
 * its length is the job's own (from its name) within 4%, drawn
 * with the same one draw as seededFileSize, so every other value of the seed stays as it was (issue 42.12: any
 * length from 8 KiB to 300 KiB each night made anomalies call nights "size" anomalies).
 */
function jobFileSize(job: { name: string; recipe_id: number }): (rng: Rng) => number {
  if (!recipeById(job.recipe_id)) return seededFileSize;
  const base = 160 + (nameSeed(job.name) % 800);
  return (rng) => Math.round(base * (1 + ((randInt(rng, 32, 1200) - 616) / 584) * 0.04)) * 256;
}

/** What happens to due runs, by k (0 = the newest due run); every other due run completes. */
interface RunPlan {
  missed?: readonly number[];
  failed?: readonly number[];
  withErrors?: readonly number[];
}

function outcomeOf(plan: RunPlan, k: number): 'missed' | 'failed' | 'completed_with_errors' | 'completed' {
  if (plan.missed?.includes(k)) return 'missed';
  if (plan.failed?.includes(k)) return 'failed';
  if (plan.withErrors?.includes(k)) return 'completed_with_errors';
  return 'completed';
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

interface DemoJob {
  name: string;
  recipeId: number;
  compute: { type: 'server'; server: string } | { type: 'ss_serverless'; region: 'EU' | 'US' } | { type: 'ss_agent' };
  cron: string;
  timezone: string;
  storage: number[];
  /** See the table at the top of this file. */
  plan: RunPlan;
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
    plan: { missed: [9], failed: [16], withErrors: [23] },
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
    plan: { missed: [4] },
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
    plan: { missed: [7, 30], failed: [50] },
    config: { postgres_username: 'api', postgres_database: 'api' },
  },
  {
    name: 'marketing site',
    recipeId: 5,
    compute: { type: 'ss_serverless', region: 'EU' },
    cron: '0 3 * * *',
    timezone: 'Europe/London',
    storage: [2],
    plan: { failed: [12], withErrors: [2] },
    config: { url: 'https://www.example.com' },
  },
  {
    name: 'crm-db-failing',
    recipeId: 2,
    compute: { type: 'server', server: 'db-03' },
    cron: '15 1 * * *',
    timezone: 'Europe/Paris',
    storage: [1],
    plan: { missed: [20], failed: [0, 1, 2] },
    config: { mysql_username: 'crm', mysql_database: 'crm' },
  },
  {
    name: 'archive files',
    recipeId: 1,
    compute: { type: 'ss_agent' },
    cron: '0 4 * * *',
    timezone: 'America/New_York',
    storage: [5],
    plan: { missed: range(0, 4), failed: [15] },
    config: { root_path: '/srv/archive', use_compression: false },
  },
  {
    name: 'git server',
    recipeId: 1,
    compute: { type: 'server', server: 'git-01' },
    cron: '15 0 * * *',
    timezone: 'Europe/Paris',
    storage: [4, 6],
    plan: {},
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
    plan: { withErrors: [8] },
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

/** Exceptions in the snapshot history of droplets and volumes, by name (see the table at the top). */
const MACHINE_PLANS: Record<string, RunPlan> = {
  'web-01': { missed: [8] },
  'db-primary': { missed: [9], failed: [2] },
  'pgdata-fra1': { missed: [12] },
  'uploads-fra1': { failed: [0, 5] },
};

class Seeder {
  /** See SeedOptions.onTheHour. */
  onTheHour = false;
  constructor(
    private readonly store: Store,
    private rng: Rng,
    private readonly now: number,
    private readonly historyDays: number,
  ) {}

  /**
   * Runs `draw` with a generator of its own, seeded from `name`: how many runs
   * fall in the history depends on the hour, and the records after it (ids of
   * later jobs, ...) must not. Each scheduled run draws from its own too, so a
   * backup keeps its id, times and files whatever the hour the emulator starts.
   */
  private own<T>(name: string, draw: () => T): T {
    const main = this.rng;
    this.rng = createRng(nameSeed(name));
    try {
      return draw();
    } finally {
      this.rng = main;
    }
  }

  /** The due runs of a snapshot schedule (`frequency` hours, or h24-style, from `run_offset` o'clock of its zone). */
  private scheduledSnapshots(frequency: number | string, runOffset: number, zone: string): ReturnType<Seeder['dueRuns']> {
    const made = snapshotScheduleCron(frequency, runOffset);
    if (!('cron' in made)) throw new Error(`seed: snapshot schedule ${made.text}: ${made.unreadable}`);
    const hours = typeof frequency === 'number' ? frequency : Number(/^h(\d+)$/.exec(frequency)?.[1] ?? 24);
    return this.dueRuns(made.cron, zone, hours);
  }

  /**
   * The due runs of a schedule over the history, oldest first, each with its k
   * (0 = the newest due run) and the tags the service gives a scheduled run
   * (hourly, daily for the first run of a local day, weekly on Sundays, monthly on the 1st).
   */
  private dueRuns(cron: string, zone: string, everyHours: number): Array<{ at: number; k: number; tags: TagName[] }> {
    const runs = runsBetween(cron, zone, this.now - this.historyDays * DAY, this.now - NOT_YET_STARTED);
    return runs.map((at, i) => {
      const local = zonedDate(at, zone);
      const firstOfDay = everyHours >= 24 || zonedDate(at - everyHours * HOUR, zone).day !== local.day;
      const tags: TagName[] = everyHours < 24 ? ['hourly'] : [];
      if (firstOfDay) {
        tags.push('daily');
        if (local.weekday === 0) tags.push('weekly');
        if (local.day === 1) tags.push('monthly');
      }
      return { at, k: runs.length - 1 - i, tags };
    });
  }

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
    // Activated resources take a snapshot at every due run of their schedule; the others hold a few made by hand.
    // Ids follow the start times across resources, as the service numbers snapshots as they are taken.
    const resourcePlans: Record<number, RunPlan> = { 1: { failed: [3] }, 2: { missed: [6] }, 4: { failed: [10] }, 6: { missed: [2] } };
    const handMade: Record<number, Array<[string, number]>> = { 3: [['delete-request', 9], ['pre_request', 0.02]], 5: [['completed', 52], ['expired', 44]] };
    const snapshots: Array<Omit<SnapshotRecord, 'id'>> = [];
    for (const resource of this.store.resources.rows) {
      this.own(`resource ${resource.id}`, () => {
        const schedule = resource.schedule;
        for (const [status, daysAgo] of handMade[resource.id] ?? []) snapshots.push(this.resourceSnapshot(resource, this.ago(daysAgo), status, ['manual']));
        if (!schedule) return;
        const plan = resourcePlans[resource.id] ?? {};
        for (const run of this.scheduledSnapshots(schedule.frequency, schedule.run_offset, schedule.timezone)) {
          const outcome = outcomeOf(plan, run.k);
          if (outcome === 'missed') continue;
          const status = outcome === 'completed_with_errors' ? 'completed' : outcome;
          snapshots.push(this.own(`resource ${resource.id} ${run.at}`, () => this.resourceSnapshot(resource, run.at + randInt(this.rng, 0, 90) * SECOND, status, run.tags)));
        }
      });
    }
    snapshots.sort((a, b) => a.started_at - b.started_at);
    for (const snapshot of snapshots) this.store.snapshots.insert({ id: this.store.snapshots.nextId(), ...snapshot });
  }

  private resourceSnapshot(resource: ResourceRecord, startedAt: number, status: string, tags: TagName[]): Omit<SnapshotRecord, 'id'> {
    const done = status === 'completed' || status === 'failed' || status === 'expired' || status === 'delete-request';
    return {
      name: `${resource.type}-${resource.id}-${new Date(startedAt).toISOString().slice(0, 10)}`,
      status,
      fail_reason: status === 'failed' ? pick(this.rng, FAIL_REASONS) : null,
      size: status === 'completed' || status === 'expired' ? randInt(this.rng, 40, 60_000) * 1024 * 1024 + randInt(this.rng, 0, 1_000_000) : 0,
      tags: makeTags(tags),
      started_at: wholeSeconds(startedAt),
      completed_at: done ? this.finishedBy(startedAt + randInt(this.rng, 2, 40) * MINUTE) : null,
      account_id: resource.account_id,
      resource_id: resource.id,
    };
  }

  /** A finish time, never after now (a run ten minutes old with a fifteen-minute duration has not finished). */
  private finishedBy(at: number): number {
    return wholeSeconds(Math.min(at, this.now - 30 * SECOND));
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

    // Active and paused machines: a snapshot at every due run of their schedule (paused ones stopped five runs ago).
    const snapshots: Array<Omit<MachineSnapshotRecord, 'id'>> = [];
    this.own(`${kind} ${name}`, () => {
      if (status === 'inactive') {
        snapshots.push(this.machineSnapshot(machine, this.ago(40), 'expired', ['daily']));
        return;
      }
      const plan: RunPlan = { ...MACHINE_PLANS[name], ...(status === 'paused' ? { missed: range(0, 4) } : {}) };
      for (const run of this.scheduledSnapshots(machine.frequency, machine.run_offset, machine.timezone)) {
        const outcome = outcomeOf(plan, run.k);
        if (outcome === 'missed') continue;
        const snapshotStatus = outcome === 'failed' ? 'failed' : 'completed';
        snapshots.push(this.own(`${name} ${run.at}`, () => this.machineSnapshot(machine, run.at + randInt(this.rng, 0, 90) * SECOND, snapshotStatus, run.tags)));
      }
      if (name === 'web-01') snapshots.push(this.machineSnapshot(machine, this.ago(3.5), 'completed', ['manual']));
    });
    snapshots.sort((a, b) => a.started_at - b.started_at);
    for (const snapshot of snapshots) this.store.machineSnapshots.insert({ id: this.store.machineSnapshots.nextId(), ...snapshot });
  }

  private machineSnapshot(machine: MachineRecord, startedAt: number, status: string, tags: TagName[]): Omit<MachineSnapshotRecord, 'id'> {
    return {
      machine_kind: machine.kind,
      machine_id: machine.id,
      name: `${machine.name}-${new Date(startedAt).toISOString().slice(0, 10)}`,
      status,
      size: status === 'failed' ? 0 : randInt(this.rng, 800, 40_000) * 1024 * 1024,
      tags: makeTags(tags),
      started_at: wholeSeconds(startedAt),
      completed_at: status === 'transferring' ? null : this.finishedBy(startedAt + randInt(this.rng, 1, 25) * MINUTE),
    };
  }

  private compute(spec: DemoJob['compute']): JobCompute {
    if (spec.type !== 'server') return spec;
    const server = this.store.servers.rows.find((s) => s.name === spec.server)!;
    return { type: 'server', server_id: server.id };
  }

  private demoJob(given: DemoJob): void {
    const spec = this.onTheHour ? { ...given, cron: given.cron.replace(/^\d+(?=\s)/, '0') } : given;
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

    this.own(spec.name, () => {
      const every = /^\*\/(\d+)$/.exec(spec.cron.split(/\s+/)[1] ?? '');
      for (const run of this.dueRuns(spec.cron, spec.timezone, every ? Number(every[1]) : 24)) {
        const outcome = outcomeOf(spec.plan, run.k);
        if (outcome === 'missed') continue;
        this.own(`${spec.name} ${run.at}`, () => this.backup(job, run.at + randInt(this.rng, 0, 90) * SECOND, outcome, run.tags));
      }
      if (spec.name === 'shop mysql') this.backup(job, this.ago(3.3), 'completed', ['manual']);
    });
    const newest = this.store.backupsOfJob(job.id).reduce((max, b) => Math.max(max, b.created_at), 0);
    this.store.jobs.patch(job, { last_ran_at: newest || null });
  }

  private backup(job: JobRecord, at: number, status: string, tags: TagName[]): BackupRecord {
    const startedAt = at + randInt(this.rng, 3, 40) * SECOND;
    const completedAt = Math.max(startedAt + 20 * SECOND, this.finishedBy(startedAt + randInt(this.rng, 20, 900) * SECOND));
    const withFiles = status === 'completed' || status === 'completed_with_errors';
    // Drawn in the order they always were: the id, the sealed key, the files.
    const id = uuidFrom(this.rng);
    const sealed = sealBackupKey(this.rng, job);
    return this.store.backups.insert({
      id,
      job_id: job.id,
      status,
      tags: makeTags(tags),
      s3_directory: `backups/${jobSlug(job)}/${fileStamp(at)}`,
      created_at: wholeSeconds(at),
      started_at: wholeSeconds(startedAt),
      completed_at: wholeSeconds(completedAt),
      monitoring_available: true,
      encryption_key: sealed?.encryption_key ?? null,
      files: withFiles ? makeBackupFiles(this.rng, job, at, jobFileSize(job), sealed?.secret) : [],
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
