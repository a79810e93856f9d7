// Stage 1 of the read pipeline: which backups of a job to read.
// `<backup>` | `--latest` | `--since <age|datetime>` [`--sample N`], as verify
// and restore-test take them, the ownership of a backup by the job, and each
// chosen backup's files with their signed URLs (src/pipeline/types.ts
// PipelineBackup). Self-contained: it asks the service through ctx.client().
import { recordFileFor } from '../backups/files.js';
import type { ApiResponse, Context } from '../contract/context.js';
import { UsageError } from '../errors.js';
import { backupsSince, newestBackup } from '../backups/newest.js';
import { backupOfJob } from '../backups/ownership.js';
import { type Backup, hasFiles } from '../backups/record.js';
import { isSuccess, successStatuses } from '../backups/status.js';
import type { PipelineBackup } from './types.js';

/** The selection flags of a command, read and checked. */
export interface BackupSelection {
  /** One backup id. */
  backup?: string;
  /** The newest completed backup (also when nothing is given). */
  latest: boolean;
  /** ISO 8601 (the CLI turns "7d" into a time): every backup with files created since then. */
  since?: string;
  /** N of the backups with files, drawn at random (from --since when given). */
  sample?: number;
  /** "latest", "backup <id>", "since 7d, sample 3": for the output. */
  text: string;
}

/**
 * The selection in a command's parsed values (`backup`, `latest`, `since`,
 * `sample`). Two ways at once is a usage error (exit 2) before anything is sent.
 */
export function readSelection(values: Record<string, unknown>, command = 'verify'): BackupSelection {
  const backup = typeof values.backup === 'string' ? values.backup : undefined;
  const since = typeof values.since === 'string' ? values.since : undefined;
  const sample = typeof values.sample === 'number' ? values.sample : undefined;
  const latest = values.latest === true;
  // A backup given by the start of its id counts before it is looked up too (the handler's check, which
  // sends nothing, sees it as a reference to look up: an object).
  const given = backup !== undefined || (typeof values.backup === 'object' && values.backup !== null);
  const ways = [given, latest, since !== undefined || sample !== undefined].filter(Boolean).length;
  if (ways > 1) {
    throw new UsageError('give one selection: a backup id, --latest, or --since/--sample', [
      `  backupctl ${command} <job> --latest`,
      `  backupctl ${command} <job> <backup-id>`,
      `  backupctl ${command} <job> --since 7d [--sample 3]`,
    ]);
  }
  const text = backup
    ? `backup ${backup}`
    : since !== undefined || sample !== undefined
      ? [since && `since ${since}`, sample && `sample ${sample}`].filter(Boolean).join(', ')
      : 'latest';
  return { backup, latest: ways === 0 || latest, since, sample, text };
}

/**
 * The backups of job `jobId` the selection names, newest first. A backup id
 * of another job is refused (exit 5: src/backups/ownership.ts). Only successful
 * backups with files are chosen by --latest, --since and --sample (one meaning
 * of success: src/backups/status.ts). An empty list when none matches (the
 * caller says so: exit 9).
 */
export async function selectBackups(ctx: Context, jobId: string, sel: BackupSelection, random: () => number = Math.random): Promise<Backup[]> {
  const client = await ctx.client();
  if (sel.backup) return [(await backupOfJob(client, jobId, sel.backup, ctx.signal)).backup as Backup];
  if (sel.latest) {
    const backup = await newestBackup(client, jobId, { status: successStatuses()[0], signal: ctx.signal });
    return backup ? [backup as Backup] : [];
  }
  const since = sel.since ? Date.parse(sel.since) : -Infinity;
  const found = (await backupsSince(client, jobId, since, ctx.signal)).filter((b) => isSuccess(b.status) && hasFiles(b)) as Backup[];
  if (sel.sample === undefined || found.length <= sel.sample) return found;
  const pool = [...found];
  const picked: Backup[] = [];
  while (picked.length < sel.sample) picked.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  // Shown in the listed order.
  return found.filter((b) => picked.includes(b));
}

/**
 * A selected backup ready for the pipeline: its files with their signed URLs,
 * from the record, else from POST /backups/{id}/download; each with the size
 * the record states.
 */
export async function pipelineBackup(ctx: Context, backup: Backup): Promise<PipelineBackup> {
  const urlsAt = Date.now();
  const listed = (Array.isArray(backup.files) ? backup.files : []).filter((f) => f && typeof f.name === 'string');
  let files: PipelineBackup['files'];
  if (listed.length && listed.every((f) => typeof f.url === 'string' && f.url)) {
    files = listed.map((f) => ({ name: f.name, url: f.url as string, size: f.size }));
  } else {
    const client = await ctx.client();
    const res = await client.request({ method: 'POST', path: `/backups/${encodeURIComponent(backup.id)}/download` }, { signal: ctx.signal });
    const urls = (res.body as { data?: Record<string, unknown> } | undefined)?.data ?? {};
    // Paired by name, else by the last path segment (issue 30 §4: storage paths in the record, bare names here).
    files = Object.entries(urls)
      .filter((e): e is [string, string] => typeof e[1] === 'string')
      .map(([name, url]) => ({ name, url, size: recordFileFor(listed, name)?.size as unknown }));
  }
  return {
    id: backup.id,
    job_id: backup.job_id ?? null,
    created_at: backup.created_at ?? null,
    status: backup.status ?? null,
    encrypted: typeof backup.encryption_key === 'string' && backup.encryption_key !== '',
    encryption_key: typeof backup.encryption_key === 'string' ? backup.encryption_key : null,
    files,
    urls_at: urlsAt,
  };
}
