// Reads what `status` shows: every job with its newest backups, and the
// droplets, volumes and snapshot resources that take snapshots. Requests run
// a few at a time; one spinner says how far it got.
import type { Client, Context, QueryValue, RequestSpec } from '../cli/types.js';
import { ApiError, CliError, ExitCode, InterruptedError, UsageError } from '../errors.js';
import { nextPageQuery } from '../http/paging.js';
import { NAMED_KINDS, looksLikeId, pickByName } from '../cli/resolve.js';
import type { CronTools } from './schedule.js';
import type { JobMarksByJob } from '../fleet/marks.js';
import { DEFAULT_TIMEZONE } from './schedule.js';
import {
  compareJobs,
  isSuccess,
  judge,
  maxAgeFor,
  newestFirst,
  snapshotSummaryOf,
  type BackupLike,
  type JobStatus,
  type MachineStatus,
  type MaxAgeRules,
  type ResourceStatus,
  type ScheduleStatus,
  type StatusDocument,
} from './model.js';

/** Requests in flight at once: enough to hide latency, few enough not to meet the rate limit. */
export const CONCURRENCY = 6;
/** The page of newest backups per job: the strip's 10 and a few more to find a success in. */
const BACKUP_PAGE = 15;
/** How far back the snapshot list is walked for activated resources (pages of 100). */
const SNAPSHOT_PAGES = 10;
/** Schedule statuses under which nothing runs, so there is no next run to show. */
export const STOPPED_SCHEDULE = new Set(['paused', 'inactive', 'disabled', 'stopped']);
/** Droplet and volume statuses without a snapshot schedule. */
export const NOT_SCHEDULED = new Set(['inactive', 'destroyed']);

export interface CollectOptions {
  /** --job: ids or names; empty for every job. */
  jobs: readonly string[];
  /** Read droplets, volumes and resources too (the table and --json show them). */
  sections: boolean;
  maxAges: MaxAgeRules;
  allowErrors: boolean;
  now: number;
  tools: CronTools;
  /** Each job's last verify and restore test on this machine; none when absent. */
  marks?: JobMarksByJob;
}

export type Rec = Record<string, unknown>;

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const obj = (v: unknown): Rec | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);
export const records = (body: unknown): Rec[] => {
  const data = obj(body)?.data;
  return Array.isArray(data) ? data.filter((r): r is Rec => obj(r) !== undefined) : [];
};
export const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 'true';

