// Reads what `report` needs: every job with its schedules and the backups
// started in the window (and a grace either side), the droplets and volumes
// with their snapshot schedules and snapshots, and the snapshot resources with
// backups activated. The same reader as `status` (a few requests at a time,
// the first failure stops the rest); the arithmetic is in compute.ts.
import type { Context, QueryValue } from '../contract/context.js';
import { ApiError } from '../errors.js';
import {
  CONCURRENCY,
  backupsPath,
  chooseJobs,
  get,
  jobSchedules,
  limiter,
  listAll,
  machineSnapshotsPath,
  obj,
  readActivatedResources,
  readJobs,
  readScheduledMachines,
  records,
  resourceAccount,
  resourceProvider,
  resourceSchedule,
  section,
  snapshotResourceId,
  snapshotsStartedSince,
  str,
  truthy,
  type FleetReader,
  type Rec,
} from '../fleet/reader.js';
import { DEFAULT_TIMEZONE, type CronTools } from '../fleet/schedule.js';
import { parseServiceTime } from '../util/time.js';
import { parseStatedSize } from '../util/stated-size.js';
import { isSuccess } from '../backups/status.js';
import { newestBackupsRequest, newestSuccessRequests } from '../backups/newest.js';
import { buildEntry, totalsOf, type AttemptInput, type ReportWindow, type ScheduleInput } from './compute.js';
import { snapshotScheduleCron } from '../util/snapshot-cron.js';
import { REPORT_RULES, type EntryKind, type ReportDocument, type ReportEntry } from './document.js';
import { NO_MARKS, type FleetMarks } from '../fleet/marks.js';
import type { FleetAnomalies } from '../fleet/anomalies.js';
import { lastChangeOf, timingOf } from '../fleet/timing.js';
import type { TimingsState as ScheduleTimings } from '../state/schedule-timing.js';

export interface ReportOptions {
  /** --job: ids or names; empty for every job. */
  jobs: readonly string[];
  /** Read droplets, volumes and resources too (not with --job). */
  sections: boolean;
  window: ReportWindow;
  tools: CronTools;
  /** The verify and restore-test marks of this service's backups on this machine (none when absent). */
  marks?: FleetMarks;
  /** What `anomalies` finds in the catalog for each job's backups of the window (none when absent). */
  anomalies?: FleetAnomalies;
  /** What this machine saw of each job's schedule timing (fleet/timing.ts): an edit of something else is no schedule change. */
  timings?: ScheduleTimings | null;
  /** --check's thresholds, for the document. */
  check?: { maxMissed: number; minSuccess: number | null } | undefined;
}


export async function collectReport(ctx: Context, opts: ReportOptions): Promise<ReportDocument> {
  const client = await ctx.client();
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  const reader: FleetReader = { client, signal, limit: limiter(CONCURRENCY), ctx };
  const spinner = ctx.spinner('Reading jobs…');
  const { window } = opts;
  const startedSince = new Date(window.since - window.graceMs).toISOString();
  try {
    const side = opts.sections
      ? {
          droplets: section(ctx, reader, 'droplets', () => machines(reader, 'droplets', opts, startedSince)),
          volumes: section(ctx, reader, 'volumes', () => machines(reader, 'volumes', opts, startedSince)),
          resources: section(ctx, reader, 'snapshot resources', () => resources(reader, opts, startedSince)),
        }
      : undefined;
    for (const p of Object.values(side ?? {})) p.catch(() => {});
    const all = await readJobs(reader);
    const chosen = chooseJobs(all, opts.jobs);
    let done = 0;
    spinner.update(`Reading backups: 0/${chosen.length} jobs…`);
    const jobs = await Promise.all(
      chosen.map(async (job) => {
        const entry = await jobEntry(reader, job, opts, startedSince);
        spinner.update(`Reading backups: ${++done}/${chosen.length} jobs…`);
        return entry;
      }),
    );
    const present = jobs.filter((j): j is ReportEntry => j !== undefined).sort(byName);
    const droplets = side ? await side.droplets : null;
    const volumes = side ? await side.volumes : null;
    const resourceEntries = side ? await side.resources : null;
    return {
      generated_at: new Date(window.now).toISOString(),
      window: {
        since: new Date(window.since).toISOString(),
        until: new Date(window.until).toISOString(),
        grace_seconds: Math.round(window.graceMs / 1000),
      },
      summary: {
        jobs: totalsOf(present),
        droplets: droplets && totalsOf(droplets),
        volumes: volumes && totalsOf(volumes),
        resources: resourceEntries && totalsOf(resourceEntries),
      },
      jobs: present,
      droplets,
      volumes,
      resources: resourceEntries,
      notes: REPORT_RULES,
      check: opts.check ? { max_missed: opts.check.maxMissed, min_success: opts.check.minSuccess, broken: thresholdBreaks(present, opts.check) } : null,
    };
  } catch (err) {
    stop.abort(err);
    throw err;
  } finally {
    spinner.stop();
  }
}

