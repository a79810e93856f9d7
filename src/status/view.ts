// The terminal view of the status document: the jobs table with its strip of
// marks, then droplets, volumes and snapshot resources; and the per-job
// columns that -o tsv, -q and --columns use.
import type { Column } from '../contract/context.js';
import { displayWidth, relativeTime } from '../output/format.js';
import { sanitize } from '../output/sanitize.js';
import { table, type Palette, type ViewColumn } from '../output/view-table.js';
// The palette and the fitted table moved to src/output/view-table.ts (report uses them too).
import { acknowledgedLines, anomalyCell } from '../fleet/anomalies.js';
import { wordParts, wrapParts, type Part } from '../util/wrap.js';
import { profileOf } from '../fleet/profiles.js';
import type { Health, JobStatus, MachineStatus, ResourceStatus, SnapshotSummary, StatusDocument, BackupSummary } from './document.js';

// ---------------------------------------------------------------------------
// Marks

export type Hue = Exclude<keyof Palette, 'bold'>;

interface Mark {
  unicode: string;
  ascii: string;
  hue: Hue;
  label: string;
}

/** One mark per backup status: each its own shape, so the strip reads without colour too. */
export const MARKS: Readonly<Record<string, Mark>> = {
  completed: { unicode: '✔', ascii: '+', hue: 'green', label: 'completed' },
  completed_with_errors: { unicode: '!', ascii: '!', hue: 'yellow', label: 'completed with errors' },
  failed: { unicode: '✖', ascii: 'X', hue: 'red', label: 'failed' },
  expired: { unicode: '⊘', ascii: '~', hue: 'red', label: 'expired' },
  running: { unicode: '▶', ascii: '>', hue: 'blue', label: 'running' },
  pending: { unicode: '○', ascii: 'o', hue: 'blue', label: 'pending' },
};
const OTHER_MARK: Mark = { unicode: '?', ascii: '?', hue: 'dim', label: 'other' };

export function markOf(status: string): Mark {
  return MARKS[status] ?? OTHER_MARK;
}

/**
 * Whether the terminal shows ✔ and ✖: a locale that names UTF-8, or no locale
 * at all outside the Linux console (as is-unicode-supported judges). LANG=C
 * or a Latin-1 locale gets ASCII marks.
 */
export function unicodeMarks(env: NodeJS.ProcessEnv): boolean {
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG;
  if (locale) return /utf-?8/i.test(locale);
  return env.TERM !== 'linux';
}

/** The strip: newest on the left, in the order -o tsv and --json list them (issue 25: one order everywhere). */
export function stripText(recentNewestFirst: readonly string[], unicode: boolean): string {
  return [...recentNewestFirst]
    .map((s) => (unicode ? markOf(s).unicode : markOf(s).ascii))
    .join('');
}

function styleStrip(text: string, palette: Palette): string {
  const hueOf = new Map<string, Hue>();
  for (const m of [...Object.values(MARKS), OTHER_MARK]) {
    hueOf.set(m.unicode, m.hue);
    hueOf.set(m.ascii, m.hue);
  }
  // One escape sequence per run of a colour, not per mark.
  const runs: Array<{ hue: Hue; text: string }> = [];
  for (const ch of text) {
    const hue = hueOf.get(ch) ?? 'dim';
    const last = runs[runs.length - 1];
    if (last?.hue === hue) last.text += ch;
    else runs.push({ hue, text: ch });
  }
  return runs.map((r) => palette[r.hue](r.text)).join('');
}

// ---------------------------------------------------------------------------
// Cell texts

export function computeText(c: JobStatus['compute']): string {
  switch (c.type) {
    case 'server':
      return c.host ?? c.server_name ?? (c.server_id !== null ? `server ${c.server_id}` : 'server');
    case 'ss_serverless':
      return c.region ? `serverless ${c.region}` : 'serverless';
    case 'ss_agent':
      return 'agent';
    default:
      return c.type ?? '';
  }
}

function schedulesText(j: JobStatus): string {
  return j.schedules.map((s) => (s.words ?? `${s.cron ?? '?'} ${s.timezone ?? ''}`.trim()) + (s.status && s.status !== 'active' ? ` (${s.status})` : '')).join('; ');
}

