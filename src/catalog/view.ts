// How scan, anomalies, ls, find and diff show what they found: the table
// columns, the anomalies document (--json) and its text and Prometheus forms,
// and the lines of a listing and of a diff.
import type { Column } from '../contract/context.js';
import type { BackupFingerprint } from '../state/catalog.js';
import type { BackupAnomalies, JobAnomalies } from './anomalies.js';
import { modeText, type ListingEntry } from './listing.js';
import { utcMinute } from '../output/format.js';
import { sanitize } from '../output/sanitize.js';
import { encryptedHint } from '../pipeline/encrypted.js';

export interface FingerprintRow {
  id: string;
  created_at: string | null;
  read: string;
  files: number;
  entries: number | null;
  bytes: number;
  tables: number | null;
  rows: number | null;
  high_entropy: number | null;
}

export function fingerprintRows(fps: BackupFingerprint[]): FingerprintRow[] {
  return fps.map((fp) => {
    const archives = fp.files.filter((f) => f.archive);
    const sql = fp.files.filter((f) => f.sql);
    const tables = sql.flatMap((f) => Object.values(f.sql!.tables));
    return {
      id: fp.backup_id,
      created_at: fp.created_at,
      read: fp.read_verdict,
      files: fp.files.length,
      entries: archives.length ? archives.reduce((n, f) => n + f.archive!.entries, 0) : null,
      bytes: fp.size_bytes,
      tables: sql.length ? tables.length : null,
      rows: sql.length ? tables.reduce((a, b) => a + b, 0) : null,
      high_entropy: archives.length ? archives.reduce((n, f) => n + f.archive!.high_entropy, 0) : null,
    };
  });
}

export const fingerprintColumns: Column[] = [
  { key: 'id', header: 'BACKUP' },
  { key: 'created_at', header: 'CREATED' },
  { key: 'read', header: 'READ' },
  { key: 'files', header: 'FILES' },
  { key: 'bytes', header: 'BYTES' },
  { key: 'entries', header: 'ENTRIES' },
  { key: 'high_entropy', header: 'RANDOM-LOOKING' },
  { key: 'tables', header: 'TABLES' },
  { key: 'rows', header: 'ROWS' },
];

export interface AnomaliesDocument {
  generated_at: string;
  since: string;
  thresholds: JobAnomalies['thresholds'];
  summary: { jobs: number; backups: number; anomalous: number; acknowledged: number; clean: number; unchecked: number };
  jobs: Array<{ job: { id: string; name: string | null }; backups: BackupAnomalies[]; last_clean: JobAnomalies['last_clean'] }>;
}

export function anomaliesDocument(results: Array<JobAnomalies & { job: { id: string; name: string | null } }>, since: string, now: Date): AnomaliesDocument {
  const all = results.flatMap((r) => r.backups);
  const count = (v: BackupAnomalies['verdict']) => all.filter((b) => b.verdict === v).length;
  return {
    generated_at: now.toISOString(),
    since,
    thresholds: results[0]!.thresholds,
    summary: { jobs: results.length, backups: all.length, anomalous: count('anomalous'), acknowledged: count('acknowledged'), clean: count('clean'), unchecked: count('unchecked') },
    jobs: results.map((r) => ({ job: r.job, backups: r.backups, last_clean: r.last_clean })),
  };
}


const short = (id: string) => id.slice(0, 8);

