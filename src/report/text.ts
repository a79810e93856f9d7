// The report as text: the terminal table and Markdown (for a ticket or an
// audit folder). Both read the document only; service text is sanitised
// (and escaped for Markdown).
import { evidenceMarkdown } from './evidence-view.js';
import type { Column } from '../contract/context.js';
import { displayWidth, humanBytes, relativeTime } from '../output/format.js';
import { sanitize } from '../output/sanitize.js';
import { wordParts, wrapHanging, wrapParts } from '../util/wrap.js';
import { durationText } from '../util/duration.js';
import { table, type Palette, type ViewColumn } from '../output/view-table.js';
import type { ReportDocument, ReportEntry, ReportTotals } from './document.js';
import { acknowledgedLines, anomalyCell, anomalyWarning } from '../fleet/anomalies.js';
import { profileOf } from '../fleet/profiles.js';

/** Each section of the document: its key, title and what its entries are called. */
export const SECTIONS = [
  ['jobs', 'Jobs', 'job'],
  ['droplets', 'Droplets', 'droplet'],
  ['volumes', 'Volumes', 'volume'],
  ['resources', 'Snapshot resources (backups activated)', 'resource'],
] as const;

export function percent(rate: number | null): string {
  if (rate === null) return '–';
  const p = rate * 100;
  return `${p === 100 || p === 0 ? p.toFixed(0) : p.toFixed(1)}%`;
}

export function seconds(value: number | null): string {
  if (value === null) return '–';
  return value < 1 ? `${Math.round(value * 1000)}ms` : durationText(Math.round(value) * 1000);
}

export function sizeText(e: ReportEntry): string {
  if (e.size.bytes === null) return e.size.of ? 'not stated' : '–';
  const bytes = humanBytes(e.size.bytes);
  return e.size.known < e.size.of ? `${bytes} (${e.size.known} of ${e.size.of})` : bytes;
}

const zoned = new Map<string, Intl.DateTimeFormat>();

/**
 * `2026-03-29 03:00 UTC+2`: a time as the schedule's clock shows it, with its offset from UTC. One style
 * for every zone (issue 25 §8: "GMT+1" beside "EST" read as two systems): UTC, UTC+1, UTC-5, UTC+5:30.
 */