const whenOf = (b: BackupSummary | SnapshotSummary): string | null =>
  b.completed_at ?? ('created_at' in b ? b.created_at : b.started_at);

const HEALTH_HUE: Record<Health, Hue> = { failing: 'red', stale: 'yellow', healthy: 'green', unknown: 'dim' };
const STATUS_HUE: Record<string, Hue> = {
  completed: 'green',
  active: 'green',
  completed_with_errors: 'yellow',
  paused: 'yellow',
  transferring: 'blue',
  running: 'blue',
  pending: 'blue',
  'in-progress': 'blue',
  in_progress: 'blue',
  pre_request: 'blue',
  failed: 'red',
  expired: 'red',
};

// ---------------------------------------------------------------------------
// Columns for -o tsv, -q and --columns (raw values), keyed as the table's

/** Per-job columns: the raw values -o tsv prints; the table shows the same keys its own way. */
export const jobColumns: Column[] = [
  { key: 'health', header: 'Health' },
  { key: 'name', header: 'Name' },
  { key: 'id', header: 'ID', extra: true },
  { key: 'compute', header: 'Compute', get: (j: JobStatus) => computeText(j.compute) },
  { key: 'schedule', header: 'Schedule', get: (j: JobStatus) => schedulesText(j) },
  { key: 'newest', header: 'Newest backup', get: (j: JobStatus) => j.newest?.status ?? '' },
  { key: 'newest_at', header: 'Newest at', extra: true, get: (j: JobStatus) => j.newest?.created_at ?? '' },
  { key: 'last_success', header: 'Last success', get: (j: JobStatus) => (j.last_completed ? whenOf(j.last_completed) : '') },
  { key: 'age', header: 'Age (s)', extra: true, get: (j: JobStatus) => j.last_completed?.age_seconds ?? '' },
  { key: 'recent', header: 'Last 10, new → old', get: (j: JobStatus) => j.recent.join(',') },
  { key: 'next_run', header: 'Next run', get: (j: JobStatus) => j.next_run ?? '' },
  { key: 'storage', header: 'Storage', get: (j: JobStatus) => j.storage.join(', ') },
  { key: 'max_age', header: 'Max age (s)', extra: true, get: (j: JobStatus) => j.max_age_seconds },
  { key: 'verify', header: 'Verify', get: (j: JobStatus) => markRaw(j.verify) },
  { key: 'restore_test', header: 'Restore test', get: (j: JobStatus) => markRaw(j.restore_test) },
  { key: 'anomalies', header: 'Anomalies', get: (j: JobStatus) => anomalyCell(j.anomalies) },
  { key: 'last_clean', header: 'Last clean', extra: true, get: (j: JobStatus) => j.anomalies?.last_clean?.id ?? '' },
  { key: 'warnings', header: 'Warnings', extra: true, get: (j: JobStatus) => j.warnings.map((w) => w.kind).join(',') },
];

type AnyMark = JobStatus['verify'];

/** tsv: "passed 2026-11-26T03:00:00.000Z", "older backup passed …" for a mark of an older backup, "never". */
function markRaw(m: AnyMark): string {
  if (!m) return 'never';
  return `${m.of_newest ? '' : 'older backup '}${m.state} ${m.at}${m.last_attempt ? `; then ${m.last_attempt.state} ${m.last_attempt.at}` : ''}`;
}

/**
 * A mark of the newest completed backup in words: "passed 3 hours ago", "failed 2 days ago",
 * "passed 2 days ago; then not-tested just now"; for a mark of an older backup only, "never (an older
 * backup: passed 2 days ago)"; "never" when none.
 */
export function markText(m: AnyMark, now: Date): string {
  if (!m) return 'never';
  const ago = (iso: string) => relativeTime(iso, now) || iso;
  const text = `${m.state} ${ago(m.at)}${m.last_attempt ? `; then ${m.last_attempt.state} ${ago(m.last_attempt.at)}` : ''}`;
  return m.of_newest ? text : `never (an older backup: ${text})`;
}

/** The verify of the newest completed backup ("passed 3 hours ago", "never"). */
export function verifyText(j: JobStatus, now: Date): string {
  return markText(j.verify, now);
}

