// How a verify document is shown: a table of files with a summary line per
// backup, tsv rows, the lines --check writes, and Prometheus metrics per job.
import type { Column } from '../contract/context.js';
import { displayWidth, humanBytes, whenAndAge } from '../output/format.js';
import { sanitize } from '../output/sanitize.js';
import { wrapParts } from '../util/wrap.js';
import { newestMarkAt, type MarkInput, type MarkedBackup } from '../state/marks.js';
import type { BackupResult, FileResult, VerifyDocument } from './document.js';

/** The transfer failed before any byte: no size, no format to show ("0 B" would read like an empty file). */
const notRead = (f: FileResult) => f.format === 'not-read';

/** One row per file; the same columns for the table and tsv (`--columns` picks among them); ids and hashes whole in tsv. */
export const fileColumns: Column[] = [
  { key: 'verdict', header: 'Verdict', format: 'status' },
  { key: 'backup_id', header: 'Backup', short: 8 },
  { key: 'name', header: 'File' },
  { key: 'format', header: 'Format', show: (f: FileResult) => (notRead(f) ? 'not read' : f.format) },
  { key: 'bytes', header: 'Size', format: 'size', show: (f: FileResult) => (notRead(f) ? 'not read' : f.bytes) },
  { key: 'entries', header: 'Entries', get: (f: FileResult) => (f.entries === null ? '' : f.entries) },
  { key: 'sha256', header: 'SHA-256', short: 12 },
  { key: 'seconds', header: 'Time', get: (f: FileResult) => `${f.seconds.toFixed(2)}s` },
  { key: 'mb_per_s', header: 'MiB/s', get: (f: FileResult) => f.mb_per_s.toFixed(1) },
  { key: 'reasons', header: 'Note', get: (f: FileResult) => f.reasons.join('; ') },
];

/** "Backup 1a2b3c4d (created ...): verified, 2 files, 19.2 KB read in 0.05 s" */
const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;

/**
 * What a backup's files came to, led by its verdict (the words of the marks): "passed, 2 files";
 * "unchecked, 2 files: size and hash only, content not checked"; "FAILED, 1 of 2 files failed";
 * "not-tested, 1 of 2 files could not be read".
 */
function outcomeWords(b: BackupResult): string {
  if (b.verdict === 'failed') return `FAILED, ${b.files_failed} of ${files(b.files_total)} failed`;
  if (b.verdict === 'not-tested') return `not-tested, ${b.files.filter((f) => f.verdict === 'not-tested').length} of ${files(b.files_total)} could not be read`;
  if (!b.files_unchecked) return `passed, ${files(b.files_total)}`;
  const unchecked = `${files(b.files_unchecked)}: size and hash only, content not checked`;
  return b.files_unchecked === b.files_total ? `unchecked, ${unchecked}` : `unchecked, ${b.files_total - b.files_unchecked} of ${files(b.files_total)} verified; ${unchecked}`;
}

/** Joins the words of a phrase that a wrap must not part ("58.4 KiB", "0.05 s", a date and its time). */
const KEEP = '\u{E000}';
const whole = (text: string) => text.replace(/ /g, KEEP);

/** "2026-11-26 01:00 UTC, 2 hours ago": never the service's raw ISO text. */
function createdWords(createdAt: string | null, now: Date): string {
  const when = whenAndAge(createdAt, now);
  if (!when) return createdAt ? ` (created ${sanitize(createdAt)})` : '';
  return ` (created ${whole(when[0])}, ${whole(when[1])})`;
}

/** The summary line with its unbreakable phrases marked. */
function summaryMarked(b: BackupResult, now: Date): string {
  return `Backup ${sanitize(b.id)}${createdWords(b.created_at, now)}: ${outcomeWords(b)}, ${whole(humanBytes(b.bytes_read))} read in ${whole(`${b.seconds.toFixed(2)} s`)}`;
}

/** "Backup 3f2b… (created 2026-11-26 01:00 UTC, 2 hours ago): verified, 1 file, 58.4 KiB read in 0.05 s" */
export function backupSummaryLine(b: BackupResult, now: Date = new Date()): string {
  return summaryMarked(b, now).replaceAll(KEEP, ' ');
}

/** The failed files with every reason, one line each. */
export function failureLines(doc: VerifyDocument): string[] {
  return doc.backups.flatMap((b) =>
    b.files.filter((f) => f.verdict === 'failed').map((f) => `  ${sanitize(f.name)} (backup ${sanitize(b.id)}): ${f.reasons.map(sanitize).join('; ')}`),
  );
}

/** The files that could not be read, with why, one line each. */
export function untestedLines(doc: VerifyDocument): string[] {
  return doc.backups.flatMap((b) =>
    b.files.filter((f) => f.verdict === 'not-tested').map((f) => `  ${sanitize(f.name)} (backup ${sanitize(b.id)}): ${f.reasons.map(sanitize).join('; ')}`),
  );
}

