// What this machine knows of each job beyond the service: the verify and
// restore-test marks of its backups (src/state/marks.ts, keyed by service and
// backup). `status` and `report` show the marks of the newest completed backup
// of each job and judge by them alone: a failed mark makes the job failing; an
// unchecked or not-tested one is a warning. A mark of an older backup is shown
// (of_newest: false) and never judged. Marks that cannot be read are a
// warning, not the end of the run: the marks are then unknown.
import type { Context } from '../contract/context.js';
import type { KindMarks, MarkKind, MarkedBackup, MarksState } from '../state/marks.js';
import type { RestoreMark, VerifyMark, Warning } from './marks-schema.js';

export type { RestoreMark, VerifyMark, Warning };

/** The marks of one job as status and report show them. */
export interface JobMarks {
  verify: VerifyMark | null;
  restore_test: RestoreMark | null;
  /** unchecked / not-tested marks of the newest backup, and a job untested for longer than its max age. */
  warnings: Warning[];
  /** A mark of the newest backup says the bytes or the data are bad. */
  failed: boolean;
}

export interface FleetMarks {
  /**
   * The marks of a job, judged for its newest completed backup (null when it has none); `maxAgeMs`
   * is the job's allowed age, for the "not tested for too long" warning.
   */
  forJob(jobId: string, newestId: string | null, now: number, maxAgeMs: number): JobMarks;
}

export const NO_MARKS: FleetMarks = { forJob: () => ({ verify: null, restore_test: null, warnings: [], failed: false }) };

/** The key of the service the context talks to (base URL and account). */
export async function serviceOf(ctx: Pick<Context, 'settings'>): Promise<string> {
  const [{ serviceKey }, settings] = await Promise.all([import('../state/marks.js'), ctx.settings()]);
  return serviceKey(settings.baseUrl, settings.token);
}

/**
 * Opens the marks of the context's service (for a command that records): in the PostgreSQL state the
 * team shares when the profile or BACKUPCTL_STATE_URL names one (src/state/pg-marks.ts), else in the
 * state folder. A state database that cannot be reached is exit 3: never a fall-back to the folder.
 */
export async function openMarks(ctx: Pick<Context, 'settings' | 'env'>): Promise<MarksState> {
  const settings = await ctx.settings();
  const service = await serviceOf(ctx);
  if (settings.stateUrl) {
    const { PgMarksStore } = await import('../state/pg-marks.js');
    return PgMarksStore.open(settings.stateUrl, service, settings.timeoutMs);
  }
  const [{ MarksStore }, { stateDir }] = await Promise.all([import('../state/marks.js'), import('../config/paths.js')]);
  return MarksStore.open(stateDir(ctx.env), service);
}

/** Whether the context keeps its state in a shared database (whose failure is exit 3, never a warning). */
export async function sharedState(ctx: Pick<Context, 'settings'>): Promise<boolean> {
  return Boolean((await ctx.settings()).stateUrl);
}

/**
 * Reads the marks of the context's service once; a broken or unreadable file is warned about and left out.
 * A shared state that cannot be reached ends the command (exit 3): the team's verdicts are not guessed.
 */
export async function readFleetMarks(ctx: Pick<Context, 'env' | 'warn' | 'settings'>): Promise<FleetMarks> {
  let store: MarksState;
  try {
    store = await openMarks(ctx);
  } catch (err) {
    if (await sharedState(ctx)) throw err;
    ctx.warn(`${(err as Error).message}: verify and restore-test marks are not shown`);
    return NO_MARKS;
  }
  return { forJob: (jobId, newestId, now, maxAgeMs) => judgeMarks(store.ofJob(jobId), newestId, now, maxAgeMs) };
}

type AnyMark = VerifyMark & Partial<Omit<RestoreMark, keyof VerifyMark>>;