/** The text report: per job, the backups that are not clean with their findings and evidence, then the last clean backup. */
export function anomaliesText(doc: AnomaliesDocument, columns: number): string {
  const out: string[] = [];
  const width = Math.max(40, columns);
  for (const j of doc.jobs) {
    const name = j.job.name ?? j.job.id;
    const bad = j.backups.filter((b) => b.verdict !== 'clean');
    const clean = j.backups.length - bad.length;
    out.push(`${name}: ${j.backups.length} backup${j.backups.length === 1 ? '' : 's'} judged, ${clean} clean${bad.length ? `, ${bad.filter((b) => b.verdict === 'anomalous').length} anomalous` : ''}`);
    for (const b of bad) {
      const head = `  ${utcMinute(b.created_at)}  ${b.backup_id}  ${b.verdict.toUpperCase()}`;
      out.push(b.ack ? `${head} (acknowledged ${utcMinute(b.ack.at)}${b.ack.note ? `: ${b.ack.note}` : ''})` : head);
      if (b.verdict === 'unchecked') out.push(b.encrypted ? `    ${encryptedHint(name)}: not judged, not in the baseline` : '    its read did not pass verify\'s checks: not judged, not in the baseline');
      for (const f of b.findings) {
        out.push(cut(`    ${f.signal.padEnd(15)}${f.message}`, width));
        const paths = (f.evidence.paths ?? f.evidence.examples) as string[] | undefined;
        if (paths?.length) out.push(cut(`    ${''.padEnd(15)}${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ', …' : ''}`, width));
      }
      if (b.findings.length) out.push(`    ${'last clean'.padEnd(15)}${b.last_clean ? `${b.last_clean.id} (${utcMinute(b.last_clean.created_at)})` : 'none before it'}`);
    }
    out.push(`  last clean backup: ${j.last_clean ? `${j.last_clean.id} (${utcMinute(j.last_clean.created_at)})` : 'none'}`);
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function cut(s: string, width: number): string {
  return s.length > width ? `${s.slice(0, width - 1)}…` : s;
}

const label = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
/** The labels every job series of backupctl carries (status -o prometheus): job_id and job_name. */
const jobLabels = (j: { id: string; name: string | null }) => `job_id="${label(j.id)}",job_name="${label(j.name ?? '')}"`;

export function anomaliesPrometheus(doc: AnomaliesDocument): string {
  const lines = [
    '# HELP backupctl_anomalous_backups Backups of the window with a finding not acknowledged.',
    '# TYPE backupctl_anomalous_backups gauge',
  ];
  for (const j of doc.jobs) lines.push(`backupctl_anomalous_backups{${jobLabels(j.job)}} ${j.backups.filter((b) => b.verdict === 'anomalous').length}`);
  lines.push('# HELP backupctl_anomaly_findings Findings of the newest judged backup, by signal.', '# TYPE backupctl_anomaly_findings gauge');
  for (const j of doc.jobs) {
    const newest = j.backups.at(-1);
    const bySignal = new Map<string, number>();
    for (const f of newest?.verdict === 'anomalous' ? newest.findings : []) bySignal.set(f.signal, (bySignal.get(f.signal) ?? 0) + 1);
    for (const [signal, n] of bySignal) lines.push(`backupctl_anomaly_findings{${jobLabels(j.job)},signal="${signal}"} ${n}`);
  }
  lines.push('# HELP backupctl_last_clean_backup_timestamp_seconds When the newest clean backup was made.', '# TYPE backupctl_last_clean_backup_timestamp_seconds gauge');
  for (const j of doc.jobs) {
    const t = j.last_clean?.created_at ? Date.parse(j.last_clean.created_at) : NaN;
    if (Number.isFinite(t)) lines.push(`backupctl_last_clean_backup_timestamp_seconds{${jobLabels(j.job)}} ${Math.floor(t / 1000)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `ls --long`: "-rw-r--r--  0/0  1234  2024-03-01 00:00  path". */
export function longLine(e: ListingEntry): string {
  const date = new Date(e.mtime * 1000).toISOString().slice(0, 16).replace('T', ' ');
  // The archive's names: escape sequences and line breaks removed (sanitize), as everywhere on a terminal.
  return `${modeText(e.type, e.mode)}  ${`${e.uid}/${e.gid}`.padEnd(9)} ${String(e.size).padStart(10)}  ${date}  ${sanitize(e.path)}${e.type === 'd' ? '/' : ''}${e.link ? ` -> ${sanitize(e.link)}` : ''}`;
}

export { short };
