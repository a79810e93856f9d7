// Reads what `status` shows: every job with its newest backups, and the
// droplets, volumes and snapshot resources that take snapshots. Requests run
// a few at a time; one spinner says how far it got.
import type { Context, RequestSpec } from '../contract/context.js';
import { ApiError, UsageError } from '../errors.js';
import { nextPageQuery } from '../http/paging.js';
import {
  CONCURRENCY,
  NOT_SCHEDULED,
  STOPPED_SCHEDULE,
  backupsPath,
  chooseJobs,
  get,
  limiter,
  listAll,
  num,
  obj,
  records,
  section,
  str,
  truthy,
  type Reader,
  type Rec,
  JOBS_LIST,
  jobRecord,
  jobSchedules,
  machineSnapshotsPath,
  readActivatedResources,
  readJobs,
  readScheduledMachines,
  resourceAccount,
  resourceProvider,
  resourceSchedule,
  snapshotResourceId,
  walkSnapshots,
  type FleetReader,
  type UnreadSection,
} from '../fleet/reader.js';
import type { CronTools } from '../fleet/schedule.js';
import { NO_MARKS, type FleetMarks } from '../fleet/marks.js';
import { anomalyWarning, type FleetAnomalies } from '../fleet/anomalies.js';
import { DEFAULT_TIMEZONE, scheduleInterval } from '../fleet/schedule.js';
import { isSuccess as isSuccessful, successStatuses } from '../backups/status.js';
import { newestBackupsRequest, newestSuccess, newestSuccessRequests } from '../backups/newest.js';
import { nextScheduleRun } from '../fleet/runs.js';
import {
  compareJobs,
  frequencyHours,
  snapshotHealth,
  judge,
  maxAgeFor,
  snapshotSummaryOf,
  type BackupLike,
  type JobStatus,
  type MachineStatus,
  type MaxAgeRules,
  type ResourceStatus,
  type ScheduleStatus,
  type StatusDocument,
} from './document.js';
import { isSuccess } from '../backups/status.js';
import { newestFirst } from '../backups/newest.js';

/** The page of newest backups per job: the strip's 10 and a few more to find a success in. */
const BACKUP_PAGE = 15;
/** How far back the snapshot list is walked for activated resources (pages of 100). */
const SNAPSHOT_PAGES = 10;
export interface CollectOptions {
  /** --job: ids or names; empty for every job. */
  jobs: readonly string[];
  /** Read droplets, volumes and resources too (the table and --json show them). */
  sections: boolean;
  maxAges: MaxAgeRules;
  allowErrors: boolean;
  now: number;
  tools: CronTools;
  /** The verify and restore-test marks of this service's backups on this machine; none when absent. */
  marks?: FleetMarks;
  /** What `anomalies` finds in the catalog for each job; none when absent. */
  anomalies?: FleetAnomalies;
}

export async function collectStatus(ctx: Context, opts: CollectOptions): Promise<StatusDocument> {
  const client = await ctx.client();
  // The first failure that ends the run stops the requests still queued.
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  const limit = limiter(CONCURRENCY);
  const spinner = ctx.spinner('Reading jobs…');
  const reader: FleetReader = { client, signal, limit, ctx };
  const unread: UnreadSection[] = [];
  try {
    const side = opts.sections
      ? {
          droplets: section(ctx, reader, 'droplets', () => machines(reader, 'droplets', opts.now), unread),
          volumes: section(ctx, reader, 'volumes', () => machines(reader, 'volumes', opts.now), unread),
          resources: section(ctx, reader, 'snapshot resources', () => resources(reader, opts.now), unread),
        }
      : undefined;
    // Awaited below; when the jobs fail first, their end must not surface as an unhandled rejection.
    for (const p of Object.values(side ?? {})) p.catch(() => {});
    let jobs: Array<JobStatus | undefined>;
    if (opts.jobs.length) {
      // --job names are matched against every job (a name must be unique): read them all first.
      const all = await readJobs(reader);
      const chosen = chooseJobs(all, opts.jobs);
      checkMaxAgeNames(knownJobs(all), opts.maxAges);
      let done = 0;
      spinner.update(`Reading backups: 0/${chosen.length} jobs…`);
      jobs = await Promise.all(
        chosen.map(async (job) => {
          const status = await jobStatus(reader, job, opts);
          spinner.update(`Reading backups: ${++done}/${chosen.length} jobs…`);
          return status;
        }),
      );
    } else {
      jobs = await everyJobStatus(reader, JOBS_LIST, opts, (done, seen) => spinner.update(`Reading backups: ${done}/${seen} jobs…`));
    }
    const present = jobs.filter((j): j is JobStatus => j !== undefined).sort(compareJobs);
    const summary = { failing: 0, stale: 0, healthy: 0, unknown: 0 };
    for (const j of present) summary[j.health]++;
    const [droplets, volumes, activated] = side ? await Promise.all([side.droplets, side.volumes, side.resources]) : [null, null, null];
    const snapshotted = [...(droplets ?? []), ...(volumes ?? []), ...(activated ?? [])];
    let snapshot_summary: StatusDocument['snapshot_summary'] = null;
    if (droplets || volumes || activated) {
      snapshot_summary = { failing: 0, stale: 0, healthy: 0, unknown: 0 };
      for (const m of snapshotted) snapshot_summary[m.health]++;
    }
    return {
      generated_at: new Date(opts.now).toISOString(),
      allow_errors: opts.allowErrors,
      summary,
      snapshot_summary,
      jobs: present,
      droplets,
      volumes,
      resources: activated,
      unread: ['droplets', 'volumes', 'snapshot resources'].flatMap((what) => unread.filter((u) => u.section === what)),
    };
  } catch (err) {
    stop.abort(err);
    throw err;
  } finally {
    spinner.stop();
  }
}