/** The restore test of the newest completed backup. */
export function restoreTestText(j: JobStatus, now: Date): string {
  return markText(j.restore_test, now);
}

const MARK_HUE: Record<string, Hue | undefined> = { failed: 'red', unchecked: 'yellow', 'not-tested': 'yellow', 'structure-only': undefined, passed: 'green' };
function styleMark(t: string, m: AnyMark, p: Palette): string {
  if (!m || !m.of_newest) return p.dim(t);
  const hue = MARK_HUE[m.last_attempt?.state === 'not-tested' && m.state === 'passed' ? 'not-tested' : m.state];
  return hue ? p[hue](t) : t;
}

// ---------------------------------------------------------------------------
// Tables

export interface ViewOptions {
  palette: Palette;
  unicode: boolean;
  /** Terminal width (Infinity when piped). */
  width: number;
  noHeaders: boolean;
  now: Date;
  /** --columns for the jobs table (keys of jobColumns), already checked. */
  jobKeys?: readonly string[];
  /** "26h", or "26h (per job as given)". */
  maxAgeText: string;
  /** --all-profiles: the rows come from several profiles, each shown in a first column. */
  profiles?: boolean;
}

/** The first column of a merged view (--all-profiles): the row's profile. */
function withProfile<T extends object>(columns: ViewColumn<T>[], o: { profiles?: boolean }): ViewColumn<T>[] {
  return o.profiles ? [{ key: 'profile', header: 'Profile', floor: 8, text: (r) => sanitize(profileOf(r)) }, ...columns] : columns;
}

/** A job's name in the lines under the table: with its profile in a merged view. */
function jobLabel(j: JobStatus): string {
  const profile = profileOf(j);
  return sanitize(`${profile ? `${profile}: ` : ''}${j.name ?? j.id}`);
}

/**
 * On a narrow terminal, whole columns go before the rest are cut past
 * reading: these, in this order, while even the shortest widths do not fit.
 */
const JOB_DROP_ORDER = ['anomalies', 'restore_test', 'verify', 'storage', 'compute', 'schedule', 'next_run', 'last_success'];
// The warnings are said under the table; their column is for --columns.

const hued = (hue: Hue | undefined) => (text: string, palette: Palette) => (hue ? palette[hue](text) : text);

/** "failed 3 hours ago", the status word coloured. */
function statusAndAge(b: BackupSummary | SnapshotSummary | null, now: Date): string {
  if (!b) return '';
  return `${sanitize(b.status ?? '?')} ${relativeTime(whenOf(b), now)}`.trim();
}
function styleStatusAndAge(text: string, status: string | null | undefined, palette: Palette): string {
  const word = sanitize(status ?? '?');
  if (!text.startsWith(word)) return text;
  return hued(STATUS_HUE[status ?? ''])(word, palette) + text.slice(word.length);
}

