// Stage 1 of the read pipeline: which backups of a job to read.
// `<backup>` | `--latest` | `--since <age|datetime>` [`--sample N`], as verify
// and restore-test take them, the ownership of a backup by the job, and each
// chosen backup's files with their signed URLs (src/pipeline/types.ts
// PipelineBackup). Self-contained: it asks the service through ctx.client().
import type { ApiResponse, Context } from '../cli/types.js';
import { UsageError } from '../errors.js';
import { idOf, listField, recordOf } from '../http/shape.js';
import { parseServiceTime } from '../util/time.js';
import type { PipelineBackup } from '../pipeline/types.js';

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

/** A backup record as the service sends it, with what selection reads. */
export interface BackupRecord {
  id: string;
  job_id?: string | null;
  status?: string | null;
  created_at?: string | null;
  encryption_key?: string | null;
  files?: Array<{ name: string; size?: unknown; url?: string | null }> | null;
  [key: string]: unknown;
}

/** Statuses whose backups hold files worth reading (--since, --sample). */
export const READABLE_STATUSES: readonly string[] = ['completed', 'completed_with_errors'];

/**
 * The selection in a command's parsed values (`backup`, `latest`, `since`,
 * `sample`). Two ways at once is a usage error (exit 2) before anything is sent.
 */
export function readSelection(values: Record<string, unknown>, command = 'verify'): BackupSelection {
  const backup = typeof values.backup === 'string' ? values.backup : undefined;
  const since = typeof values.since === 'string' ? values.since : undefined;
  const sample = typeof values.sample === 'number' ? values.sample : undefined;
  const latest = values.latest === true;
  const ways = [backup !== undefined, latest, since !== undefined || sample !== undefined].filter(Boolean).length;
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

/** The record of an answer, checked: an object with an id, `files` a list when present. */
function checkedRecord(res: ApiResponse): BackupRecord {
  const raw = recordOf(res);
  idOf(res, raw, 'backup');
  listField(res, raw, 'files', 'backup');
  return { ...raw, id: String(raw.id) } as BackupRecord;
}

const hasFiles = (b: BackupRecord) => READABLE_STATUSES.includes(String(b.status)) && (b.files?.length ?? 0) > 0;

/**
 * The backups of job `jobId` the selection names, newest first. A backup id
 * of another job is a usage error (exit 2). An empty list when none matches
 * (the caller says so: exit 9).
 */
export async function selectBackups(ctx: Context, jobId: string, sel: BackupSelection, random: () => number = Math.random): Promise<BackupRecord[]> {
  const client = await ctx.client();
  if (sel.backup) {
    const res = await client.request({ method: 'GET', path: `/backups/${encodeURIComponent(sel.backup)}` }, { signal: ctx.signal });
    const backup = checkedRecord(res);
    if (backup.job_id && backup.job_id !== jobId) throw new UsageError(`backup ${sel.backup} belongs to job ${backup.job_id}, not to ${jobId}`);
    return [backup];
  }
  if (sel.latest) {
    const res = await client.request(
      { method: 'GET', path: `/jobs/${encodeURIComponent(jobId)}/backups`, query: { sort: '-created_at', page_size: 15, status: 'completed' } },
      { signal: ctx.signal },
    );
    const data = (res.body as { data?: unknown[] } | undefined)?.data;
    const first = Array.isArray(data) ? data[0] : undefined;
    return first === undefined ? [] : [checkedRecord({ ...res, body: { data: first } })];
  }
  const since = sel.since ? Date.parse(sel.since) : -Infinity;
  const found: BackupRecord[] = [];
  walk: for await (const page of client.pages(
    { method: 'GET', path: `/jobs/${encodeURIComponent(jobId)}/backups`, query: { sort: '-created_at', page_size: 100 } },
    { all: true, signal: ctx.signal },
  )) {
    for (const raw of page.records as BackupRecord[]) {
      const created = parseServiceTime(raw?.created_at) ?? Infinity;
      // Newest first: the first one older than --since ends the walk.
      if (created < since) break walk;
      if (raw && typeof raw === 'object' && hasFiles(raw)) found.push(raw);
    }
  }
  if (sel.sample === undefined || found.length <= sel.sample) return found;
  const pool = [...found];
  const picked: BackupRecord[] = [];
  while (picked.length < sel.sample) picked.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  // Shown in the listed order.
  return found.filter((b) => picked.includes(b));
}

/**
 * A selected backup ready for the pipeline: its files with their signed URLs,
 * from the record, else from POST /backups/{id}/download; each with the size
 * the record states.
 */
export async function pipelineBackup(ctx: Context, backup: BackupRecord): Promise<PipelineBackup> {
  const listed = (Array.isArray(backup.files) ? backup.files : []).filter((f) => f && typeof f.name === 'string');
  let files: PipelineBackup['files'];
  if (listed.length && listed.every((f) => typeof f.url === 'string' && f.url)) {
    files = listed.map((f) => ({ name: f.name, url: f.url as string, size: f.size }));
  } else {
    const client = await ctx.client();
    const res = await client.request({ method: 'POST', path: `/backups/${encodeURIComponent(backup.id)}/download` }, { signal: ctx.signal });
    const urls = (res.body as { data?: Record<string, unknown> } | undefined)?.data ?? {};
    const stated = new Map(listed.map((f) => [f.name, f.size as unknown]));
    files = Object.entries(urls)
      .filter((e): e is [string, string] => typeof e[1] === 'string')
      .map(([name, url]) => ({ name, url, size: stated.get(name) }));
  }
  return {
    id: backup.id,
    job_id: backup.job_id ?? null,
    created_at: backup.created_at ?? null,
    status: backup.status ?? null,
    encrypted: typeof backup.encryption_key === 'string' && backup.encryption_key !== '',
    files,
  };
}