/** Runs at most `max` tasks at once; a finishing task hands its slot straight to the next waiting one. */
export function limiter(max: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (active < max) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

export async function collectStatus(ctx: Context, opts: CollectOptions): Promise<StatusDocument> {
  const client = await ctx.client();
  // The first failure that ends the run stops the requests still queued.
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  const limit = limiter(CONCURRENCY);
  const spinner = ctx.spinner('Reading jobs…');
  const reader: Reader = { client, signal, limit };
  try {
    const side = opts.sections
      ? {
          droplets: section(ctx, reader, 'droplets', () => machines(reader, 'droplets', opts.now)),
          volumes: section(ctx, reader, 'volumes', () => machines(reader, 'volumes', opts.now)),
          resources: section(ctx, reader, 'snapshot resources', () => resources(reader, opts.now)),
        }
      : undefined;
    // Awaited below; when the jobs fail first, their end must not surface as an unhandled rejection.
    for (const p of Object.values(side ?? {})) p.catch(() => {});
    const jobsList: RequestSpec = { method: 'GET', path: '/jobs', query: { page_size: 100 } };
    let jobs: Array<JobStatus | undefined>;
    if (opts.jobs.length) {
      // --job names are matched against every job (a name must be unique): read them all first.
      const all = await listAll(reader, jobsList);
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
      jobs = await everyJobStatus(reader, jobsList, opts, (done, seen) => spinner.update(`Reading backups: ${done}/${seen} jobs…`));
    }
    const present = jobs.filter((j): j is JobStatus => j !== undefined).sort(compareJobs);
    const summary = { failing: 0, stale: 0, healthy: 0, unknown: 0 };
    for (const j of present) summary[j.health]++;
    return {
      generated_at: new Date(opts.now).toISOString(),
      allow_errors: opts.allowErrors,
      summary,
      jobs: present,
      droplets: side ? await side.droplets : null,
      volumes: side ? await side.volumes : null,
      resources: side ? await side.resources : null,
    };
  } catch (err) {
    stop.abort(err);
    throw err;
  } finally {
    spinner.stop();
  }
}

export interface Reader {
  client: Client;
  signal: AbortSignal;
  limit: <T>(task: () => Promise<T>) => Promise<T>;
}

export function get(r: Reader, path: string, query: Record<string, QueryValue>): Promise<unknown> {
  return r.limit(async () => {
    r.signal.throwIfAborted();
    return (await r.client.request({ method: 'GET', path, query }, { signal: r.signal })).body;
  });
}

export async function listAll(r: Reader, req: RequestSpec): Promise<Rec[]> {
  return r.limit(async () => {
    const out: Rec[] = [];
    for await (const page of r.client.pages(req, { all: true, signal: r.signal })) {
      out.push(...page.records.filter((x): x is Rec => obj(x) !== undefined));
    }
    return out;
  });
}

/** Droplets, volumes and resources are extras: when one cannot be read, say so and show the rest. */
export async function section<T>(ctx: Context, r: Reader, what: string, read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    // Interrupted, or stopped because the jobs failed: that failure is the one to report.
    if (err instanceof InterruptedError || r.signal.aborted) throw err;
    ctx.warn(`could not read ${what}: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
}

// ---------------------------------------------------------------------------
// Jobs

/** --job: an id, or a name matched as everywhere else (src/cli/resolve.ts), against the jobs already read. */
export function chooseJobs(all: Rec[], wanted: readonly string[]): Rec[] {
  if (!wanted.length) return all;
  const chosen = new Set<Rec>();
  for (const w of wanted) {
    const byId = looksLikeId('jobs', w) ? all.find((j) => j.id === w.trim()) : undefined;
    if (looksLikeId('jobs', w) && !byId) throw new CliError(`no job with the id "${w}"`, ExitCode.notFound, [`  See ${NAMED_KINDS.jobs.listCommand}.`]);
    chosen.add(byId ?? pickByName(all, w, 'jobs', '--job'));
  }
  return all.filter((j) => chosen.has(j));
}

/**
 * Every job's status, read as the pages of the job list arrive: a page's jobs are handed
 * to jobStatus and the page is dropped, so memory holds the statuses, not every record
 * of the walk (a service claiming a billion pages is cut by the client's page cap). At
 * most a few pages of jobs wait for their backups at a time.
 */
async function everyJobStatus(
  r: Reader,
  req: RequestSpec,
  opts: CollectOptions,
  progress: (done: number, seen: number) => void,
): Promise<Array<JobStatus | undefined>> {
  const statuses: Array<Promise<JobStatus | undefined>> = [];
  const pending = new Set<Promise<void>>();
  const known = new Set<unknown>();
  let failure: { err: unknown } | undefined;
  let done = 0;
  for await (const page of r.client.pages(req, { all: true, signal: r.signal })) {
    for (const job of page.records) {
      const rec = obj(job);
      if (rec === undefined) continue;
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

export function backupsPath(jobId: string): string {
  return `/jobs/${encodeURIComponent(jobId)}/backups`;
}

async function jobStatus(r: Reader, job: Rec, opts: CollectOptions): Promise<JobStatus | undefined> {
  const id = String(job.id ?? '');
  const query = { sort: '-created_at', page_size: BACKUP_PAGE };
  let recent: Rec[];
  let lastSuccess: BackupLike | undefined;
  try {
    const body = await get(r, backupsPath(id), query);
    recent = records(body);
    const morePages = nextPageQuery(query, body, recent.length) !== undefined;
    if (morePages && !recent.some((b) => isSuccess(str(b.status), opts.allowErrors))) {
      // The newest success is older than the page: ask for it by status.
      const statuses = opts.allowErrors ? ['completed', 'completed_with_errors'] : ['completed'];
      const found = await Promise.all(
        statuses.map(async (status) => records(await get(r, backupsPath(id), { status, sort: '-created_at', page_size: BACKUP_PAGE }))[0]),
      );
      lastSuccess = newestFirst(found.filter((b): b is Rec => b !== undefined), 'created_at')[0];
    }
  } catch (err) {
    // Deleted between the list and now: it has no status any more.
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
  const maxAgeMs = maxAgeFor(opts.maxAges, { id, name: str(job.name) });
  const judged = judge({ recent, lastSuccess, jobCreatedAt: job.created_at, maxAgeMs, allowErrors: opts.allowErrors, now: opts.now });
  const schedules = schedulesOf(job, opts);
  const nextRuns = schedules.map((s) => s.next_run).filter((t): t is string => t !== null).sort();
  const verify = opts.marks?.verify(id) ?? null;
  // The health tools agree: a job whose bytes failed their last verify is not healthy, whatever its records say.
  if (verify?.verdict === 'failed') judged.health = 'failing';
  return {
    id,
    name: str(job.name),
    compute: computeOf(job),
    schedules,
    next_run: nextRuns[0] ?? null,
    ...judged,
    max_age_seconds: Math.round(maxAgeMs / 1000),
    storage: (Array.isArray(job.storage) ? job.storage : [])
      .map(obj)
      .filter((s): s is Rec => s !== undefined)
      .map((s) => str(s.name) ?? String(s.id ?? '')),
    verify,
    restore_test: opts.marks?.restoreTest(id) ?? null,
  };
}

function schedulesOf(job: Rec, opts: CollectOptions): ScheduleStatus[] {
  const list = Array.isArray(job.schedule) ? job.schedule : Array.isArray(job.schedules) ? job.schedules : [];
  return list
    .map(obj)
    .filter((s): s is Rec => s !== undefined)
    .map((s) => {
      const cron = str(s.cron)?.trim() || null;
      const timezone = str(s.timezone)?.trim() || DEFAULT_TIMEZONE;
      const status = str(s.status);
      const stopped = status !== null && STOPPED_SCHEDULE.has(status.toLowerCase());
      return {
        id: num(s.id),
        cron,
        timezone,
        status,
        words: cron === null ? null : (opts.tools.words(cron, timezone) ?? null),
        next_run: cron === null || stopped ? null : (opts.tools.nextRun(cron, timezone, new Date(opts.now))?.toISOString() ?? null),
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

async function machines(r: Reader, kind: 'droplets' | 'volumes', now: number): Promise<MachineStatus[]> {
  const all = await listAll(r, { method: 'GET', path: `/cloud_i/${kind}`, query: { page_size: 100 } });
  const scheduled = all.filter((m) => !NOT_SCHEDULED.has(String(m.status ?? '').toLowerCase()));
  return Promise.all(
    scheduled.map(async (m) => {
      const path = `/cloud_i/${kind}/${encodeURIComponent(String(m.id))}/snapshots`;
      const query = { sort: '-started_at', page_size: BACKUP_PAGE };
      const body = await get(r, path, query);
      const snapshots = newestFirst(records(body), 'started_at');
      let completed = snapshots.find((s) => s.status === 'completed');
      if (!completed && nextPageQuery(query, body, snapshots.length) !== undefined) {
        completed = records(await get(r, path, { status: 'completed', sort: '-started_at', page_size: BACKUP_PAGE }))[0];
      }
      return {
        id: typeof m.id === 'number' ? m.id : String(m.id ?? ''),
        name: str(m.name),
        status: str(m.status),
        frequency_hours: num(m.frequency),
        timezone: str(m.timezone),
        newest: snapshots[0] ? snapshotSummaryOf(snapshots[0], now) : null,
        last_completed: completed ? snapshotSummaryOf(completed, now) : null,
      };
    }),
  );
}

/**
 * Resources have no snapshot list of their own: the account-wide list,
 * newest first, is walked until every activated resource has its newest
 * snapshot and its newest completed one, or SNAPSHOT_PAGES pages were read.
 */
async function resources(r: Reader, now: number): Promise<ResourceStatus[]> {
  const all = await listAll(r, { method: 'GET', path: '/snapshots/resources', query: { page_size: 100 } });
  const activated = all.filter((x) => truthy(x.backups_activated));
  const newest = new Map<unknown, Rec>();
  const completed = new Map<unknown, Rec>();
  const missing = () => activated.some((x) => !newest.has(x.id) || !completed.has(x.id));
  let query: Record<string, QueryValue> | undefined = { sort: '-started_at', page_size: 100 };
  for (let page = 0; query && page < SNAPSHOT_PAGES && activated.length && missing(); page++) {
    const body = await get(r, '/snapshots', query);
    const snapshots = newestFirst(records(body), 'started_at');
    for (const s of snapshots) {
      const rid = obj(s.resource)?.id ?? s.resource_id;
      if (!newest.has(rid)) newest.set(rid, s);
      if (s.status === 'completed' && !completed.has(rid)) completed.set(rid, s);
    }
    query = snapshots.length ? nextPageQuery(query, body, snapshots.length) : undefined;
  }
  return activated.map((x) => {
    const schedule = obj(x.schedule);
    const frequency = x.frequency ?? schedule?.frequency;
    const n = newest.get(x.id);
    const c = completed.get(x.id);
    return {
      id: num(x.id) ?? 0,
      type: str(x.type),
      provider: str(obj(x.provider)?.pretty_name) ?? str(obj(x.provider)?.name),
      account: str(obj(x.credentials)?.name),
      last_known_ip: str(x.last_known_ip),
      frequency: typeof frequency === 'string' || typeof frequency === 'number' ? frequency : null,
      newest: n ? snapshotSummaryOf(n, now) : null,
      last_completed: c ? snapshotSummaryOf(c, now) : null,
    };
  });
}