function jobViewColumns(o: ViewOptions): ViewColumn<JobStatus>[] {
  const now = o.now;
  const all: ViewColumn<JobStatus>[] = [
    { key: 'health', header: 'Health', fixed: true, text: (j) => j.health, style: (t, j, p) => hued(HEALTH_HUE[j.health])(t, p) },
    { key: 'name', header: 'Name', floor: 16, text: (j) => sanitize(j.name ?? '') },
    { key: 'id', header: 'ID', text: (j) => sanitize(j.id) },
    { key: 'compute', header: 'Compute', floor: 12, text: (j) => sanitize(computeText(j.compute)) },
    { key: 'schedule', header: 'Schedule', floor: 20, text: (j) => sanitize(schedulesText(j)) },
    {
      key: 'newest',
      header: 'Newest backup',
      // 20: health (7) + a 16-cell name + this + the strip (10) + gaps fit 60 columns; at 24
      // "completed 54 minutes ago" made 61 (seen at 01:30 on a clock-change night).
      floor: 20,
      text: (j) => statusAndAge(j.newest, now),
      style: (t, j, p) => styleStatusAndAge(t, j.newest?.status, p),
    },
    { key: 'newest_at', header: 'Newest at', text: (j) => relativeTime(j.newest?.created_at, now) },
    {
      key: 'last_success',
      header: 'Last success',
      floor: 14,
      text: (j) => (j.last_completed ? relativeTime(whenOf(j.last_completed), now) : 'never'),
      style: (t, j, p) => (j.within_max_age ? t : p.yellow(t)),
    },
    { key: 'age', header: 'Age (s)', text: (j) => String(j.last_completed?.age_seconds ?? '') },
    // The order in the header, in no more than the strip's 10 cells (the 60-column layout above counts on it).
    { key: 'recent', header: o.unicode ? 'New → old' : 'New -> old', fixed: true, text: (j) => stripText(j.recent, o.unicode), style: (t, _j, p) => styleStrip(t, p) },
    { key: 'next_run', header: 'Next run', floor: 13, text: (j) => relativeTime(j.next_run, now) },
    { key: 'storage', header: 'Storage', floor: 12, text: (j) => sanitize(j.storage.join(', ')) },
    { key: 'max_age', header: 'Max age', text: (j) => String(j.max_age_seconds) },
    { key: 'verify', header: 'Verify', floor: 10, text: (j) => verifyText(j, now), style: (t, j, p) => styleMark(t, j.verify, p) },
    { key: 'restore_test', header: 'Restore test', floor: 10, text: (j) => restoreTestText(j, now), style: (t, j, p) => styleMark(t, j.restore_test, p) },
    {
      key: 'anomalies',
      header: 'Anomalies',
      floor: 11,
      text: (j) => anomalyCell(j.anomalies),
      style: (t, j, p) => (j.anomalies?.anomalous ? p.red(t) : j.anomalies?.acknowledged ? p.dim(t) : t),
    },
    { key: 'last_clean', header: 'Last clean', text: (j) => sanitize(j.anomalies?.last_clean?.id ?? '') },
    { key: 'warnings', header: 'Warnings', text: (j) => j.warnings.map((w) => w.kind).join(', '), style: (t, _j, p) => p.yellow(t) },
  ];
  const keys = o.jobKeys ?? jobColumns.filter((c) => !c.extra).map((c) => c.key);
  return withProfile(keys.map((k) => all.find((c) => c.key === k)!).filter(Boolean), o);
}

function machineColumns(now: Date, o: { profiles?: boolean }): ViewColumn<MachineStatus>[] {
  return withProfile<MachineStatus>([
    { key: 'health', header: 'Health', text: (m) => m.health, style: (t, m, p) => hued(HEALTH_HUE[m.health])(t, p) },
    { key: 'name', header: 'Name', text: (m) => sanitize(m.name ?? String(m.id)) },
    { key: 'status', header: 'Status', text: (m) => sanitize(m.status ?? ''), style: (t, m, p) => hued(STATUS_HUE[m.status ?? ''])(t, p) },
    { key: 'frequency', header: 'Every', text: (m) => (m.frequency_hours !== null ? `${m.frequency_hours}h` : '') },
    {
      key: 'newest',
      header: 'Newest snapshot',
      text: (m) => statusAndAge(m.newest, now),
      style: (t, m, p) => styleStatusAndAge(t, m.newest?.status, p),
    },
    { key: 'last_completed', header: 'Last completed', text: (m) => (m.last_completed ? relativeTime(whenOf(m.last_completed), now) : 'never') },
  ], o);
}

function resourceColumns(now: Date, o: { profiles?: boolean }): ViewColumn<ResourceStatus>[] {
  return withProfile<ResourceStatus>([
    { key: 'health', header: 'Health', text: (r) => r.health, style: (t, r, p) => hued(HEALTH_HUE[r.health])(t, p) },
    { key: 'id', header: 'ID', text: (r) => String(r.id) },
    { key: 'type', header: 'Type', text: (r) => sanitize(r.type ?? '') },
    { key: 'provider', header: 'Provider', text: (r) => sanitize(r.provider ?? '') },
    { key: 'account', header: 'Account', text: (r) => sanitize(r.account ?? '') },
    { key: 'frequency', header: 'Frequency', text: (r) => sanitize(r.frequency === null ? '' : String(r.frequency)) },
    {
      key: 'newest',
      header: 'Newest snapshot',
      text: (r) => statusAndAge(r.newest, now),
      style: (t, r, p) => styleStatusAndAge(t, r.newest?.status, p),
    },
    { key: 'last_completed', header: 'Last completed', text: (r) => (r.last_completed ? relativeTime(whenOf(r.last_completed), now) : 'never') },
  ], o);
}

