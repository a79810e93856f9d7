// How a restore-test document is shown: a table of files with a summary line
// per backup (read + restore = recovery time), the lines --check writes,
// Markdown for an audit folder, and Prometheus metrics per job.
import type { Column } from '../contract/context.js';
import { displayWidth, humanBytes, whenAndAge } from '../output/format.js';
import { sanitize } from '../output/sanitize.js';
import { wrapHanging } from '../util/wrap.js';
import { newestMarkAt, type MarkInput, type MarkedBackup } from '../state/marks.js';
import type { RestoreBackupResult, RestoreDocument, RestoreFileResult } from './document.js';
import { engineById, engineOf } from './registry.js';

/** A database engine (it lists tables) says where it ran; the others (the walker, the extraction) always run inside backupctl. */
const ranSomewhere = (e: NonNullable<RestoreFileResult['engine']>) => engineById(e.name)?.lists === 'tables';

export function engineText(f: Pick<RestoreFileResult, 'engine'>): string {
  if (!f.engine) return '';
  const { product, version, runs } = f.engine;
  const how = !ranSomewhere(f.engine) ? '' : runs === 'server' ? ' (--into)' : ` (${runs})`;
  return `${product}${version ? ` ${version}` : ''}${how}`;
}

/** The engine as a restore mark names it: "PostgreSQL 16.4 (local)", "bson", "tar". */
export function markEngineText(e: NonNullable<RestoreFileResult['engine']>): string {
  return ranSomewhere(e) ? `${e.product}${e.version ? ` ${e.version}` : ''} (${e.runs})` : e.product;
}

/** The note of a file: why it failed, else what is worth knowing. */
export function fileNote(f: RestoreFileResult): string {
  const parts: string[] = [];
  if (f.check.verdict === 'failed') parts.push(`failed the checks on the way: ${f.check.reason}`);
  else if (f.failure) parts.push(`${f.failure.message}${f.failure.line ? ` (line ${f.failure.line})` : ''}`);
  const said = f.exec?.output_tail.trim().split('\n').at(-1);
  if (f.exec && f.failure && said) parts.push(`its output ends: ${said.slice(0, 200)}`);
  // A failed assertion is already the failure's message; said again only when something else failed first.
  if (!f.failure?.message.startsWith('--assert')) for (const a of f.assertions.filter((a) => !a.ok)) parts.push(`--assert ${JSON.stringify(a.sql)} gave ${a.error ?? a.value ?? 'NULL'}`);
  if (f.verdict === 'structure-checked') parts.push('structure checked, not restored');
  if (f.exec && !f.failure) parts.push(`--exec exited 0 in ${f.exec.seconds.toFixed(2)} s`);
  // Which rights the dump ran with (engine.rights in --json has the whole sentence).
  if (f.engine?.rights) parts.push(`dump ran as ${f.engine.rights.split(/[:,(]/)[0]!.trim()}`);
  parts.push(...f.warnings);
  return parts.map(sanitize).join('; ');
}

const secs = (n: number) => `${n.toFixed(2)}s`;

/** Files whose tables (collections) mean something: a database dump, restored or tried. */
const hasTables = (f: RestoreFileResult) => f.verdict !== 'not-restorable' && (f.tables.length > 0 || engineOf(f.kind)?.lists === 'tables' || engineOf(f.kind)?.lists === 'collections');

/** One row per file, for the table and tsv. */
export const restoreFileColumns: Column[] = [
  { key: 'verdict', header: 'Verdict', format: 'status' },
  { key: 'name', header: 'File' },
  { key: 'engine', header: 'Engine', get: (f: RestoreFileResult) => engineText(f) },
  { key: 'tables', header: 'Tables', get: (f: RestoreFileResult) => (hasTables(f) ? f.tables.length : '') },
  { key: 'rows', header: 'Rows', get: (f: RestoreFileResult) => (f.files !== null ? `${f.files} files` : hasTables(f) ? f.rows : '') },
  { key: 'bytes_read', header: 'Size', format: 'size' },
  { key: 'read_seconds', header: 'Read', get: (f: RestoreFileResult) => secs(f.read_seconds) },
  { key: 'restore_seconds', header: 'Restore', get: (f: RestoreFileResult) => secs(f.restore_seconds) },
  { key: 'note', header: 'Note', get: (f: RestoreFileResult) => fileNote(f) },
];

/**
 * "Backup 1a2b… (created …): restore test passed, 3 tables, 412 rows; read in 0.21 s, restored in 0.34 s as it
 * streamed: recovery time 0.40 s". The verdict in the words of the marks; a recovery time only where data was restored.
 */