/** The jobs that break --check's thresholds, each with why. Entries whose figures cannot be computed break none. */
export function thresholdBreaks(jobs: readonly ReportEntry[], t: { maxMissed: number; minSuccess: number | null }): NonNullable<ReportDocument['check']>['broken'] {
  const out: NonNullable<ReportDocument['check']>['broken'] = [];
  for (const j of jobs) {
    const reasons: string[] = [];
    if (j.missed !== null && j.missed > t.maxMissed) reasons.push(`${j.missed} missed run${j.missed === 1 ? '' : 's'}, more than --max-missed ${t.maxMissed}`);
    if (t.minSuccess !== null && j.success_rate !== null && j.success_rate < t.minSuccess) {
      reasons.push(`success ${(j.success_rate * 100).toFixed(1).replace(/\.0$/, '')}%, below --min-success ${+(t.minSuccess * 100).toFixed(2)}%`);
    }
    if (reasons.length) out.push({ id: j.id, name: j.name, reasons });
  }
  return out;
}

function byName(a: ReportEntry, b: ReportEntry): number {
  return (a.name ?? '').localeCompare(b.name ?? '') || String(a.id).localeCompare(String(b.id));
}

function attemptOf(r: Rec): AttemptInput {
  const files = Array.isArray(r.files) ? r.files.map(obj) : undefined;
  let sizeBytes: number | null = null;
  if (files?.length) {
    const sizes = files.map((f) => parseStatedSize(f?.size)?.bytes);
    if (sizes.every((s) => s !== undefined)) sizeBytes = sizes.reduce((a, b) => a! + b!, 0)!;
  } else if (files === undefined) {
    sizeBytes = parseStatedSize(r.size)?.bytes ?? null;
  }
  const id = r.id;
  return {
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    status: str(r.status),
    startedAt: parseServiceTime(r.started_at) ?? parseServiceTime(r.created_at),
    completedAt: parseServiceTime(r.completed_at),
    manual: truthy(obj(r.tags)?.manual),
    sizeBytes,
  };
}

/** Every record of a list, started from `startedSince` on (all pages). */
function startedSinceList(r: FleetReader, path: string, startedSince: string, extra: Record<string, QueryValue> = {}): Promise<Rec[]> {
  return listAll(r, { method: 'GET', path, query: { started_since: startedSince, sort: 'started_at', page_size: 100, ...extra } });
}

/** Keeps what started up to a grace after the window (the list filter bounds the other side). */
function withinReach(attempts: AttemptInput[], window: ReportWindow): AttemptInput[] {
  return attempts.filter((a) => a.startedAt === undefined || a.startedAt <= window.until + window.graceMs);
}

// ---------------------------------------------------------------------------
// Jobs

