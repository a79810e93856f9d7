// The newest backups of a job, as the service offers them: the job's backups
// sorted -created_at. One definition for jobs backup latest and download
// --latest, verify, --wait, status and report.
import type { Client, RequestSpec } from '../contract/context.js';
import { parseServiceTime } from '../util/time.js';
import { checkedBackup, type Backup } from './record.js';
import { isSuccess, successStatuses } from './status.js';

/** The first page of a job's backups, newest first: enough for the strip of `status` and a --wait. */
export const NEWEST_PAGE = 15;

/** GET /jobs/{id}/backups, newest first, of one status when given. */
export function newestBackupsRequest(jobId: string, o: { status?: string; pageSize?: number } = {}): RequestSpec {
  return {
    method: 'GET',
    path: `/jobs/${encodeURIComponent(jobId)}/backups`,
    query: { sort: '-created_at', page_size: o.pageSize ?? NEWEST_PAGE, ...(o.status !== undefined ? { status: o.status } : {}) },
  };
}

/** The records of a list answer (`data`), or none. */
function dataOf(body: unknown): unknown[] {
  const data = (body as { data?: unknown } | undefined)?.data;
  return Array.isArray(data) ? data : [];
}

/**
 * Newest first by `field`, whatever order the service sent (the sort asked
 * for may be ignored); records without the time follow, in the order sent.
 */
export function newestFirst<T>(records: readonly T[], field: 'created_at' | 'started_at'): T[] {
  const timed = records.map((r) => ({ r, t: parseServiceTime((r as Record<string, unknown> | null | undefined)?.[field]) }));
  const known = timed.filter((x): x is { r: T; t: number } => x.t !== undefined).sort((a, b) => b.t - a.t);
  return [...known.map((x) => x.r), ...timed.filter((x) => x.t === undefined).map((x) => x.r)];
}

/** The newest backups of a job (one page, newest first), of one status when given. */
export async function newestBackups(client: Client, jobId: string, o: { status?: string; signal?: AbortSignal; pageSize?: number } = {}): Promise<unknown[]> {
  const res = await client.request(newestBackupsRequest(jobId, o), { signal: o.signal });
  return newestFirst(dataOf(res.body), 'created_at');
}

/** The newest backup of a job, of one status when given; its record checked as a download builds on it. */
export async function newestBackup(client: Client, jobId: string, o: { status?: string; signal?: AbortSignal } = {}): Promise<Backup | undefined> {
  const res = await client.request(newestBackupsRequest(jobId, o), { signal: o.signal });
  const first = newestFirst(dataOf(res.body), 'created_at')[0];
  if (first === undefined) return undefined;
  return checkedBackup({ ...res, body: { data: first } });
}

/**
 * The backups of a job created at or after `since` (epoch ms), newest first: verify --since.
 * Asked newest first, the walk ends with the first page that reaches back past `since`. A
 * service that ignores the sort (a record newer than the one before it) is read to the end,
 * or an oldest-first answer would end the walk at its first record and find nothing. A record
 * without a readable time is kept (it may be new), after the timed ones.
 */
export async function backupsSince(client: Client, jobId: string, since: number, signal?: AbortSignal): Promise<Backup[]> {
  const found: Backup[] = [];
  let previous = Infinity;
  let sorted = true;
  for await (const page of client.pages(newestBackupsRequest(jobId, { pageSize: 100 }), { all: true, signal })) {
    let reachedBack = false;
    for (const raw of page.records as Array<Backup | null | undefined>) {
      if (!raw) continue;
      const created = parseServiceTime(raw.created_at);
      if (created !== undefined) {
        if (created > previous) sorted = false;
        previous = created;
        if (created < since) {
          reachedBack = true;
          continue;
        }
      }
      found.push(raw);
    }
    if (reachedBack && sorted) break;
  }
  return newestFirst(found, 'created_at');
}

/**
 * The newest successful backup among records, by created_at (`completed`; with `allowErrors`,
 * `completed_with_errors` too): THE "last success" of status, report and --check.
 */
export function newestSuccess<T>(records: readonly T[], allowErrors = false): T | undefined {
  return newestFirst(records, 'created_at').find((r) => isSuccess(statusOf(r), allowErrors));
}

function statusOf(r: unknown): string | null {
  const s = (r as { status?: unknown } | null | undefined)?.status;
  return typeof s === 'string' ? s : null;
}

/**
 * When a page of a job's newest backups holds no success: the requests that find the newest one
 * (one per success status, each newest first); newestSuccess of their first records is the answer.
 */
export function newestSuccessRequests(jobId: string, allowErrors = false, pageSize = NEWEST_PAGE): RequestSpec[] {
  return successStatuses(allowErrors).map((status) => newestBackupsRequest(jobId, { status, pageSize }));
}