export function backupSummaryLine(b: RestoreBackupResult, now: Date = new Date()): string {
  const when = whenAndAge(b.created_at, now);
  const created = when ? ` (created ${when[0]}, ${when[1]})` : b.created_at ? ` (created ${sanitize(b.created_at)})` : '';
  const what = b.files.some((f) => f.files !== null)
    ? `${b.files.reduce((n, f) => n + (f.files ?? 0), 0)} files, ${humanBytes(b.files.reduce((n, f) => n + (f.files !== null ? (f.bytes ?? 0) : 0), 0))} extracted`
    : `${b.tables} table${b.tables === 1 ? '' : 's'}, ${b.rows} row${b.rows === 1 ? '' : 's'}`;
  const read = `read in ${b.read_seconds.toFixed(2)} s`;
  switch (b.verdict) {
    case 'passed':
      return `Backup ${sanitize(b.id)}${created}: restore test passed, ${what}; ${read}, restored in ${b.restore_seconds.toFixed(2)} s as it streamed: recovery time ${b.total_seconds.toFixed(2)} s`;
    case 'structure-only':
      return `Backup ${sanitize(b.id)}${created}: restore test structure-only, ${b.tables} collection${b.tables === 1 ? '' : 's'}, ${b.rows} document${b.rows === 1 ? '' : 's'} parsed (structure checked, not restored: no recovery time); ${read}`;
    case 'unchecked':
      return `Backup ${sanitize(b.id)}${created}: restore test unchecked (${sanitize(b.reason ?? 'nothing restored')}); ${read}`;
    case 'not-tested':
      return `Backup ${sanitize(b.id)}${created}: restore test not-tested (${sanitize(b.reason ?? 'the test could not run')}); the backup is not judged`;
    default:
      return `Backup ${sanitize(b.id)}${created}: restore test FAILED (${sanitize(b.reason ?? 'failed')}), ${what}; ${read}, restored in ${b.restore_seconds.toFixed(2)} s`;
  }
}

/** The exit code a restore test gives for its verdict (src/errors.ts ExitCode); `strict`: --check without --allow-unchecked. */
export function restoreExitCode(b: RestoreBackupResult, o: { check: boolean; allowUnchecked: boolean }): number {
  switch (b.verdict) {
    case 'passed':
      return 0;
    case 'failed':
      return b.files.some((f) => f.check.verdict === 'failed') ? 11 : 14;
    case 'not-tested': {
      const transfer = b.files.find((f) => f.check.verdict === 'not-tested');
      // The transfer's own cause (6 network or service, 4 a refused signed URL); else the scratch server or engine (15).
      return transfer ? 6 : 15;
    }
    // Not a failure: the content was not proven here (18, as verify --check gives an unchecked backup).
    case 'unchecked':
      return o.allowUnchecked ? 0 : 18;
    case 'structure-only':
      return o.check && !o.allowUnchecked ? 18 : 0;
  }
}

/** The mark a restore test leaves on its backup (src/state/marks.ts). */
export function restoreMarks(doc: RestoreDocument, o: { check: boolean; allowUnchecked: boolean; engine: string | null }): MarkInput[] {
  const at = new Date(Date.parse(doc.generated_at) + doc.summary.total_seconds * 1000).toISOString();
  return doc.backups.map((b) => ({
    backupId: b.id,
    jobId: doc.job.id,
    createdAt: b.created_at,
    mark: {
      at,
      state: b.verdict,
      reason: b.reason,
      exit_code: restoreExitCode(b, o),
      ...(b.verdict === 'passed' ? { total_seconds: b.total_seconds } : {}),
      ...(b.verdict === 'passed' || b.verdict === 'structure-only' ? { rows: b.rows, tables: b.tables } : {}),
      engine: o.engine,
      // What each --assert found (assure's validations): the evidence report says which held.
      ...(b.files.some((f) => f.assertions.length) ? { assertions: b.files.flatMap((f) => f.assertions.map((a) => ({ sql: a.sql, ok: a.ok }))) } : {}),
    },
  }));
}

export function summaryText(doc: RestoreDocument, width = Infinity): string {
  return `${doc.backups.flatMap((b) => wrapHanging(backupSummaryLine(b), width, '  ', displayWidth)).join('\n')}\n`;
}

export function failureLines(doc: RestoreDocument): string[] {
  return doc.backups.flatMap((b) => b.files.filter((f) => f.verdict === 'failed' || f.verdict === 'not-tested').map((f) => `  ${sanitize(f.name)} (backup ${sanitize(b.id)}): ${fileNote(f)}`));
}

