// Fingerprints on the way (issue 33 §1): whichever command reads a backup
// (verify, restore-test, scan) adds one FingerprintSink per file to the read
// pipeline's fan-out, and records the backup's fingerprint in the catalog once
// all its files are read. The read's own checks decide the fingerprint's
// read_verdict: only a backup whose every file verified can join a baseline.
import type { ContentSink, FileOutcome, PipelineBackup, PipelineFile } from '../pipeline/types.js';
import type { BackupFingerprint, CatalogState as Catalog, FileFingerprint } from '../state/catalog.js';
import { FingerprintSink } from './fingerprint.js';

/** Seconds between a record's started_at and completed_at, or null. */
export function durationOf(record: Record<string, unknown> | undefined): number | null {
  if (!record) return null;
  const start = typeof record.started_at === 'string' ? Date.parse(record.started_at) : NaN;
  const end = typeof record.completed_at === 'string' ? Date.parse(record.completed_at) : NaN;
  return Number.isFinite(start) && Number.isFinite(end) && end >= start ? Math.round((end - start) / 1000) : null;
}

/**
 * Collects the fingerprints of the files read and saves each backup's once its
 * last file is judged. `records` gives the service's record of each backup
 * (for the duration).
 */
export class FingerprintRecorder {
  private readonly pending = new Map<string, { backup: PipelineBackup; outcomes: Array<FileOutcome<unknown>> }>();
  private readonly saves: Array<Promise<void>> = [];
  readonly saved: BackupFingerprint[] = [];

  constructor(
    private readonly catalog: Catalog,
    private readonly by: BackupFingerprint['recorded_by'],
    private readonly records: Map<string, Record<string, unknown>>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The sink of one file (give it to the pipeline's `sinks`). */
  sink(file: PipelineFile, backup: PipelineBackup): ContentSink<unknown> {
    const index = backup.files.indexOf(file);
    return new FingerprintSink(file.name, this.catalog.listingPath(backup.id, index < 0 ? backup.files.findIndex((f) => f.name === file.name) : index));
  }

  /** Call with every file outcome (the pipeline's onFile). */
  add(outcome: FileOutcome<unknown>): void {
    const id = outcome.backup.id;
    let entry = this.pending.get(id);
    if (!entry) {
      entry = { backup: outcome.backup, outcomes: [] };
      this.pending.set(id, entry);
    }
    entry.outcomes.push(outcome);
    if (entry.outcomes.length === outcome.backup.files.length) {
      this.pending.delete(id);
      this.saves.push(this.save(entry.backup, entry.outcomes));
    }
  }

  private async save(backup: PipelineBackup, outcomes: Array<FileOutcome<unknown>>): Promise<void> {
    const files: FileFingerprint[] = outcomes.map((o) => {
      const fp = o.extras.map((x) => (x.ok && isFingerprint(x.value) ? x.value : undefined)).find(Boolean);
      // The sink counts the decoded bytes it was given; the fingerprint states the bytes as stored.
      // Encrypted, not decrypted (no key given): the read's own verdict says so; a later read with a key reads it again.
      const encrypted = o.result.verdict === 'encrypted' ? { encrypted: true } : {};
      return fp ? { ...fp, bytes: o.result.bytes, ...encrypted } : { name: o.file.name, bytes: o.result.bytes, gzip: false, kind: 'other', note: 'not fingerprinted (the read did not finish)', ...encrypted };
    });
    const verdicts = outcomes.map((o) => o.result.verdict);
    const fp: BackupFingerprint = {
      version: 1,
      backup_id: backup.id,
      job_id: backup.job_id ?? null,
      created_at: backup.created_at,
      recorded_at: this.now().toISOString(),
      recorded_by: this.by,
      read_verdict: verdicts.includes('failed') ? 'failed' : verdicts.every((v) => v === 'verified') ? 'passed' : 'unchecked',
      size_bytes: outcomes.reduce((n, o) => n + o.result.bytes, 0),
      duration_s: durationOf(this.records.get(backup.id)),
      files,
    };
    await this.catalog.save(fp);
    this.saved.push(fp);
  }

  /** Waits for every save. */
  async flush(): Promise<void> {
    await Promise.all(this.saves);
  }
}

function isFingerprint(v: unknown): v is FileFingerprint {
  return typeof v === 'object' && v !== null && 'kind' in v && 'bytes' in v && 'gzip' in v;
}
