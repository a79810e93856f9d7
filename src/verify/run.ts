// verify = the read pipeline (src/pipeline/) with no extra sink: every file of
// the chosen backups read back through its signed URL and judged on the
// stream (size, sha256 against the ledger, content), nothing written to disk.
// This module turns the pipeline's file verdicts into the verify document (the
// command records each backup's mark). Pure of output: the caller renders.
import { readBackups, type PipelineBackup, type PipelineOptions } from '../pipeline/index.js';
import type { LedgerState as Ledger } from '../state/verify-ledger.js';
import type { BackupResult, FileResult, VerifyDocument } from './document.js';

export type BackupToVerify = PipelineBackup;

export interface VerifyOptions extends Omit<PipelineOptions<unknown>, 'onFile' | 'ledger'> {
  job: { id: string; name: string | null };
  selection: string;
  ledger: Ledger;
  /** Called with each file's result as soon as it is judged (ndjson streams them). */
  onFile?: (file: FileResult) => void;
  /** --strict: a file not inspected (size and hash only) fails. */
  strict?: boolean;
  /** Called with each file's whole outcome, extra sinks' results included (the catalog's fingerprints). */
  onOutcome?: (outcome: import('../pipeline/types.js').FileOutcome<unknown>) => void;
}

const UNCHECKED = new Set(['not-inspected', 'encrypted']);

/** --strict: a file whose content was not checked is a failure, saying so. */
function strictly(f: FileResult): FileResult {
  if (!UNCHECKED.has(f.verdict)) return f;
  // The file's own note (why it was not inspected) follows.
  return { ...f, verdict: 'failed', reasons: ['--strict: content not checked', ...(f.reasons.length ? f.reasons : [`${f.format}: size and hash only`])] };
}

const round = (n: number, digits: number) => Number(n.toFixed(digits));

/** Verifies every file of every backup, `parallel` files at a time; results keep the backups' and files' order. */
export async function verifyBackups(backups: BackupToVerify[], o: VerifyOptions): Promise<VerifyDocument> {
  const startedAt = o.now();
  const { onFile, onOutcome, job, selection, strict = false, ...pipeline } = o;
  const judged = (f: FileResult) => (strict ? strictly(f) : f);
  const outcomes = await readBackups(backups, {
    ...pipeline,
    onFile: (f) => {
      onOutcome?.(f);
      onFile?.(judged(f.result));
    },
  });
  const backupResults: BackupResult[] = backups.map((b, i) => {
    const files: FileResult[] = outcomes[i]!.map((f) => judged(f.result));
    const failed = files.filter((f) => f.verdict === 'failed').length;
    const unchecked = files.filter((f) => UNCHECKED.has(f.verdict)).length;
    const untested = files.filter((f) => f.verdict === 'not-tested').length;
    return {
      id: b.id,
      created_at: b.created_at,
      status: b.status,
      encrypted: b.encrypted,
      verdict: failed ? 'failed' : untested ? 'not-tested' : unchecked ? 'unchecked' : 'passed',
      files_total: files.length,
      files_failed: failed,
      files_unchecked: unchecked,
      bytes_read: files.reduce((n, f) => n + f.bytes, 0),
      seconds: round(files.reduce((n, f) => n + f.seconds, 0), 3),
      files,
    };
  });
  const filesFailed = backupResults.reduce((n, b) => n + b.files_failed, 0);
  const filesUnchecked = backupResults.reduce((n, b) => n + b.files_unchecked, 0);
  const verdicts = new Set(backupResults.map((b) => b.verdict));
  const verdict = (['failed', 'not-tested', 'unchecked', 'passed'] as const).find((v) => verdicts.has(v)) ?? 'passed';
  const now = o.now();
  return {
    generated_at: startedAt.toISOString(),
    job,
    selection,
    strict,
    verdict,
    summary: {
      backups: backupResults.length,
      files: backupResults.reduce((n, b) => n + b.files_total, 0),
      files_failed: filesFailed,
      files_unchecked: filesUnchecked,
      bytes_read: backupResults.reduce((n, b) => n + b.bytes_read, 0),
      seconds: round((now.getTime() - startedAt.getTime()) / 1000, 3),
    },
    backups: backupResults,
  };
}
