// A backup named beside a job must be a backup of that job. One check, one
// exit code for every command that takes <job> <backup> (jobs backup get,
// download, delete, verify): 5, "not found for this job", naming the job the
// backup belongs to.
import type { Client } from '../contract/context.js';
import { CliError, ExitCode } from '../errors.js';
import { checkedBackup, type Backup } from './record.js';
import { fetchJob } from './job.js';
import { sanitize } from '../output/sanitize.js';

/** Throws (exit 5) when the record names another job than `jobId`. A record naming no job passes. */
export function checkOwnership(backup: Pick<Backup, 'id' | 'job_id'>, jobId: string, backupId: string = backup.id, ownerName?: string): void {
  const owner = backup.job_id;
  if (typeof owner === 'string' && owner !== '' && owner !== jobId) {
    const named = ownerName ? `"${sanitize(ownerName)}" (${owner})` : owner;
    throw new CliError(`backup ${backupId} is not a backup of job ${jobId} (it belongs to job ${named})`, ExitCode.notFound, [
      `  Its backups: backupctl jobs backup list ${jobId}`,
      `  That backup: backupctl jobs backup get ${owner} ${backupId}`,
    ]);
  }
}

/** GET /backups/{id}, checked (an id, files a list) and refused (exit 5) when it belongs to another job. */
export async function backupOfJob(client: Client, jobId: string, backupId: string, signal?: AbortSignal): Promise<{ backup: Backup; res: Awaited<ReturnType<Client['request']>> }> {
  const res = await client.request({ method: 'GET', path: `/backups/${encodeURIComponent(backupId)}` }, { signal });
  const backup = checkedBackup(res);
  const owner = backup.job_id;
  if (typeof owner === 'string' && owner !== '' && owner !== jobId) checkOwnership(backup, jobId, backupId, await jobName(client, owner, signal));
  return { backup, res };
}

/** The name of a job, for the message; undefined when it cannot be read (deleted, no access). */
async function jobName(client: Client, id: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    return (await fetchJob(client, id, signal)).name || undefined;
  } catch {
    if (signal?.aborted) throw signal.reason;
    return undefined;
  }
}
