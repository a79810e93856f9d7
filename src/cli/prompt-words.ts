// What a destructive prompt names (issue 29): not only an id, but what goes.
// "Delete job {job_id}?" becomes `Delete job "api postgres" (95253129)?`, and
// "Delete ALL backups of job {job_id}?" says how many: `Delete ALL 42 backups
// of job "api postgres" (95253129)?`. Only asked when a person will read the
// question (a terminal, no --yes): a look-up that fails leaves the plain words.
import type { Client } from '../contract/context.js';
import { sanitize } from '../output/sanitize.js';

const short = (id: string) => (/^[0-9a-f]{8}-/i.test(id) ? id.slice(0, 8) : id);

/** The question with the job named and, for "ALL backups", counted. */
export async function promptWords(question: string, values: Record<string, unknown>, client: Client, signal: AbortSignal): Promise<string> {
  const jobId = typeof values.job_id === 'string' || typeof values.job_id === 'number' ? String(values.job_id) : undefined;
  if (!jobId || !question.includes(`job ${jobId}`)) return question;
  const path = `/jobs/${encodeURIComponent(jobId)}`;
  const [job, backups] = await Promise.all([
    client.request({ method: 'GET', path }, { signal }).catch(() => undefined),
    /ALL backups/.test(question) ? client.request({ method: 'GET', path: `${path}/backups`, query: { page_size: 15 } }, { signal }).catch(() => undefined) : undefined,
  ]);
  const name = (job?.body as { data?: { name?: unknown } } | undefined)?.data?.name;
  let out = question;
  if (typeof name === 'string' && name) out = out.replace(`job ${jobId}`, `job "${sanitize(name)}" (${short(jobId)})`);
  const total = (backups?.body as { meta?: { total?: unknown } } | undefined)?.meta?.total;
  if (typeof total === 'number') out = out.replace('ALL backups', `ALL ${total} backup${total === 1 ? '' : 's'}`);
  return out;
}
