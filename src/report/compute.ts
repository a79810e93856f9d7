// The arithmetic of `report`: which runs the schedules expected in the
// window, which backup fulfilled each, and the statistics. Pure: no requests,
// no output; `now` and the cron tools are always given, so tests build any
// history by hand (daylight-saving changes included).
//
// The rules, also in docs/report.md:
// - A schedule's expected runs are croner's runs of its cron expression in its
//   time zone, from the later of --since and the job's creation, to --until. On a
//   spring-forward day a wall-clock time inside the skipped hour (02:30 in
//   Europe/Paris) has no instant: croner runs it at the first minute after the
//   gap (03:00 local), and so does the report; a daily schedule still expects
//   one run that day. A time repeated by a fall-back change is expected once
//   (its first instant), as cron does.
// - Runs of several schedules at the same instant are one expected run. A
//   paused schedule still expects its runs: its record does not say since when
//   it is paused, so the runs since show as missed, with a note.
// - A backup started within the grace of an expected run (before or after)
//   fulfils it; each backup fulfils one run at most, and the runs take the
//   backups in time order (the earliest backup within reach goes to the
//   earliest run, which matches as many runs as possible). Manual backups
//   never fulfil a run: they are unscheduled by definition.
// - An expected run nothing fulfilled is missed once its grace has ended
//   (at `now`); before that it is pending.
// - success rate = runs fulfilled by a completed backup / runs settled
//   (expected, less pending, in progress and unknown). completed_with_errors
//   and expired are not successes.
// - A schedule edit must not rewrite history. The service keeps no past
//   schedules, only the job's updated_at: before it, the schedule is not
//   known. A run the current schedule expected before that moment counts when
//   a backup fulfilled it (what can be known), and is "unknown", never missed,
//   when none did; the backups before it that fulfilled nothing are of an
//   unknown schedule, not unscheduled.
// - Where the schedule is unknown (a snapshot resource whose record states
//   none), backups are counted by status as "schedule unknown", never as
//   unscheduled, and no run is missed.
import { isSuccess, statusWord } from '../backups/status.js';
import type { CronTools } from '../fleet/schedule.js';
import type { EntryKind, ReportAttempt, ReportEntry, ReportRun, ReportSchedule, ReportTotals, RunOutcome } from './document.js';

export interface ReportWindow {
  since: number;
  until: number;
  graceMs: number;
  /** The moment the report is made: runs whose grace ends after it are pending, not missed. */
  now: number;
}

export interface ScheduleInput {
  id: string | number | null;
  /** The cron expression runs are computed from; null when there is none (see `unreadable`). */
  cron: string | null;
  /** How the schedule is shown: the cron expression, or "every 24h from 03:00". */
  text: string;
  timezone: string;
  status: string | null;
  /** The schedule is stopped now (paused), for the notes: its runs stay expected, since when is not known. */
  stopped?: string | undefined;
  /** Why no expected run can be computed (a frequency the report cannot turn into times). */
  unreadable?: string | undefined;
}

export interface AttemptInput {
  id: string | number | null;
  status: string | null;
  /** started_at, else created_at; undefined when the record has neither. */
  startedAt: number | undefined;
  completedAt: number | undefined;
  manual: boolean;
  /** Bytes stored, when the record states it (every file's size, or the snapshot's). */
  sizeBytes: number | null;
}

export interface EntryInput {
  kind: EntryKind;
  id: string | number | null;
  name: string | null;
  /** When the job or machine was created: nothing is expected before it. */
  createdAt: number | undefined;
  schedules: ScheduleInput[];
  /** Backups (or snapshots) started from a grace before the window to a grace after it. */
  attempts: AttemptInput[];
  /** The newest completed backup before the window, when none in it completed. */
  lastSuccessBefore?: AttemptInput | undefined;
  /** Notes the reader adds (a list cut short, ...). */
  notes?: string[];
  /**
   * When the job (or its schedule) was last changed (the record's updated_at): the schedule before
   * it is not known, so runs expected before it are judged only where a backup fulfilled them.
   */
  changedAt?: number | undefined;
  /** The verify and restore-test marks for the newest completed backup (its id), when the entry is a job. */
  marks?: (newestId: string | null) => { verify: ReportEntry['verify']; restore_test: ReportEntry['restore_test'] };
  /** What `anomalies` finds in the catalog for the job's backups of the window (jobs only). */
  anomalies?: ReportEntry['anomalies'];
}