export function localTime(iso: string, timezone: string): string {
  let f = zoned.get(timezone);
  if (!f) {
    const options: Intl.DateTimeFormatOptions = { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'shortOffset' };
    try {
      f = new Intl.DateTimeFormat('en-CA', { ...options, timeZone: timezone });
    } catch {
      f = new Intl.DateTimeFormat('en-CA', { ...options, timeZone: 'UTC' });
    }
    zoned.set(timezone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  const offset = (parts.timeZoneName ?? '').replace(/^GMT/, 'UTC').replace(/^UTC[+-]0$/, 'UTC');
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${offset}`.trim();
}

/** `2026-10-01 02:00 UTC`: the window's ends. */
export function utcTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/**
 * When the last success was: how long ago on a terminal (`now`); in a file (`now` null), which is read
 * long after it is made, the time at the schedule's clock.
 */
export function lastSuccessText(e: ReportEntry, now: Date | null): string {
  const b = e.last_success;
  if (!b) return 'never';
  const at = b.completed_at ?? b.started_at;
  if (now === null) return at ? localTime(at, e.timezone) : 'yes';
  return relativeTime(at, now) || 'yes';
}

export function entryLabel(e: ReportEntry): string {
  return sanitize(e.name ?? String(e.id ?? '?'));
}

/**
 * The schedules of an entry, each with its time zone; a schedule whose runs could not be computed
 * shows no time zone (the zone would be a default the report did not use).
 */
export function scheduleText(e: ReportEntry, text: (s: string) => string, zone: (s: string) => string, separator: string): string {
  return e.schedules.map((s) => (s.expected === null ? text(s.text) : `${text(s.text)} ${zone(s.timezone)}`)).join(separator) || 'none';
}

/**
 * The notes under a section: each entry's own, then once with `entry: null` a note every entry
 * shares (when there are two or more entries), instead of the same line under each.
 */
export function sectionNotes(entries: readonly ReportEntry[]): Array<{ entry: ReportEntry | null; note: string }> {
  const shared = entries.length > 1 ? entries[0]!.notes.filter((n) => entries.every((e) => e.notes.includes(n))) : [];
  const own = entries.flatMap((entry) => entry.notes.filter((n) => !shared.includes(n)).map((note) => ({ entry, note })));
  return [...own, ...shared.map((note) => ({ entry: null, note }))];
}

/** The figures of one row, the same in the table, tsv and Markdown. */
function rowValues(e: ReportEntry, now: Date | null): Record<string, string> {
  return {
    name: entryLabel(e),
    schedule: scheduleText(e, sanitize, sanitize, '; '),
    expected: e.expected === null ? 'unknown' : String(e.expected),
    completed: String(e.completed),
    with_errors: String(e.completed_with_errors),
    failed: String(e.failed + e.expired),
    missed: missedText(e),
    unscheduled: unscheduledText(e),
    success: percent(e.success_rate),
    median: seconds(e.duration.median_seconds),
    p95: seconds(e.duration.p95_seconds),
    size: sizeText(e),
    last_success: lastSuccessText(e, now),
    verify: verifyText(e, now),
    restore_test: restoreTestText(e, now),
    anomalies: anomalyCell(e.anomalies),
  };
}

/** Missed runs; "unknown" where the schedule is; the runs before a schedule change that are unknown beside. */
export function missedText(e: ReportEntry): string {
  if (e.missed === null) return 'unknown';
  return e.unknown ? `${e.missed} (${e.unknown} unknown)` : String(e.missed);
}

/** Unscheduled backups (manual ones said), then those of an unknown schedule. */
export function unscheduledText(e: ReportEntry): string {
  const base = e.unscheduled_manual ? `${e.unscheduled} (${e.unscheduled_manual} manual)` : String(e.unscheduled);
  return e.schedule_unknown ? `${base}; ${e.schedule_unknown} schedule unknown` : base;
}

/** A time: how long ago on a terminal, the date and time at the entry's clock in a file. */
function whenText(iso: string, e: ReportEntry, now: Date | null): string {
  return now === null ? localTime(iso, e.timezone) : relativeTime(iso, now) || iso;
}

type AnyMark = ReportEntry['verify'];

/** A mark in words: "passed 3 hours ago", "failed 2026-11-20 …", "passed …; then not-tested …"; "never (an older backup: …)". */
function markWords(m: AnyMark, e: ReportEntry, now: Date | null, extra = ''): string {
  if (!m) return 'never';
  const text = `${m.state} ${whenText(m.at, e, now)}${extra}${m.last_attempt ? `; then ${m.last_attempt.state} ${whenText(m.last_attempt.at, e, now)}` : ''}`;
  return m.of_newest ? text : `never (an older backup: ${text})`;
}

/** The verify of the newest completed backup: "passed 3 hours ago", "failed 2026-11-20 ..."; empty for machines, "never" for a job never verified. */
export function verifyText(e: ReportEntry, now: Date | null): string {
  if (e.kind !== 'job') return '';
  return markWords(e.verify, e, now);
}

/** The restore test of the newest completed backup, with its time to restore when it passed, or "never". */
export function restoreTestText(e: ReportEntry, now: Date | null): string {
  if (e.kind !== 'job') return '';
  const r = e.restore_test;
  return markWords(r, e, now, r?.state === 'passed' && r.total_seconds !== null ? `, ${seconds(r.total_seconds)} to restore` : '');
}

const HEADERS: Array<[string, string]> = [
  ['name', 'NAME'],
  ['schedule', 'SCHEDULE'],
  ['expected', 'EXPECTED'],
  ['completed', 'OK'],
  ['with_errors', 'ERRORS'],
  ['failed', 'FAILED'],
  ['missed', 'MISSED'],
  ['unscheduled', 'UNSCHEDULED'],
  ['success', 'SUCCESS'],
  ['median', 'MEDIAN'],
  ['p95', 'P95'],
  ['size', 'SIZE'],
  ['last_success', 'LAST SUCCESS'],
  ['verify', 'VERIFY'],
  ['restore_test', 'RESTORE TEST'],
  ['anomalies', 'ANOMALIES'],
];

/** One line per job for -o tsv and -q: raw figures. */
export const reportJobColumns: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name' },
  { key: 'expected', header: 'Expected' },
  { key: 'completed', header: 'Completed' },
  { key: 'completed_with_errors', header: 'With errors' },
  { key: 'failed', header: 'Failed' },
  { key: 'expired', header: 'Expired' },
  { key: 'missed', header: 'Missed' },
  { key: 'pending', header: 'Pending' },
  { key: 'unscheduled', header: 'Unscheduled' },
  { key: 'success_rate', header: 'Success rate' },
  { key: 'median_seconds', header: 'Median (s)', get: (e: ReportEntry) => e.duration.median_seconds },
  { key: 'p95_seconds', header: 'P95 (s)', get: (e: ReportEntry) => e.duration.p95_seconds },
  { key: 'size_bytes', header: 'Size (bytes)', get: (e: ReportEntry) => e.size.bytes },
  { key: 'last_success', header: 'Last success', get: (e: ReportEntry) => e.last_success?.completed_at ?? e.last_success?.started_at ?? null },
  { key: 'missed_runs', header: 'Missed runs', get: (e: ReportEntry) => e.missed_runs.join(',') },
  { key: 'unknown', header: 'Unknown runs' },
  { key: 'schedule_unknown', header: 'Schedule unknown' },
  { key: 'schedule_changed_at', header: 'Schedule changed' },
  { key: 'verify', header: 'Verify', get: (e: ReportEntry) => (e.verify ? `${e.verify.of_newest ? '' : 'older backup '}${e.verify.state} ${e.verify.at}` : 'never') },
  { key: 'restore_test', header: 'Restore test', get: (e: ReportEntry) => (e.restore_test ? `${e.restore_test.of_newest ? '' : 'older backup '}${e.restore_test.state} ${e.restore_test.at}` : 'never') },
  { key: 'restore_seconds', header: 'Time to restore (s)', get: (e: ReportEntry) => (e.restore_test?.state === 'passed' ? e.restore_test.total_seconds : null) },
  { key: 'anomalies', header: 'Anomalies', get: (e: ReportEntry) => anomalyCell(e.anomalies) },
  { key: 'last_clean', header: 'Last clean', get: (e: ReportEntry) => e.anomalies?.last_clean?.id ?? '' },
];

export function totalsLine(noun: string, t: ReportTotals): string {
  const expected =
    t.computable === t.entries ? `${t.expected} expected runs` : t.computable === 0 ? 'expected runs cannot be computed' : `${t.expected} expected runs (of ${t.computable} ${noun}s)`;
  const parts = [`${t.entries} ${noun}${t.entries === 1 ? '' : 's'}`, expected, `${t.completed} completed`];
  if (t.completed_with_errors) parts.push(`${t.completed_with_errors} with errors`);
  if (t.failed + t.expired) parts.push(`${t.failed + t.expired} failed`);
  if (t.computable) parts.push(`${t.missed} missed`);
  if (t.unknown) parts.push(`${t.unknown} unknown (schedule changed)`);
  if (t.pending + t.in_progress) parts.push(`${t.pending + t.in_progress} not finished yet`);
  if (t.unscheduled) parts.push(`${t.unscheduled} unscheduled`);
  if (t.schedule_unknown) parts.push(`${t.schedule_unknown} of unknown schedule`);
  return `${parts.join(', ')}; success ${percent(t.success_rate)}`;
}

export interface TableOptions {
  palette: Palette;
  width: number;
  noHeaders: boolean;
  now: Date;
  /** --explain: the rules after the tables. */
  explain?: boolean;
  /** --all-profiles: the entries come from several profiles, each shown in a first column. */
  profiles?: boolean;
}

/** The terminal view. */
export function reportTable(doc: ReportDocument, o: TableOptions): string {
  const p = o.palette;
  const window = `${utcTime(doc.window.since)} to ${utcTime(doc.window.until)}, grace ${durationText(doc.window.grace_seconds * 1000)}`;
  let out = wrapParts([{ plain: 'Report', shown: p.bold('Report') }, ...wordParts(window)], o.width, ' ', displayWidth, '  ')
    .map((line) => `${line}\n`)
    .join('');
  for (const [key, title, noun] of SECTIONS) {
    const totals = doc.summary[key];
    if (totals) out += proseLines(`${title}: ${totalsLine(noun, totals)}`, o.width);
  }
  for (const [key, title] of SECTIONS) {
    const entries = doc[key];
    if (!entries || (key !== 'jobs' && !entries.length)) continue;
    out += `\n${p.bold(title)}\n`;
    if (!entries.length) {
      out += 'None.\n';
      continue;
    }
    const profileColumn: ViewColumn<ReportEntry>[] = o.profiles ? [{ key: 'profile', header: 'PROFILE', floor: 8, text: (e) => sanitize(profileOf(e)) }] : [];
    const columns: ViewColumn<ReportEntry>[] = [...profileColumn, ...HEADERS.map(([k, header]) => ({
      key: k,
      header,
      text: (e: ReportEntry) => rowValues(e, o.now)[k]!,
      ...(k === 'missed' || k === 'failed'
        ? { style: (text: string) => (/^0( |$)/.test(text) ? text : text === 'unknown' ? p.yellow(text) : p.red(text)) }
        : k === 'expected'
          ? { style: (text: string) => (text === 'unknown' ? p.yellow(text) : text) }
        : k === 'anomalies'
          ? { style: (text: string, e: ReportEntry) => (e.anomalies?.anomalous ? p.red(text) : e.anomalies?.acknowledged ? p.dim(text) : text) }
        : k === 'verify' || k === 'restore_test'
          ? { style: (text: string) => (text.startsWith('failed') ? p.red(text) : text === 'never' ? p.yellow(text) : text) }
        : k === 'success'
          ? { style: (text: string, e: ReportEntry) => (e.success_rate === null ? text : e.success_rate >= 0.999 ? p.green(text) : e.success_rate >= 0.9 ? p.yellow(text) : p.red(text)) }
          : {}),
      ...(k === 'name' ? { floor: 12 } : {}),
    }))];
    // At 60 columns what is left is name, expected, ok, errors, failed, missed and success.
    out += table(entries, columns, o, { dropOrder: ['anomalies', 'schedule', 'size', 'p95', 'restore_test', 'last_success', 'median', 'verify', 'unscheduled', 'with_errors'] });
    out += details(entries, (line) => `  ${line}`, (e) => `${profileOf(e) ? `${sanitize(profileOf(e))}: ` : ''}${entryLabel(e)}`, sanitize, p, o.width);
  }
  if (o.explain) out += `\n${p.bold('Rules')}\n${doc.notes.map((n) => proseLines(`- ${n}`, o.width)).join('')}`;
  else out += `\n${p.dim('The rules: backupctl report --explain.')}\n`;
  return out;
}

/**
 * A line of prose wrapped at the terminal's width (a piped width is infinite: never
 * wrapped), the lines after the first indented; each line styled after wrapping,
 * so the width is measured on what shows.
 */
function proseLines(text: string, width: number, style: (line: string) => string = (line) => line): string {
  return wrapHanging(text, width, '  ', displayWidth)
    .map((line) => `${style(line)}\n`)
    .join('');
}

/** Missed runs and notes under a section, one line per entry that has some. */
function details(
  entries: readonly ReportEntry[],
  indent: (line: string) => string,
  label: (e: ReportEntry) => string,
  escape: (text: string) => string,
  p?: Palette,
  width = Infinity,
): string {
  let out = '';
  for (const e of entries) {
    if (!e.missed_runs.length) continue;
    const shown = e.missed_runs.slice(0, 10).map((t) => localTime(t, e.timezone));
    const more = e.missed_runs.length > shown.length ? ` and ${e.missed_runs.length - shown.length} more` : '';
    out += proseLines(indent(`${label(e)}: missed ${shown.join(', ')}${more}`), width, p ? (line) => p.red(line) : undefined);
  }
  // What anomalies found in the catalog (issue 33): the backups not acknowledged and the last clean one; the acknowledged ones as such.
  for (const e of entries) {
    const w = anomalyWarning(e.anomalies);
    if (w) out += proseLines(indent(`${label(e)}: ${escape(w.text)}`), width, p ? (line) => p.red(line) : undefined);
    for (const a of acknowledgedLines(e.anomalies)) out += proseLines(indent(`${label(e)}: ${escape(a)}`), width, p ? (line) => p.dim(line) : undefined);
  }
  for (const { entry, note } of sectionNotes(entries)) out += proseLines(indent(`${entry ? label(entry) : `all ${entries.length}`}: ${escape(note)}`), width);
  return out;
}

// ---------------------------------------------------------------------------
// Markdown

/** Service text in a Markdown table cell: no control characters, no markup, no cell breaks. */
export function mdText(text: string): string {
  return sanitize(text).replace(/[\\`*_{}[\]()<>#+!|~]/g, (c) => `\\${c}`);
}

/** Service text as a code span in a table cell: no backticks, pipes escaped (GitHub reads \| inside code spans too). */
function mdCode(text: string): string {
  return `\`${sanitize(text).replace(/`/g, "'").replace(/\|/g, '\\|')}\``;
}