/** The reason a backup's mark gives: its first failure, what kept it from being read, or what was not checked. */
function markReason(b: BackupResult): string | null {
  const first = (verdicts: readonly string[]) => b.files.find((f) => verdicts.includes(f.verdict));
  if (b.verdict === 'failed' || b.verdict === 'not-tested') {
    const f = first([b.verdict]);
    return f ? `${f.name}: ${f.reasons.join('; ')}` : null;
  }
  if (b.verdict === 'unchecked') {
    const f = first(['encrypted', 'not-inspected']);
    return `${files(b.files_unchecked)} checked for size and hash only${f ? ` (${f.name}: ${f.reasons[0] ?? f.format})` : ''}`;
  }
  return null;
}

/** The marks a verify leaves (src/state/marks.ts): one per backup, with the exit code it gave. */
export function verifyMarks(doc: VerifyDocument, o: { refuseUnchecked: boolean }): MarkInput[] {
  const at = new Date(Date.parse(doc.generated_at) + doc.summary.seconds * 1000).toISOString();
  return doc.backups.map((b) => {
    const untested = b.files.find((f) => f.verdict === 'not-tested');
    const exit = b.verdict === 'failed' ? 11 : b.verdict === 'not-tested' ? (untested?.exit_code ?? 6) : b.verdict === 'unchecked' && o.refuseUnchecked ? 11 : 0;
    return { backupId: b.id, jobId: doc.job.id, createdAt: b.created_at, mark: { at, state: b.verdict, reason: markReason(b), exit_code: exit } };
  });
}

/** The summary lines, wrapped at `width` (a terminal's; piped output is never wrapped). */
export function summaryText(doc: VerifyDocument, width = Infinity, now: Date = new Date()): string {
  const lines = doc.backups.flatMap((b) => {
    const marked = summaryMarked(b, now);
    if (!Number.isFinite(width) || displayWidth(marked) <= width) return [marked.replaceAll(KEEP, ' ')];
    const parts = marked.split(' ').map((word) => ({ plain: word.replaceAll(KEEP, ' '), shown: word.replaceAll(KEEP, ' ') }));
    return wrapParts(parts, width, ' ', displayWidth, '  ');
  });
  return `${lines.join('\n')}\n`;
}

/** The ids of the backups checked, one a line (-q): whole, for scripts. */
export function backupIds(doc: VerifyDocument): Array<{ id: string }> {
  return doc.backups.map((b) => ({ id: b.id }));
}

/** Metrics for node_exporter's textfile collector, labelled job_id and job_name; `marks`: the job's marked backups on this machine. */
export async function verifyPrometheus(doc: VerifyDocument, marks: readonly MarkedBackup[]): Promise<string> {
  const { Exposition } = await import('../output/prometheus.js');
  const out = new Exposition();
  const labels = { job_id: doc.job.id, job_name: sanitize(doc.job.name ?? '') };
  const at = (iso: string | null | undefined) => (iso ? Date.parse(iso) / 1000 : undefined);
  out.family('backupctl_verify_last_run_timestamp_seconds', 'gauge', 'Unix time of the last verify of the job.', [[labels, at(newestMarkAt(marks, 'verify', 'last')) ?? at(doc.generated_at)!]]);
  const success = at(newestMarkAt(marks, 'verify', 'conclusive', 'passed'));
  if (success !== undefined) {
    out.family('backupctl_verify_last_success_timestamp_seconds', 'gauge', 'Unix time of the last verify of the job that passed (every file read and its content checked).', [[labels, success]]);
  }
  const states = ['passed', 'unchecked', 'failed', 'not-tested'] as const;
  out.family(
    'backupctl_verify_state',
    'gauge',
    '1 for the verdict of this verify (passed, unchecked, failed, not-tested), 0 for the others.',
    states.map((s) => [{ ...labels, state: s }, doc.verdict === s ? 1 : 0]),
  );
  out.family('backupctl_verify_bytes_read', 'gauge', 'Bytes read back by the last verify.', [[labels, doc.summary.bytes_read]]);
  out.family('backupctl_verify_files', 'gauge', 'Files checked by the last verify.', [[labels, doc.summary.files]]);
  out.family('backupctl_verify_files_failed', 'gauge', 'Files that failed the last verify.', [[labels, doc.summary.files_failed]]);
  out.family('backupctl_verify_files_unchecked', 'gauge', 'Files of the last verify checked for size and hash only (content not checked).', [[labels, doc.summary.files_unchecked]]);
  out.family('backupctl_verify_backups', 'gauge', 'Backups checked by the last verify.', [[labels, doc.summary.backups]]);
  return out.toString();
}