async function jobEntry(r: FleetReader, job: Rec, opts: ReportOptions, startedSince: string): Promise<ReportEntry | undefined> {
  const id = String(job.id ?? '');
  const { window } = opts;
  let attempts: AttemptInput[];
  let lastSuccessBefore: AttemptInput | undefined;
  try {
    attempts = withinReach((await startedSinceList(r, backupsPath(id), startedSince)).map(attemptOf), window);
    if (!attempts.some((a) => isSuccess(a.status) && a.startedAt !== undefined && a.startedAt >= window.since && a.startedAt <= window.until)) {
      // No success in the window: the newest before it, for "last success".
      const [req] = newestSuccessRequests(id);
      const before = records(await get(r, backupsPath(id), req!.query!)).map(attemptOf);
      lastSuccessBefore = before.filter((a) => isSuccess(a.status) && a.startedAt !== undefined && a.startedAt < window.since).sort((a, b) => b.startedAt! - a.startedAt!)[0];
    }
  } catch (err) {
    // Deleted between the list and now.
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
  const notes: string[] = [];
  const read = jobSchedules(job);
  const schedules: ScheduleInput[] = read.map((s) => {
    const offset = s.run_offset;
    // Runs from its frequency + run_offset when it has one, else its cron (fleet/runs.ts, issue 30 §2).
    if (s.basis.conflict) notes.push(s.basis.conflict);
    // The interface calls it "offset after the scheduled time" without a unit.
    else if (offset && s.basis.source === 'cron') notes.push(`schedule ${String(s.id ?? s.cron)} has run_offset ${offset}, whose unit the interface does not state: runs are expected at the cron times; widen --grace to cover the offset`);
    return { id: s.id, cron: s.basis.cron, text: s.basis.text, timezone: s.timezone ?? DEFAULT_TIMEZONE, status: s.status, stopped: s.stopped, unreadable: s.basis.source === 'none' ? s.basis.unreadable : undefined };
  });
  // The last change of the job or of one of its schedules: what ran before it followed a schedule no longer known.
  // A later updated_at with the timing this machine saw before is an edit of something else (retention, a name):
  // the schedule changed when that timing was first seen (fleet/timing.ts, issue 42.5).
  const latest = lastChangeOf(job);
  const changedAt = latest === undefined || !opts.timings ? latest : opts.timings.changedAt(String(id), timingOf(job), latest);
  const marks = opts.marks ?? NO_MARKS;
  const anomalies = (await opts.anomalies?.forJob(id)) ?? null;
  return buildEntry(
    {
      kind: 'job',
      id,
      name: str(job.name),
      createdAt: parseServiceTime(job.created_at),
      schedules,
      attempts,
      lastSuccessBefore,
      notes,
      changedAt,
      // The marks of the newest completed backup the report finds (compute.ts), judged as status judges them.
      marks: (newestId) => marks.forJob(id, newestId, opts.window.now, Infinity),
      anomalies,
    },
    window,
    opts.tools,
  );
}

// ---------------------------------------------------------------------------
// Droplets, volumes, resources

function snapshotSchedule(record: Rec, status: string | null): ScheduleInput {
  const made = snapshotScheduleCron(record.frequency, record.run_offset);
  const stopped = status !== null && status.toLowerCase() === 'paused' ? 'paused' : undefined;
  return {
    id: null,
    cron: 'cron' in made ? made.cron : null,
    text: made.text,
    timezone: str(record.timezone)?.trim() || DEFAULT_TIMEZONE,
    status,
    stopped,
    unreadable: 'unreadable' in made ? made.unreadable : undefined,
  };
}

async function machines(r: FleetReader, kind: 'droplets' | 'volumes', opts: ReportOptions, startedSince: string): Promise<ReportEntry[]> {
  const scheduled = await readScheduledMachines(r, kind);
  const entryKind: EntryKind = kind === 'droplets' ? 'droplet' : 'volume';
  const entries = await Promise.all(
    scheduled.map(async (m) => {
      const path = machineSnapshotsPath(kind, m.id);
      const attempts = withinReach((await startedSinceList(r, path, startedSince)).map(attemptOf), opts.window);
      return buildEntry(
        {
          kind: entryKind,
          id: typeof m.id === 'number' || typeof m.id === 'string' ? m.id : null,
          name: str(m.name),
          createdAt: parseServiceTime(m.created_at),
          schedules: [snapshotSchedule(m, str(m.status))],
          attempts,
        },
        opts.window,
        opts.tools,
      );
    }),
  );
  return entries.sort(byName);
}

/**
 * Resources: the interface's record has no schedule, so runs are expected only
 * when the service sends one (frequency, timezone, run_offset, at the top or
 * under `schedule`). Their snapshots come from the account-wide list.
 */
async function resources(r: FleetReader, opts: ReportOptions, startedSince: string): Promise<ReportEntry[]> {
  const activated = await readActivatedResources(r);
  if (!activated.length) return [];
  const snapshots = await snapshotsStartedSince(r, startedSince);
  const byResource = new Map<unknown, AttemptInput[]>();
  for (const s of snapshots) {
    const rid = snapshotResourceId(s);
    const list = byResource.get(rid) ?? [];
    list.push(attemptOf(s));
    byResource.set(rid, list);
  }
  return activated
    .map((x) => {
      const source: Rec = resourceSchedule(x);
      const known = source.frequency !== undefined && source.frequency !== null;
      const sched = snapshotSchedule(source, 'active');
      if (!known) {
        sched.unreadable =
          'the service\'s record of a snapshot resource does not state its schedule (frequency, time zone and run_offset are only sent to activate it); its snapshots in the window are counted by status';
        sched.text = 'schedule unknown (not stated by the service)';
      }
      const name = [str(x.type), resourceProvider(x), resourceAccount(x), str(x.last_known_ip)].filter(Boolean).join(' ');
      return buildEntry(
        {
          kind: 'resource' as const,
          id: typeof x.id === 'number' || typeof x.id === 'string' ? x.id : null,
          name: name || null,
          createdAt: undefined,
          schedules: [sched],
          attempts: withinReach(byResource.get(x.id) ?? [], opts.window),
        },
        opts.window,
        opts.tools,
      );
    })
    .sort(byName);
}