export function reportMarkdown(doc: ReportDocument): string {
  const lines: string[] = [];
  lines.push(`# Backup report`, '');
  lines.push(`Window: ${utcTime(doc.window.since)} to ${utcTime(doc.window.until)}; grace ${durationText(doc.window.grace_seconds * 1000)}; made ${utcTime(doc.generated_at)}.`, '');
  lines.push('## Summary', '');
  for (const [key, title, noun] of SECTIONS) {
    const totals = doc.summary[key];
    if (totals) lines.push(`- **${title}**: ${totalsLine(noun, totals)}`);
  }
  lines.push('');
  for (const [key, title] of SECTIONS) {
    const entries = doc[key];
    if (!entries || (key !== 'jobs' && !entries.length)) continue;
    lines.push(`## ${title}`, '');
    if (!entries.length) {
      lines.push('None.', '');
      continue;
    }
    // The anomalies column only where the catalog knows a job's backups (as the terminal table leaves an empty column out).
    const headers = HEADERS.filter(([k]) => k !== 'anomalies' || entries.some((e) => e.anomalies));
    lines.push(`| ${headers.map(([, h]) => h.charAt(0) + h.slice(1).toLowerCase()).join(' | ')} |`);
    lines.push(`|${headers.map(([k]) => (k === 'name' || k === 'schedule' || k === 'last_success' || k === 'verify' || k === 'restore_test' || k === 'anomalies' ? ' --- ' : ' ---: ')).join('|')}|`);
    for (const e of entries) {
      const v = rowValues(e, null);
      const schedule = scheduleText(e, mdCode, mdText, '; ');
      lines.push(`| ${headers.map(([k]) => (k === 'schedule' ? schedule : k === 'name' ? mdText(v[k]!) : v[k]!.replace(/\|/g, '\\|'))).join(' | ')} |`);
    }
    const more = details(entries, (line) => `- ${line}`, (e) => `**${mdText(e.name ?? String(e.id ?? '?'))}**`, mdText);
    if (more) lines.push('', more.trimEnd());
    lines.push('');
  }
  if (doc.assurance) lines.push(evidenceMarkdown(doc.assurance));
  lines.push('## Rules', '', ...doc.notes.map((n) => `- ${n}`), '');
  return lines.join('\n');
}
