// The one reader of the fleet for `status` and `report`: jobs and their
// schedules, their backups, droplets and volumes with their snapshot
// schedules, and the snapshot resources with backups activated. Records are
// read through the resources' own zod schemas (leniently, as every list of the
// CLI: a record that does not match is used as received, and --debug says
// so), lists are walked with client.pages, and requests run a few at a time.
import type { Client, Context, QueryValue, RequestSpec } from '../contract/context.js';
import { CliError, ExitCode, InterruptedError } from '../errors.js';
import { NAMED_KINDS, looksLikeId, pickByName } from '../cli/resolve.js';
import { jobSchema } from '../resources/jobs.js';
import { resourceSchema } from '../resources/snapshot-resources.js';
import { snapshotSchema } from '../resources/snapshots.js';
import { schemas as dropletSchemas } from '../resources/droplets.js';
import { schemas as volumeSchemas } from '../resources/volumes.js';
import { scheduleBasis, type ScheduleBasis } from '../util/schedule-basis.js';

/** Requests in flight at once: enough to hide latency, few enough not to meet the rate limit. */
export const CONCURRENCY = 6;

/** Schedule statuses under which nothing runs, so there is no next run to show. */
export const STOPPED_SCHEDULE = new Set(['paused', 'inactive', 'disabled', 'stopped']);
/** Droplet and volume statuses without a snapshot schedule. */
export const NOT_SCHEDULED = new Set(['inactive', 'destroyed']);


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

/** A section of the fleet that could not be read, and why (status --check fails on it: its own kind). */
export interface UnreadSection {
  section: string;
  reason: string;
}

/**
 * Droplets, volumes and resources are extras: when one cannot be read, say so, show the rest, and
 * add it to `unread` (status --check fails on a section it could not read: never silently).
 */
export async function section<T>(ctx: Context, r: Reader, what: string, read: () => Promise<T>, unread?: UnreadSection[]): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    // Interrupted, or stopped because the jobs failed: that failure is the one to report.
    if (err instanceof InterruptedError || r.signal.aborted) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    ctx.warn(`could not read ${what}: ${reason}`);
    unread?.push({ section: what, reason: reason.split('\n')[0]! });
    return null;
  }
}


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


export function backupsPath(jobId: string): string {
  return `/jobs/${encodeURIComponent(jobId)}/backups`;
}


// ---------------------------------------------------------------------------
// Records through the resources' schemas