/**
 * Statuses the report knows (one meaning of a status: src/backups/status.ts statusWord, where a
 * `delete-request` counts as expired); anything else counts as failed, with a note.
 */
function runOutcomeOf(status: string | null): RunOutcome | undefined {
  if (status === null) return undefined;
  return statusWord(status);
}

/** The marks of the newest completed backup (null for machines and resources, which backupctl does not test). */
function markedOf(input: EntryInput, newestId: string | null): Pick<ReportEntry, 'verify' | 'restore_test'> {
  const m = input.marks?.(newestId);
  return { verify: m?.verify ?? null, restore_test: m?.restore_test ?? null };
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

function attemptOf(a: AttemptInput): ReportAttempt {
  return { id: a.id, status: a.status, started_at: iso(a.startedAt), completed_at: iso(a.completedAt), manual: a.manual };
}

/** Median (mean of the middle two for an even count) and nearest-rank 95th percentile. */
export function medianAndP95(values: readonly number[]): { median: number | null; p95: number | null } {
  if (!values.length) return { median: null, p95: null };
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const median = n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  return { median, p95: sorted[Math.ceil(0.95 * n) - 1]! };
}

interface Expected {
  at: number;
  schedules: Array<string | number | null>;
}

/** The runs every schedule expects in [from, until], merged by instant, oldest first. */
function expectedRuns(
  schedules: readonly ScheduleInput[],
  from: number,
  until: number,
  tools: CronTools,
  notes: string[],
): { runs: Expected[]; perSchedule: Array<number | null>; computable: boolean } {
  const byInstant = new Map<number, Expected>();
  let computable = schedules.length > 0;
  const perSchedule = schedules.map((s) => {
    // Which schedule a note is about, when there are several.
    const label = schedules.length > 1 ? `schedule ${s.id ?? s.text}` : 'the schedule';
    const about = schedules.length > 1 ? `${label}: ` : '';
    // Since when is not in the record: the runs stay expected, and those after the pause show as missed.
    if (s.stopped) notes.push(`${label} is ${s.stopped} now: its runs are still expected (when it stopped is not in its record), so those since show as missed`);
    if (s.unreadable || s.cron === null) {
      notes.push(`${about}expected runs cannot be computed: ${s.unreadable ?? 'it has no cron expression'}`);
      computable = false;
      return null;
    }
    const runs = from > until ? [] : tools.runsBetween(s.cron, s.timezone, new Date(from), new Date(until));
    if (!runs) {
      notes.push(`${about}expected runs cannot be computed: croner cannot read "${s.cron}" in the time zone "${s.timezone}"`);
      computable = false;
      return null;
    }
    for (const r of runs) {
      const at = r.getTime();
      const known = byInstant.get(at);
      if (known) known.schedules.push(s.id);
      else byInstant.set(at, { at, schedules: [s.id] });
    }
    return runs.length;
  });
  return { runs: [...byInstant.values()].sort((a, b) => a.at - b.at), perSchedule, computable };
}

/**
 * Pairs expected runs with backups: each run, oldest first, takes the earliest
 * backup not taken yet that started within `graceMs` of it. With windows of
 * one width this matches as many runs as any pairing can.
 */
export function matchRuns<T extends { startedAt: number }>(runs: readonly number[], backups: readonly T[], graceMs: number): Array<T | undefined> {
  const sorted = [...backups].sort((a, b) => a.startedAt - b.startedAt);
  let next = 0;
  return runs.map((at) => {
    while (next < sorted.length && sorted[next]!.startedAt < at - graceMs) next++;
    const candidate = sorted[next];
    if (candidate && candidate.startedAt <= at + graceMs) {
      next++;
      return candidate;
    }
    return undefined;
  });
}

export function buildEntry(input: EntryInput, window: ReportWindow, tools: CronTools): ReportEntry {
  const notes = [...(input.notes ?? [])];
  const { since, until, graceMs, now } = window;
  const from = Math.max(since, input.createdAt ?? since);
  const timezone = input.schedules[0]?.timezone ?? 'UTC';
  if (!input.schedules.length) notes.push('no schedule: no run is expected');
  const { runs: expected, perSchedule, computable } = expectedRuns(input.schedules, from, until, tools, notes);

  const inWindow = (a: AttemptInput): a is AttemptInput & { startedAt: number } =>
    a.startedAt !== undefined && a.startedAt >= since && a.startedAt <= until;
  const timed = input.attempts.filter((a): a is AttemptInput & { startedAt: number } => a.startedAt !== undefined);
  const untimed = input.attempts.length - timed.length;
  if (untimed) notes.push(`${untimed} backup${untimed === 1 ? ' has' : 's have'} no start or creation time and ${untimed === 1 ? 'is' : 'are'} left out`);
  const unknownStatuses = new Set(timed.filter((a) => inWindow(a) && !runOutcomeOf(a.status)).map((a) => a.status ?? 'no status'));
  if (unknownStatuses.size) notes.push(`statuses the report does not know, counted as failed: ${[...unknownStatuses].join(', ')}`);
  const outcome = (a: AttemptInput): RunOutcome => runOutcomeOf(a.status) ?? 'failed';

  // The change point: inside the window or after it (a window in the past, a job changed since).
  const changedAt = input.changedAt !== undefined && input.changedAt > from ? input.changedAt : undefined;
  const beforeChange = (at: number) => changedAt !== undefined && at < changedAt;
  const counts: Record<RunOutcome, number> = { completed: 0, completed_with_errors: 0, failed: 0, expired: 0, in_progress: 0, missed: 0, pending: 0, unknown: 0 };
  const runs: ReportRun[] = [];
  const taken = new Set<AttemptInput>();
  if (computable) {
    const matches = matchRuns(
      expected.map((r) => r.at),
      timed.filter((a) => !a.manual),
      graceMs,
    );
    expected.forEach((r, i) => {
      const backup = matches[i];
      if (backup) taken.add(backup);
      const result: RunOutcome = backup ? outcome(backup) : beforeChange(r.at) ? 'unknown' : r.at + graceMs > now ? 'pending' : 'missed';
      counts[result]++;
      runs.push({
        expected_at: new Date(r.at).toISOString(),
        schedule_ids: r.schedules,
        outcome: result,
        backup_id: backup?.id ?? null,
        started_at: iso(backup?.startedAt),
      });
    });
  } else {
    // Nothing to expect: the backups in the window by status, as far as the records allow.
    for (const a of timed) if (inWindow(a)) counts[outcome(a)]++;
  }
  const left = timed.filter((a) => inWindow(a) && !taken.has(a)).sort((a, b) => a.startedAt - b.startedAt);
  // Outside a known schedule: manual backups always, the others only where the schedule is known.
  const scheduleUnknown = left.filter((a) => !a.manual && (!computable || beforeChange(a.startedAt)));
  const unscheduled = left.filter((a) => !scheduleUnknown.includes(a));
  if (changedAt !== undefined) {
    const day = new Date(changedAt).toISOString().slice(0, 10);
    const byStatus = new Map<string, number>();
    for (const a of scheduleUnknown) byStatus.set(a.status ?? 'no status', (byStatus.get(a.status ?? 'no status') ?? 0) + 1);
    const statuses = [...byStatus].map(([status, n]) => `${n} ${status.replace(/_/g, ' ')}`).join(', ');
    notes.push(
      `unknown: schedule changed on ${day}: the schedule before it is not known, so runs expected before it count only where a backup fulfilled them` +
        (counts.unknown ? `; ${counts.unknown} other${counts.unknown === 1 ? ' is' : 's are'} unknown, not missed` : '') +
        (scheduleUnknown.length ? `; ${scheduleUnknown.length} backup${scheduleUnknown.length === 1 ? '' : 's'} before it fit no run of the current schedule (${statuses})` : ''),
    );
  }

  const windowed = timed.filter(inWindow).sort((a, b) => a.startedAt - b.startedAt);
  const succeeded = windowed.filter((a) => isSuccess(a.status, true));
  const points = succeeded
    .filter((a) => a.completedAt !== undefined && a.completedAt >= a.startedAt)
    .map((a) => ({ started_at: new Date(a.startedAt).toISOString(), seconds: (a.completedAt! - a.startedAt) / 1000, status: a.status }));
  const { median, p95 } = medianAndP95(points.map((p) => p.seconds));
  const sized = succeeded.filter((a) => a.sizeBytes !== null);
  const completedOnly = windowed.filter((a) => isSuccess(a.status));
  const lastSuccess = completedOnly[completedOnly.length - 1] ?? input.lastSuccessBefore;

  const settled = computable
    ? expected.length - counts.pending - counts.in_progress - counts.unknown
    : counts.completed + counts.completed_with_errors + counts.failed + counts.expired;
  const schedules: ReportSchedule[] = input.schedules.map((s, i) => ({
    id: s.id,
    text: s.text,
    words: input.kind === 'job' && s.cron !== null ? (tools.words(s.cron, s.timezone) ?? null) : null,
    timezone: s.timezone,
    status: s.status,
    expected: perSchedule[i] ?? null,
  }));
  return {
    kind: input.kind,
    id: input.id,
    name: input.name,
    timezone,
    schedules,
    computable,
    schedule_changed_at: changedAt === undefined ? null : new Date(changedAt).toISOString(),
    expected: computable ? expected.length : null,
    pending: counts.pending,
    completed: counts.completed,
    completed_with_errors: counts.completed_with_errors,
    failed: counts.failed,
    expired: counts.expired,
    in_progress: counts.in_progress,
    missed: computable ? counts.missed : null,
    unknown: counts.unknown,
    success_rate: settled > 0 ? counts.completed / settled : null,
    unscheduled: unscheduled.length,
    unscheduled_manual: unscheduled.filter((a) => a.manual).length,
    schedule_unknown: scheduleUnknown.length,
    missed_runs: runs.filter((r) => r.outcome === 'missed').map((r) => r.expected_at),
    runs,
    unscheduled_backups: unscheduled.map(attemptOf),
    schedule_unknown_backups: scheduleUnknown.map(attemptOf),
    duration: { count: points.length, median_seconds: median, p95_seconds: p95, points },
    size: { bytes: sized.length ? sized.reduce((sum, a) => sum + a.sizeBytes!, 0) : null, known: sized.length, of: succeeded.length },
    last_success: lastSuccess ? attemptOf(lastSuccess) : null,
    ...markedOf(input, lastSuccess?.id == null ? null : String(lastSuccess.id)),
    anomalies: input.anomalies ?? null,
    notes,
  };
}

/** Totals of a section: runs of computable entries, backups of the others. */
export function totalsOf(entries: readonly ReportEntry[]): ReportTotals {
  const t: ReportTotals = {
    entries: entries.length,
    computable: 0,
    expected: 0,
    completed: 0,
    completed_with_errors: 0,
    failed: 0,
    expired: 0,
    in_progress: 0,
    pending: 0,
    missed: 0,
    unknown: 0,
    unscheduled: 0,
    schedule_unknown: 0,
    success_rate: null,
  };
  let settled = 0;
  let succeeded = 0;
  for (const e of entries) {
    if (e.computable) t.computable++;
    t.expected += e.expected ?? 0;
    t.completed += e.completed;
    t.completed_with_errors += e.completed_with_errors;
    t.failed += e.failed;
    t.expired += e.expired;
    t.in_progress += e.in_progress;
    t.pending += e.pending;
    t.missed += e.missed ?? 0;
    t.unknown += e.unknown;
    t.unscheduled += e.unscheduled;
    t.schedule_unknown += e.schedule_unknown;
    if (e.success_rate !== null) {
      const n = e.computable ? e.expected! - e.pending - e.in_progress - e.unknown : e.completed + e.completed_with_errors + e.failed + e.expired;
      settled += n;
      succeeded += e.completed;
    }
  }
  t.success_rate = settled > 0 ? succeeded / settled : null;
  return t;
}

// snapshotScheduleCron lives in src/util/snapshot-cron.ts: the emulator uses it too and must not import report (issue 25 §18).

// ---------------------------------------------------------------------------
// Days, for the calendar strip

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date (YYYY-MM-DD) of an instant in a time zone; UTC when the zone is unknown. */
export function localDay(ms: number, timezone: string): string {
  let f = dayFormats.get(timezone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' });
    } catch {
      f = new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' });
    }
    dayFormats.set(timezone, f);
  }
  return f.format(new Date(ms));
}