// ---------------------------------------------------------------------------
// Jobs

/**
 * Every job's status, read as the pages of the job list arrive: a page's jobs are handed
 * to jobStatus and the page is dropped, so memory holds the statuses, not every record
 * of the walk (a service claiming a billion pages is cut by the client's page cap). At
 * most a few pages of jobs wait for their backups at a time.
 */
async function everyJobStatus(
  r: FleetReader,
  req: RequestSpec,
  opts: CollectOptions,
  progress: (done: number, seen: number) => void,
): Promise<Array<JobStatus | undefined>> {
  const statuses: Array<Promise<JobStatus | undefined>> = [];
  const pending = new Set<Promise<void>>();
  const known = new Set<unknown>();
  let failure: { err: unknown } | undefined;
  let done = 0;
  const read = jobRecord(r);
  for await (const page of r.client.pages(req, { all: true, signal: r.signal })) {
    for (const job of page.records) {
      const raw = obj(job);
      if (raw === undefined) continue;
      const rec = read(raw);
      known.add(rec.id);
      known.add(rec.name);
      const status = jobStatus(r, rec, opts);
      statuses.push(status);
      const settled: Promise<void> = status.then(
        () => progress(++done, statuses.length),
        (err: unknown) => void (failure ??= { err }),
      );
      pending.add(settled);
      void settled.then(() => pending.delete(settled));
    }
    progress(done, statuses.length);
    // At most a few pages of jobs wait for their backups; a failure ends the run now, not after the walk.
    while (pending.size > JOBS_WAITING && !failure) await Promise.race(pending);
    if (failure) throw failure.err;
  }
  checkMaxAgeNames((name) => known.has(name), opts.maxAges);
  return Promise.all(statuses);
}

/** Jobs whose backups are being read or wait for a slot, at most (four pages of 100). */
const JOBS_WAITING = 400;

function knownJobs(all: Rec[]): (name: string) => boolean {
  return (name) => all.some((j) => j.id === name || j.name === name);
}

/** A `--max-age <job>=...` naming no job is a typo that would silently check nothing. */
function checkMaxAgeNames(known: (name: string) => boolean, rules: MaxAgeRules): void {
  for (const rule of rules.perJob) {
    if (!known(rule.job)) {
      throw new UsageError(`invalid value "${rule.job}=${rule.text}" for --max-age: no job has the id or name "${rule.job}"`);
    }
  }
}