/** Lines of at most the terminal's width: the summary lines never run past it either. */
function fitted(parts: readonly Part[], o: ViewOptions, separator = ' '): string {
  return wrapParts(parts, o.width, separator, displayWidth).map((l) => l + '\n').join('');
}

function legend(jobs: readonly JobStatus[], o: ViewOptions): string {
  const seen = new Set(jobs.flatMap((j) => j.recent.map((s) => markOf(s))));
  if (!seen.size) return '';
  const parts: Part[] = [...Object.values(MARKS), OTHER_MARK]
    .filter((m) => seen.has(m))
    .map((m) => {
      const mark = o.unicode ? m.unicode : m.ascii;
      return { plain: `${mark} ${m.label}`, shown: `${o.palette[m.hue](mark)} ${m.label}` };
    });
  const note = '(last 10, newest first)';
  return fitted([...parts, { plain: note, shown: o.palette.dim(note) }], o, '  ');
}

function summaryLine(doc: StatusDocument, o: ViewOptions): string {
  const n = doc.jobs.length;
  const counts = (['failing', 'stale', 'unknown', 'healthy'] as const).filter((h) => doc.summary[h] > 0);
  const head = `${n} job${n === 1 ? '' : 's'}${counts.length ? ':' : '.'}`;
  const parts: Part[] = [{ plain: head, shown: head }];
  counts.forEach((h, i) => {
    const text = `${doc.summary[h]} ${h}`;
    const end = i === counts.length - 1 ? '.' : ',';
    parts.push({ plain: text + end, shown: o.palette[HEALTH_HUE[h]](text) + end });
  });
  return fitted([...parts, ...wordParts(`Max age ${o.maxAgeText}.`)], o);
}

/**
 * The warnings of the jobs, one line each under the summary (status --check --strict fails on them); then the
 * backups whose anomalies were acknowledged (anomalies --ack), shown as such, not as a problem.
 */
function warningLines(doc: StatusDocument, o: ViewOptions): string {
  // Each in lines of at most the terminal's width (a backup id and the signals make a long sentence).
  const line = (word: string, hue: 'yellow' | 'dim', text: string) => fitted([{ plain: `${word}:`, shown: `${o.palette[hue](word)}:` }, ...wordParts(text)], o);
  let out = '';
  for (const j of doc.jobs) for (const w of j.warnings) out += line('warning', 'yellow', `${jobLabel(j)}: ${sanitize(w.text)}`);
  for (const j of doc.jobs) for (const a of acknowledgedLines(j.anomalies)) out += line('acknowledged', 'dim', `${jobLabel(j)}: ${sanitize(a)}`);
  return out;
}

const MACHINE_DROP_ORDER = ['frequency', 'status', 'last_completed'];
const RESOURCE_DROP_ORDER = ['account', 'provider', 'frequency', 'type', 'last_completed'];

/** The whole terminal view. */
export function statusView(doc: StatusDocument, o: ViewOptions): string {
  let out = o.palette.bold('Jobs') + '\n';
  if (!doc.jobs.length) out += 'No jobs.\n';
  else out += table(doc.jobs, jobViewColumns(o), o, o.jobKeys ? { keepEmpty: true } : { dropOrder: JOB_DROP_ORDER }) + '\n' + legend(doc.jobs, o) + summaryLine(doc, o) + warningLines(doc, o);
  const sections: Array<[string, string | undefined]> = [
    // On a narrow terminal, whole columns go first (the health column came in with issue 29).
    ['Droplets', doc.droplets?.length ? table(doc.droplets, machineColumns(o.now, o), o, { dropOrder: MACHINE_DROP_ORDER }) : undefined],
    ['Volumes', doc.volumes?.length ? table(doc.volumes, machineColumns(o.now, o), o, { dropOrder: MACHINE_DROP_ORDER }) : undefined],
    ['Snapshot resources (backups activated)', doc.resources?.length ? table(doc.resources, resourceColumns(o.now, o), o, { dropOrder: RESOURCE_DROP_ORDER }) : undefined],
  ];
  for (const [title, body] of sections) if (body) out += `\n${o.palette.bold(title)}\n${body}`;
  return out;
}
