// jobs backup start: POST /v1/jobs/{id}/backups/start, and around it what a
// cron entry needs: --jitter, --lock, --healthcheck-url, --wait.
import type { Handler, Result } from '../contract/context.js';
import type { CommandSpec, ParamSpec } from '../contract/spec.js';
import { checkCronFlags, cronParams } from '../jobs/cron.js';
import { jobArg } from './common.js';
import { sanitize } from '../output/sanitize.js';

export const startBackupParams: ParamSpec[] = [
  jobArg(),
  { name: 'is_manual', flag: 'manual', in: 'body', type: 'boolean', description: 'Tag the backup manual (the default when no tag is given)' },
  { name: 'is_hourly', flag: 'hourly', in: 'body', type: 'boolean', description: 'Tag the backup hourly' },
  { name: 'is_daily', flag: 'daily', in: 'body', type: 'boolean', description: 'Tag the backup daily' },
  { name: 'is_weekly', flag: 'weekly', in: 'body', type: 'boolean', description: 'Tag the backup weekly' },
  { name: 'is_monthly', flag: 'monthly', in: 'body', type: 'boolean', description: 'Tag the backup monthly' },
  { name: 'wait', in: 'local', type: 'boolean', description: 'Wait until the backup ends: exit 0 completed, 8 failed or expired' },
  { name: 'wait_timeout', in: 'local', type: 'duration', needs: 'wait', default: '2h', placeholder: 'duration', description: 'Give up waiting after this long (exit 6)' },
  { name: 'poll_interval', in: 'local', type: 'duration', needs: 'wait', min: 1000, default: '5s', placeholder: 'duration', description: 'Time between checks while waiting, at least 1s' },
  { name: 'strict', in: 'local', type: 'boolean', needs: 'wait', description: 'With --wait: completed_with_errors exits 8 instead of 0 with a warning' },
  ...cronParams,
];

/** POST start, then (with --wait) poll; the cron helpers (src/jobs/cron.ts) around both. */
export const startBackup: Handler = async (input, ctx) => {
  const { runCronJob } = await import('../jobs/cron.js');
  return runCronJob(input.values, ctx, () => startAndMaybeWait(input, ctx, String(input.values.job_id)));
};
// The cron helper's flags are refused before the job's name is looked up (src/contract/context.ts, Handler.check).
startBackup.check = async (input) => checkCronFlags(input.values);

async function startAndMaybeWait(input: Parameters<Handler>[0], ctx: Parameters<Handler>[1], jobId: string): Promise<Result> {
  const v = input.values;
  const tagged = ['is_manual', 'is_hourly', 'is_daily', 'is_weekly', 'is_monthly'].filter((k) => v[k] === true);
  // A backup started by hand is manual unless the caller tags it otherwise.
  const body = tagged.length ? Object.fromEntries(tagged.map((k) => [k, true])) : { is_manual: true };
  if (ctx.globals.dryRun) return (await import('../cli/dry-run.js')).printDryRun(ctx, { ...input.request!, body });
  const client = await ctx.client();
  const res = await client.request({ ...input.request!, body }, { signal: ctx.signal });
  const answer = (res.body ?? {}) as { backup_id?: unknown; status?: unknown; url?: unknown };
  const backupId = typeof answer.backup_id === 'string' ? answer.backup_id : undefined;
  if (!v.wait) {
    // Each service value on its own terms: a line break in the status must not make a fake line.
    const text = `Backup ${sanitize(backupId ?? '(no id in the answer)')} of job ${jobId} started (status ${sanitize(String(answer.status ?? 'unknown'))}).${
      typeof answer.url === 'string' ? `\n${sanitize(answer.url)}` : ''
    }`;
    return { kind: 'object', value: answer, text, idField: 'backup_id' };
  }
  if (!backupId) {
    const { OutcomeUnknownError } = await import('../errors.js');
    throw new OutcomeUnknownError(`the service started a backup of job ${jobId} but gave no backup_id to wait for`, [
      `Check: backupctl jobs backup list ${jobId} --sort -created_at`,
    ]);
  }
  ctx.note(`Backup ${backupId} started; waiting for it to end.`);
  const { waitForBackup } = await import('../jobs/wait.js');
  const spinner = ctx.spinner(`Backup ${backupId}: starting`);
  const backup = await waitForBackup(client, jobId, backupId, {
    intervalMs: Number(v.poll_interval),
    timeoutMs: Number(v.wait_timeout),
    strict: v.strict === true,
    signal: ctx.signal,
    spinner,
    warn: (m) => ctx.warn(m),
    webUrl: typeof answer.url === 'string' ? answer.url : undefined,
    jobName: async () => {
      const res = await client.request({ method: 'GET', path: `/jobs/${encodeURIComponent(jobId)}` }, { signal: ctx.signal });
      const name = (res.body as { data?: { name?: unknown } } | undefined)?.data?.name;
      return typeof name === 'string' ? name : null;
    },
  })
    .catch(async (err: unknown) => {
      if (!ctx.signal.aborted) throw err;
      // Ctrl-C ends the wait, not the backup: say so, and how to follow it.
      const { InterruptedError } = await import('../errors.js');
      throw new InterruptedError('Interrupted', [
        `Backup ${sanitize(backupId)} of job ${sanitize(jobId)} keeps running on the service; only the wait stopped.`,
        `Follow it: backupctl backups get ${sanitize(backupId)}`,
        `   or all: backupctl jobs backup list ${sanitize(jobId)} --sort -created_at`,
      ]);
    })
    .finally(() => spinner.stop());
  return { kind: 'object', value: { ...answer, backup }, text: `Backup ${sanitize(backupId)} ${sanitize(String(backup.status))}.`, idField: 'backup_id' };
}

export const startBackupSpec: CommandSpec = {
  path: ['jobs', 'backup', 'start'],
  summary: 'Start a backup of a job now',
  description:
    'Tags the backup with the flags given (manual when none). With --wait, polls the new backup until it ends. ' +
    'For cron: --jitter, --lock and --healthcheck-url (see backupctl help cron).',
  examples: [
    'backupctl jobs backup start 3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c',
    'backupctl jobs backup start 3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c --daily --wait --wait-timeout 2h -q',
  ],
  method: 'POST',
  endpoint: '/jobs/{job_id}/backups/start',
  params: startBackupParams,
  successStatus: 202,
  output: { kind: 'object', schema: 'started', wireSchema: 'startAnswer', idField: 'backup_id' },
  handler: 'startBackup',
  dryRunInHandler: true,
};