/** Every date from `since` to `until` as seen in the time zone, in order. */
export function daysOf(since: number, until: number, timezone: string): string[] {
  const days: string[] = [];
  const first = localDay(since, timezone);
  const last = localDay(until, timezone);
  // Walk by UTC calendar dates: a date string plus one day, whatever the zone's offsets do.
  let d = new Date(`${first}T00:00:00Z`);
  for (let i = 0; i < 400; i++) {
    const text = d.toISOString().slice(0, 10);
    days.push(text);
    if (text >= last) break;
    d = new Date(d.getTime() + 86_400_000);
  }
  return days;
}

/** How bad an outcome is, for a day's cell: the worst run of the day colours it. */
const SEVERITY: Record<RunOutcome, number> = { missed: 7, failed: 6, expired: 5, completed_with_errors: 4, in_progress: 3, pending: 2, unknown: 1, completed: 0 };

export interface DayCell {
  day: string;
  /** The worst outcome of the day's expected runs; undefined when none was expected. */
  outcome: RunOutcome | undefined;
  runs: number;
  missed: number;
  unscheduled: number;
  /**
   * The schedule of the day is not known (an entry whose runs cannot be computed, or a day before
   * its schedule changed): a day without an expected run is "schedule unknown", not "nothing expected".
   */
  scheduleUnknown: boolean;
}