interface SafeParser {
  safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

/**
 * A record as its resource's schema reads it; one that does not match is used as received
 * (the accessors below read what they can), and --debug says so once per kind.
 */
function through(schema: SafeParser, name: string, ctx: Pick<Context, 'globals' | 'warn'> | undefined): (r: Rec) => Rec {
  let warned = false;
  return (record) => {
    const parsed = schema.safeParse(record);
    if (parsed.success) return parsed.data as Rec;
    if (ctx?.globals.debug && !warned) {
      warned = true;
      const issue = parsed.error.issues[0];
      ctx.warn(`a ${name} record did not match its schema (${issue?.path.join('.') || 'record'}: ${issue?.message}); read as received`);
    }
    return record;
  };
}

export interface FleetReader extends Reader {
  ctx?: Pick<Context, 'globals' | 'warn'>;
}

/** Every job (all pages), through the jobs' schema. */
export async function readJobs(r: FleetReader): Promise<Rec[]> {
  return (await listAll(r, JOBS_LIST)).map(through(jobSchema as SafeParser, 'job', r.ctx));
}

export const JOBS_LIST: RequestSpec = { method: 'GET', path: '/jobs', query: { page_size: 100 } };

/** A job record as the jobs' schema reads it (for a job met page by page). */
export function jobRecord(r: FleetReader): (job: Rec) => Rec {
  return through(jobSchema as SafeParser, 'job', r.ctx);
}

/** One schedule of a job, as both commands read it. */
export interface FleetSchedule {
  id: number | string | null;
  /** Trimmed; null when absent or empty. */
  cron: string | null;
  /** Trimmed; null when absent (the caller picks its default). */
  timezone: string | null;
  status: string | null;
  /** Lower-cased status when it stops the schedule (paused, inactive, disabled, stopped). */
  stopped: string | undefined;
  run_offset: number | null;
  /** When the schedule was last changed, when its record says (the interface's does not). */
  updated_at: unknown;
  /** What its runs come from: its cron, or its frequency + run_offset (issue 30 §2, fleet/runs.ts). */
  basis: ScheduleBasis;
}

/** The schedules of a job record (`schedule`, or `schedules` as some answers name it). */
export function jobSchedules(job: Rec): FleetSchedule[] {
  const list = Array.isArray(job.schedule) ? job.schedule : Array.isArray(job.schedules) ? job.schedules : [];
  return list
    .map(obj)
    .filter((s): s is Rec => s !== undefined)
    .map((s) => {
      const status = str(s.status);
      return {
        id: typeof s.id === 'number' || typeof s.id === 'string' ? s.id : null,
        cron: str(s.cron)?.trim() || null,
        timezone: str(s.timezone)?.trim() || null,
        status,
        stopped: status !== null && STOPPED_SCHEDULE.has(status.toLowerCase()) ? status.toLowerCase() : undefined,
        run_offset: num(s.run_offset),
        updated_at: s.updated_at,
        basis: scheduleBasis(s),
      };
    });
}

/** Droplets or volumes that have a snapshot schedule (not inactive or destroyed), through their schema. */
export async function readScheduledMachines(r: FleetReader, kind: 'droplets' | 'volumes'): Promise<Rec[]> {
  const schema = (kind === 'droplets' ? dropletSchemas.droplet : volumeSchemas.volume) as SafeParser;
  const all = (await listAll(r, { method: 'GET', path: `/cloud_i/${kind}`, query: { page_size: 100 } })).map(through(schema, kind.slice(0, -1), r.ctx));
  return all.filter((m) => !NOT_SCHEDULED.has(String(m.status ?? '').toLowerCase()));
}

export function machineSnapshotsPath(kind: 'droplets' | 'volumes', id: unknown): string {
  return `/cloud_i/${kind}/${encodeURIComponent(String(id))}/snapshots`;
}

/** Snapshot resources with backups activated, through their schema. */
export async function readActivatedResources(r: FleetReader): Promise<Rec[]> {
  const all = (await listAll(r, { method: 'GET', path: '/snapshots/resources', query: { page_size: 100 } })).map(through(resourceSchema as SafeParser, 'snapshot resource', r.ctx));
  return all.filter((x) => truthy(x.backups_activated));
}

/** A resource's schedule, when the service sends one (at the top of the record or under `schedule`). */
export function resourceSchedule(x: Rec): { frequency: unknown; run_offset: unknown; timezone: unknown } {
  const schedule = obj(x.schedule) ?? {};
  return { frequency: x.frequency ?? schedule.frequency, run_offset: x.run_offset ?? schedule.run_offset, timezone: x.timezone ?? schedule.timezone };
}

export function resourceProvider(x: Rec): string | null {
  return str(obj(x.provider)?.pretty_name) ?? str(obj(x.provider)?.name);
}

export function resourceAccount(x: Rec): string | null {
  return str(obj(x.credentials)?.name);
}

/** The resource a snapshot of the account-wide list belongs to. */
export function snapshotResourceId(s: Rec): unknown {
  return obj(s.resource)?.id ?? s.resource_id;
}

/**
 * The account-wide snapshot list, page by page through client.pages, each page's records
 * through the snapshots' schema; `visit` returns false to stop, and at most `maxPages` are read.
 */
export async function walkSnapshots(r: FleetReader, query: Record<string, QueryValue>, maxPages: number, visit: (page: Rec[]) => boolean): Promise<void> {
  const read = through(snapshotSchema as SafeParser, 'snapshot', r.ctx);
  await r.limit(async () => {
    let pages = 0;
    for await (const page of r.client.pages({ method: 'GET', path: '/snapshots', query }, { all: true, signal: r.signal })) {
      const records = page.records.filter((x): x is Rec => obj(x) !== undefined).map(read);
      const more = records.length > 0 && visit(records);
      if (!more || ++pages >= maxPages) break;
    }
  });
}

/** Every snapshot of the account-wide list started from `startedSince` on (all pages). */
export async function snapshotsStartedSince(r: FleetReader, startedSince: string): Promise<Rec[]> {
  const read = through(snapshotSchema as SafeParser, 'snapshot', r.ctx);
  return (await listAll(r, { method: 'GET', path: '/snapshots', query: { started_since: startedSince, sort: 'started_at', page_size: 100 } })).map(read);
}
