// Reading backups into the catalog: `backupctl scan`, and what `anomalies`,
// `ls`, `find` and `diff` do for a backup that is not there yet. The backups
// go through the one read pipeline (signed URL, no Authorization, verify's
// checks on the way, nothing written but the catalog) with a FingerprintSink
// per file.
import type { Context } from '../contract/context.js';
import type { Backup } from '../backups/record.js';
import type { BackupFingerprint, CatalogState as Catalog } from '../state/catalog.js';
import type { Decryptor } from '../pipeline/decrypt.js';
import { undecrypted } from '../pipeline/encrypted.js';

/** The catalog of the service this profile talks to: in the state folder, or the PostgreSQL state the team shares (src/state/open.ts). */
export async function catalogFor(ctx: Context): Promise<Catalog> {
  const { openCatalog } = await import('../state/open.js');
  return openCatalog(ctx);
}

export interface ScanOptions {
  /** Read again backups already in the catalog. */
  rescan?: boolean;
  parallel?: number;
  by?: BackupFingerprint['recorded_by'];
  /** Decrypt on the way (--private-key, --decrypt-with, the job's settings): a backup the catalog holds undecrypted is read again. */
  decrypt?: Decryptor;
}

/**
 * Fingerprints of `records` (one job's backups), reading those the catalog
 * lacks. Returns them in the order given, and how many were read now.
 */
export async function ensureFingerprints(ctx: Context, catalog: Catalog, records: Backup[], o: ScanOptions = {}): Promise<{ fingerprints: BackupFingerprint[]; read: number }> {
  const known = new Map<string, BackupFingerprint>();
  const missing: Backup[] = [];
  for (const r of records) {
    let fp = o.rescan ? undefined : await catalog.get(r.id);
    // Read without a key before: with one now, its content can be read.
    if (fp && o.decrypt && isEncrypted(r) && o.decrypt.applies({ backupId: r.id, encryptionKey: String(r.encryption_key), fileName: '' }) && fp.files.some((f) => undecrypted(f, true))) fp = undefined;
    if (fp) known.set(r.id, fp);
    else missing.push(r);
  }
  if (missing.length) {
    const [{ pipelineBackup }, { readBackups }, { signedUrlTransfer }, { boundsFromEnv }, { FingerprintRecorder }] = await Promise.all([
      import('../pipeline/select.js'),
      import('../pipeline/index.js'),
      import('../pipeline/transfer.js'),
      import('../pipeline/bounds.js'),
      import('./record.js'),
    ]);
    const settings = await ctx.settings();
    const targets = [];
    for (const r of missing) targets.push(await pipelineBackup(ctx, r));
    const recorder = new FingerprintRecorder(catalog, o.by ?? 'scan', new Map(missing.map((r) => [r.id, r as Record<string, unknown>])));
    const spinner = ctx.spinner(`reading ${missing.length} backup${missing.length === 1 ? '' : 's'} into the catalog`);
    try {
      await readBackups<unknown>(
        targets.filter((t) => t.files.length),
        {
          transfer: signedUrlTransfer({ signal: ctx.signal, timeoutMs: settings.timeoutMs, stderr: ctx.io.stderr, debug: settings.debug }),
          parallel: o.parallel ?? 2,
          signal: ctx.signal,
          now: () => new Date(),
          inspect: { bounds: boundsFromEnv(ctx.env) },
          decrypt: o.decrypt,
          sinks: (file, backup) => [recorder.sink(file, backup)],
          onFile: (outcome) => recorder.add(outcome),
        },
      );
      await recorder.flush();
    } finally {
      spinner.stop();
    }
    for (const fp of recorder.saved) known.set(fp.backup_id, fp);
  }
  return { fingerprints: records.map((r) => known.get(r.id)).filter((x): x is BackupFingerprint => !!x), read: missing.length };
}

/** The backup's record names an encryption key (its files are encrypted as stored). */
export function isEncrypted(record: Backup): boolean {
  const key = (record as Record<string, unknown>).encryption_key;
  return typeof key === 'string' && key !== '';
}

/** The completed backups with files of a job created at or after `since` (ISO), newest first. */
export async function backupsOfJob(ctx: Context, jobId: string, since: string | undefined): Promise<Backup[]> {
  const { selectBackups } = await import('../pipeline/select.js');
  return selectBackups(ctx, jobId, { latest: false, since, text: since ? `since ${since}` : 'all' });
}

/** One backup of a job by id (exit 5 when it belongs to another job), or `latest`: its newest completed backup (exit 9 when none). */
export async function backupOfJobById(ctx: Context, jobId: string, backupId: string): Promise<Backup> {
  const { selectBackups } = await import('../pipeline/select.js');
  if (backupId === 'latest') {
    const [newest] = await selectBackups(ctx, jobId, { latest: true, text: 'latest' });
    if (!newest) {
      const { EmptyResultError } = await import('../errors.js');
      throw new EmptyResultError('the job has no completed backup: "latest" names none');
    }
    return newest;
  }
  const [record] = await selectBackups(ctx, jobId, { backup: backupId, latest: false, text: `backup ${backupId}` });
  return record!;
}

/** The job's name (the runner has turned a name given into the id). */
export async function jobName(ctx: Context, id: string): Promise<string | null> {
  const { fetchJob } = await import('../backups/job.js');
  return (await fetchJob(await ctx.client(), id, ctx.signal)).name;
}

/** Every job of the account: id and name. */
export async function allJobs(ctx: Context): Promise<Array<{ id: string; name: string | null }>> {
  const client = await ctx.client();
  const out: Array<{ id: string; name: string | null }> = [];
  for await (const page of client.pages({ method: 'GET', path: '/jobs', query: { page_size: 100 } }, { all: true, signal: ctx.signal })) {
    for (const r of page.records as Array<Record<string, unknown>>) {
      if (r && (typeof r.id === 'string' || typeof r.id === 'number')) out.push({ id: String(r.id), name: typeof r.name === 'string' ? r.name : null });
    }
  }
  return out;
}