/** A backup's marks of one kind as shown: the conclusive state, with a later not-tested attempt beside it. */
function shown(b: MarkedBackup, k: KindMarks, ofNewest: boolean, kind: MarkKind): AnyMark {
  const m = k.conclusive ?? k.last;
  const later = k.conclusive && k.last !== k.conclusive && k.last.at > k.conclusive.at ? k.last : null;
  const base: VerifyMark = {
    backup_id: b.backup_id,
    of_newest: ofNewest,
    state: m.state,
    at: m.at,
    reason: m.reason,
    exit_code: m.exit_code,
    last_attempt: later ? { state: later.state, at: later.at, reason: later.reason } : null,
  };
  if (kind === 'verify') return base;
  return { ...base, total_seconds: m.total_seconds ?? null, rows: m.rows ?? null, tables: m.tables ?? null, engine: m.engine ?? null };
}

/** The latest attempt of a kind over the job's backups other than the newest: shown when the newest has none. */
function latestOlder(backups: readonly MarkedBackup[], newestId: string | null, kind: MarkKind): AnyMark | null {
  let best: { b: MarkedBackup; k: KindMarks } | undefined;
  for (const b of backups) {
    const k = b[kind];
    if (!k || b.backup_id === newestId) continue;
    if (!best || k.last.at > best.k.last.at) best = { b, k };
  }
  return best ? shown(best.b, best.k, false, kind) : null;
}

const NAMES: Record<MarkKind, string> = { verify: 'verify', restore_test: 'restore test' };

/**
 * Judges a job by the marks of its newest completed backup:
 * - failed when its verify or restore test (the latest that looked at the bytes) failed;
 * - a warning when one is unchecked, or no attempt of that kind could run (not-tested);
 * - a warning when every attempt on the job's backups for longer than `maxAgeMs` was not-tested.
 */
export function judgeMarks(backups: readonly MarkedBackup[], newestId: string | null, now: number, maxAgeMs: number): JobMarks {
  const newest = newestId === null ? undefined : backups.find((b) => b.backup_id === newestId);
  const out: JobMarks = { verify: null, restore_test: null, warnings: [], failed: false };
  for (const kind of ['verify', 'restore_test'] as const) {
    const k = newest?.[kind];
    const mark = k && newest ? shown(newest, k, true, kind) : latestOlder(backups, newestId, kind);
    if (kind === 'verify') out.verify = mark;
    else out.restore_test = mark as RestoreMark | null;
    if (!mark?.of_newest) continue;
    if (mark.state === 'failed') out.failed = true;
    if (mark.state === 'unchecked') out.warnings.push({ kind: 'unchecked', text: `the ${NAMES[kind]} of the newest backup is unchecked${mark.reason ? `: ${mark.reason}` : ''}` });
    // A later attempt that could not run does not undo what an earlier one found: it is shown (last_attempt), not warned about.
    if (mark.state === 'not-tested') out.warnings.push({ kind: 'not-tested', text: `the ${NAMES[kind]} of the newest backup could not run${mark.reason ? ` (${mark.reason})` : ''}` });
  }
  const streak = untestedSince(backups);
  if (streak !== undefined && now - streak > maxAgeMs) {
    out.warnings.push({ kind: 'not-tested-too-long', text: `no verify or restore test could run since ${new Date(streak).toISOString()}, longer than the max age` });
  }
  return out;
}

/**
 * When the job's current run of not-tested attempts began: undefined when its latest attempt tested the
 * bytes (or there was none); else the start of the not-tested attempts after the last conclusive one.
 */
export function untestedSince(backups: readonly MarkedBackup[]): number | undefined {
  let lastAttempt: { at: string; state: string } | undefined;
  let lastConclusive = '';
  for (const b of backups) {
    for (const k of [b.verify, b.restore_test]) {
      if (!k) continue;
      if (!lastAttempt || k.last.at > lastAttempt.at) lastAttempt = k.last;
      if (k.conclusive && k.conclusive.at > lastConclusive) lastConclusive = k.conclusive.at;
    }
  }
  if (lastAttempt?.state !== 'not-tested') return undefined;
  let start: number | undefined;
  for (const b of backups) {
    for (const k of [b.verify, b.restore_test]) {
      if (!k || k.last.state !== 'not-tested' || k.last.at <= lastConclusive) continue;
      const since = Date.parse(k.last.since ?? k.last.at);
      const from = Math.max(since, lastConclusive ? Date.parse(lastConclusive) : -Infinity);
      if (Number.isFinite(from) && (start === undefined || from < start)) start = from;
    }
  }
  return start;
}