/** One cell per day of the window in the entry's time zone. */
export function dayCells(entry: ReportEntry, since: number, until: number): DayCell[] {
  const changeDay = entry.schedule_changed_at ? localDay(Date.parse(entry.schedule_changed_at), entry.timezone) : undefined;
  const cells = new Map(
    daysOf(since, until, entry.timezone).map((day) => [
      day,
      { day, outcome: undefined, runs: 0, missed: 0, unscheduled: 0, scheduleUnknown: !entry.computable || (changeDay !== undefined && day < changeDay) } as DayCell,
    ]),
  );
  for (const r of entry.runs) {
    const cell = cells.get(localDay(Date.parse(r.expected_at), entry.timezone));
    if (!cell) continue;
    cell.runs++;
    if (r.outcome === 'missed') cell.missed++;
    if (cell.outcome === undefined || SEVERITY[r.outcome] > SEVERITY[cell.outcome]) cell.outcome = r.outcome;
  }
  for (const b of [...entry.unscheduled_backups, ...entry.schedule_unknown_backups]) {
    const cell = b.started_at ? cells.get(localDay(Date.parse(b.started_at), entry.timezone)) : undefined;
    if (!cell) continue;
    cell.unscheduled++;
    // Without expected runs, the backups themselves colour the days.
    const outcome = runOutcomeOf(b.status) ?? 'failed';
    if (!entry.computable && (cell.outcome === undefined || SEVERITY[outcome] > SEVERITY[cell.outcome])) cell.outcome = outcome;
  }
  return [...cells.values()];
}