const mdCell = (text: string) => sanitize(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A Markdown record of the test, for an audit folder. */
export function restoreMarkdown(doc: RestoreDocument): string {
  const lines: string[] = [];
  lines.push(`# Restore test: ${mdCell(doc.job.name ?? doc.job.id)}`, '');
  lines.push(`- Job: ${mdCell(doc.job.name ?? '')} (\`${mdCell(doc.job.id)}\`)`);
  lines.push(`- Run: ${doc.generated_at}`);
  lines.push(`- Verdict: **${doc.verdict === 'failed' ? 'FAILED' : doc.verdict}**`);
  for (const b of doc.backups) {
    lines.push(`- Backup: \`${mdCell(b.id)}\`${b.created_at ? `, created ${mdCell(b.created_at)}` : ''}`);
    lines.push(
      b.verdict === 'passed'
        ? `- Time to read: ${b.read_seconds.toFixed(2)} s; time to restore: ${b.restore_seconds.toFixed(2)} s; recovery time: ${b.total_seconds.toFixed(2)} s`
        : `- Time to read: ${b.read_seconds.toFixed(2)} s; no recovery time (${b.verdict === 'structure-only' ? 'structure checked, not restored' : 'nothing restored'})`,
    );
    if (b.reason) lines.push(`- Reason: ${mdCell(b.reason)}`);
    lines.push('', '| Verdict | File | Engine | Tables | Rows | Size | Read | Restore | Note |', '|---|---|---|---:|---:|---:|---:|---:|---|');
    for (const f of b.files) {
      const rows = f.files !== null ? `${f.files} files` : hasTables(f) ? String(f.rows) : '';
      lines.push(`| ${f.verdict} | ${mdCell(f.name)} | ${mdCell(engineText(f))} | ${hasTables(f) ? f.tables.length : ''} | ${rows} | ${humanBytes(f.bytes_read)} | ${secs(f.read_seconds)} | ${secs(f.restore_seconds)} | ${mdCell(fileNote(f))} |`);
    }
    const tables = b.files.flatMap((f) => f.tables);
    if (tables.length) {
      lines.push('', '| Table | Rows in the dump | Rows restored |', '|---|---:|---:|');
      for (const t of tables) lines.push(`| ${mdCell(t.table)} | ${t.expected} | ${t.restored ?? ''} |`);
    }
    const execs = b.files.filter((f) => f.exec);
    for (const f of execs) {
      lines.push('', `--exec \`${mdCell(f.exec!.command)}\` in ${mdCell(f.name)}: exit ${f.exec!.exit_code ?? f.exec!.signal}${f.exec!.timed_out ? ' (timed out)' : ''}`);
      if (f.exec!.output_tail) lines.push('', '```', sanitize(f.exec!.output_tail).replace(/```/g, "'''"), '```');
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Metrics for node_exporter's textfile collector, labelled job_id and job_name; `marks`: the job's marked backups on this machine. */
export async function restorePrometheus(doc: RestoreDocument, marks: readonly MarkedBackup[]): Promise<string> {
  const { Exposition } = await import('../output/prometheus.js');
  const out = new Exposition();
  const labels = { job_id: doc.job.id, job_name: sanitize(doc.job.name ?? '') };
  const at = (iso: string | null | undefined) => (iso ? Date.parse(iso) / 1000 : undefined);
  out.family('backupctl_restore_test_last_run_timestamp_seconds', 'gauge', 'Unix time of the last restore test of the job.', [[labels, at(newestMarkAt(marks, 'restore_test', 'last')) ?? at(doc.generated_at)!]]);
  const success = at(newestMarkAt(marks, 'restore_test', 'conclusive', 'passed'));
  if (success !== undefined) {
    out.family('backupctl_restore_test_last_success_timestamp_seconds', 'gauge', 'Unix time of the last restore test of the job that passed (data restored and counted).', [[labels, success]]);
  }
  out.family('backupctl_restore_test_success', 'gauge', '1 when this restore test passed (data restored and counted), else 0.', [[labels, doc.verdict === 'passed' ? 1 : 0]]);
  out.family(
    'backupctl_restore_test_state',
    'gauge',
    '1 for the verdict of this restore test (passed, structure-only, unchecked, failed, not-tested), 0 for the others.',
    (['passed', 'structure-only', 'unchecked', 'failed', 'not-tested'] as const).map((s) => [{ ...labels, state: s }, doc.verdict === s ? 1 : 0]),
  );
  if (doc.verdict === 'passed') {
    out.family('backupctl_restore_test_duration_seconds', 'gauge', 'Recovery time of the last restore test that restored data: from the first byte read to the last check.', [[labels, doc.summary.total_seconds]]);
  }
  out.family('backupctl_restore_test_rows', 'gauge', 'Rows (documents) restored or parsed by the last restore test.', [[labels, doc.summary.rows]]);
  out.family('backupctl_restore_test_tables', 'gauge', 'Tables (collections) restored or parsed by the last restore test.', [[labels, doc.summary.tables]]);
  return out.toString();
}