async function jobStatus(r: Reader, job: Rec, opts: CollectOptions): Promise<JobStatus | undefined> {
  const id = String(job.id ?? '');
  const query = newestBackupsRequest(id, { pageSize: BACKUP_PAGE }).query!;
  let recent: Rec[];
  let lastSuccess: BackupLike | undefined;
  try {
    const body = await get(r, backupsPath(id), query);
    recent = records(body);
    const morePages = nextPageQuery(query, body, recent.length) !== undefined;
    if (morePages && !recent.some((b) => isSuccess(str(b.status), opts.allowErrors))) {
      // The newest success is older than the page: ask for it by status (src/backups/newest.ts).
      const found = await Promise.all(newestSuccessRequests(id, opts.allowErrors, BACKUP_PAGE).map(async (req) => records(await get(r, backupsPath(id), req.query!))[0]));
      lastSuccess = newestSuccess(found.filter((b): b is Rec => b !== undefined), opts.allowErrors);
    }
  } catch (err) {
    // Deleted between the list and now: it has no status any more.
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
  const schedules = schedulesOf(job, opts);
  // The runs as the service defines them: frequency + run_offset when the schedule has a frequency (src/fleet/runs.ts), else its cron.
  const interval = scheduleInterval(jobSchedules(job).map((s) => ({ ...s, cron: s.basis.cron })), opts.tools, opts.now);
  const maxAge = maxAgeFor(opts.maxAges, { id, name: str(job.name) }, interval);
  const judged = judge({ recent, lastSuccess, jobCreatedAt: job.created_at, maxAgeMs: maxAge.ms, allowErrors: opts.allowErrors, now: opts.now });
  const nextRuns = schedules.map((s) => s.next_run).filter((t): t is string => t !== null).sort();
  // The newest completed backup is judged by its own marks: a failed one makes the job failing, whatever its records say.
  const marks = (opts.marks ?? NO_MARKS).forJob(id, judged.last_completed?.id ?? null, opts.now, maxAge.ms);
  if (marks.failed) judged.health = 'failing';
  // The anomalies of its backups in the catalog (issue 33): one not acknowledged is a warning, as an unchecked mark is.
  const anomalies = (await opts.anomalies?.forJob(id)) ?? null;
  const anomaly = anomalyWarning(anomalies);
  return {
    id,
    name: str(job.name),
    compute: computeOf(job),
    schedules,
    next_run: nextRuns[0] ?? null,
    ...judged,
    max_age_seconds: Math.round(maxAge.ms / 1000),
    max_age_from: maxAge.from,
    storage: (Array.isArray(job.storage) ? job.storage : [])
      .map(obj)
      .filter((s): s is Rec => s !== undefined)
      .map((s) => str(s.name) ?? String(s.id ?? '')),
    verify: marks.verify,
    restore_test: marks.restore_test,
    anomalies,
    warnings: anomaly ? [...marks.warnings, anomaly] : marks.warnings,
  };
}

function schedulesOf(job: Rec, opts: CollectOptions): ScheduleStatus[] {
  return jobSchedules(job).map((s) => {
    const timezone = s.timezone ?? DEFAULT_TIMEZONE;
    return {
      id: num(s.id),
      cron: s.cron,
      timezone,
      status: s.status,
      // From its frequency + run_offset when it has one, else its cron (fleet/runs.ts, issue 30 §2).
      words: s.basis.cron === null ? null : (opts.tools.words(s.basis.cron, timezone) ?? null),
      next_run: s.basis.cron === null || s.stopped ? null : (nextScheduleRun({ cron: s.basis.cron, timezone }, new Date(opts.now), opts.tools)?.toISOString() ?? null),
    };
  });
}

function computeOf(job: Rec): JobStatus['compute'] {
  const compute = obj(job.compute) ?? {};
  const server = obj(compute.server);
  return {
    type: str(compute.type) ?? str(job.compute_type),
    server_id: num(compute.server_id) ?? num(server?.id),
    server_name: str(server?.name),
    host: str(server?.host),
    region: str(compute.region),
  };
}

// ---------------------------------------------------------------------------
// Droplets, volumes, resources

async function machines(r: FleetReader, kind: 'droplets' | 'volumes', now: number): Promise<MachineStatus[]> {
  const scheduled = await readScheduledMachines(r, kind);
  return Promise.all(
    scheduled.map(async (m) => {
      const path = machineSnapshotsPath(kind, m.id);
      const query = { sort: '-started_at', page_size: BACKUP_PAGE };
      const body = await get(r, path, query);
      const snapshots = newestFirst(records(body), 'started_at');
      let completed = snapshots.find((s) => isSuccessful(str(s.status)));
      if (!completed && nextPageQuery(query, body, snapshots.length) !== undefined) {
        completed = records(await get(r, path, { status: 'completed', sort: '-started_at', page_size: BACKUP_PAGE }))[0];
      }
      const seen = {
        newest: snapshots[0] ? snapshotSummaryOf(snapshots[0], now) : null,
        last_completed: completed ? snapshotSummaryOf(completed, now) : null,
      };
      return {
        id: typeof m.id === 'number' ? m.id : String(m.id ?? ''),
        name: str(m.name),
        status: str(m.status),
        frequency_hours: num(m.frequency),
        timezone: str(m.timezone),
        ...seen,
        ...snapshotHealth(seen, frequencyHours(num(m.frequency))),
      };
    }),
  );
}

/**
 * Resources have no snapshot list of their own: the account-wide list,
 * newest first, is walked until every activated resource has its newest
 * snapshot and its newest completed one, or SNAPSHOT_PAGES pages were read.
 */
async function resources(r: FleetReader, now: number): Promise<ResourceStatus[]> {
  const activated = await readActivatedResources(r);
  const newest = new Map<unknown, Rec>();
  const completed = new Map<unknown, Rec>();
  const missing = () => activated.some((x) => !newest.has(x.id) || !completed.has(x.id));
  if (activated.length) {
    await walkSnapshots(r, { sort: '-started_at', page_size: 100 }, SNAPSHOT_PAGES, (page) => {
      for (const snap of newestFirst(page, 'started_at')) {
        const rid = snapshotResourceId(snap);
        if (!newest.has(rid)) newest.set(rid, snap);
        if (isSuccessful(str(snap.status)) && !completed.has(rid)) completed.set(rid, snap);
      }
      return missing();
    });
  }
  return activated.map((x) => {
    const { frequency } = resourceSchedule(x);
    const n = newest.get(x.id);
    const c = completed.get(x.id);
    const freq = typeof frequency === 'string' || typeof frequency === 'number' ? frequency : null;
    const seen = { newest: n ? snapshotSummaryOf(n, now) : null, last_completed: c ? snapshotSummaryOf(c, now) : null };
    return {
      id: num(x.id) ?? 0,
      type: str(x.type),
      provider: resourceProvider(x),
      account: resourceAccount(x),
      last_known_ip: str(x.last_known_ip),
      frequency: freq,
      ...seen,
      ...snapshotHealth(seen, frequencyHours(freq)),
    };
  });
}
