// `jobs backup latest` and `jobs backup download`: what scripts and cron
// entries ask of a job's backups. The newest backup is found the way the
// service offers it, the job's backups sorted -created_at.
import * as z from 'zod/mini';
import type { Column, Context, Handler, Settings } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { EmptyResultError, UsageError } from '../errors.js';
import { jobArg, record } from './common.js';
import { sanitize } from '../output/sanitize.js';
import { columns as jobColumns } from './jobs.js';
import { BACKUP_STATUSES } from '../backups/status.js';
import { backupSchema, type Backup } from '../backups/record.js';
import { newestBackup, newestBackupsRequest } from '../backups/newest.js';
import { backupOfJob } from '../backups/ownership.js';
import { filesNamed, filesOf, type BackupFile } from '../backups/files.js';
import { backupTime } from '../backups/time.js';
import { ageMs } from '../util/time.js';
import { checkDecryptFlags, decryptParams } from '../jobs/decrypt.js';
import { checkedHandler } from '../cli/checked.js';

const downloadedSchema = record({ name: z.string(), path: z.string(), bytes: z.number(), resumed: z.boolean() });

export const schemas = { backup: backupSchema, downloaded: downloadedSchema };

export const columns: Record<string, Column[]> = {
  backup: jobColumns.backup!,
  downloaded: [
    { key: 'name', header: 'Name' },
    { key: 'bytes', header: 'Size', format: 'size' },
    { key: 'path', header: 'Path' },
    { key: 'resumed', header: 'Resumed', format: 'bool', extra: true },
  ],
};


export const module: ModuleSpec = {
  name: 'backup-files',
  commands: [
    {
      path: ['jobs', 'backup', 'latest'],
      summary: 'Show the newest backup of a job; exit 9 when none qualifies',
      description:
        'The newest backup by creation time, optionally of one status and no older than --max-age (measured from ' +
        'its completion, else its creation). Made for checks: `-q` prints its id, and the exit code is 9 when there is none.',
      examples: [
        'backupctl jobs backup latest 3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c',
        'backupctl jobs backup latest 3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c --status completed --max-age 26h -q',
      ],
      method: 'GET',
      endpoint: '/jobs/{job_id}/backups',
      params: [
        jobArg(),
        { name: 'status', in: 'query', type: 'enum', values: BACKUP_STATUSES, description: 'Only backups with this status' },
        { name: 'max_age', in: 'local', type: 'duration', placeholder: 'duration', description: 'Exit 9 when the newest backup is older than this (26h, 2d)' },
      ],
      output: { kind: 'record', schema: 'backup', columns: 'backup' },
      handler: 'latest',
    },
    {
      path: ['jobs', 'backup', 'download'],
      summary: 'Download the files of a backup into a folder, or one file to stdout (--output -)',
      description:
        'Each file is fetched from its signed URL without the Authorization header, written to a temporary name ' +
        'and renamed when complete. Existing files are kept unless --force. A broken transfer is retried and ' +
        'resumed where the storage allows it. With --output - (or -o -) one file is streamed to stdout instead, ' +
        'for a restore without a temporary copy; a backup of several files needs --file <name>. Progress goes to ' +
        'stderr on a terminal; a transfer that cannot be completed exits non-zero, never with a short stream.',
      examples: [
        'backupctl jobs backup download 3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c --latest --dir ./restore',
        'backupctl jobs backup download 3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d --force',
        'backupctl jobs backup download "api postgres" --latest --output - | gunzip | psql api_production',
      ],
      method: 'GET',
      endpoint: '/jobs/{job_id}/backups',
      alsoCalls: ['GET /backups/{backup_id}', 'POST /backups/{backup_id}/download'],
      params: [
        jobArg(),
        { name: 'backup', in: 'local', type: 'uuid', positional: true, complete: 'backups', description: 'Backup id (or --latest)' },
        { name: 'latest', in: 'local', type: 'boolean', description: 'The newest completed backup of the job' },
        { name: 'dir', in: 'local', type: 'string', default: '.', placeholder: 'dir', description: 'Folder to write the files into' },
        { name: 'force', in: 'local', type: 'boolean', description: 'Overwrite files that exist; with --output -, write to a terminal' },
        { name: 'parallel', in: 'local', type: 'integer', min: 1, max: 16, default: 2, placeholder: 'n', description: 'Files fetched at once' },
        { name: 'file', in: 'local', type: 'string', placeholder: 'name', description: 'Only this file of the backup (needed with --output - when it has several)' },
        ...decryptParams,
      ],
      checks: { exactlyOne: ['backup', 'latest'] },
      output: { kind: 'list', schema: 'downloaded', columns: 'downloaded', idField: 'path' },
      // `--output -` (the global -o) streams one file to stdout: the handler reads it.
      extraFormats: ['-'],
      handler: 'download',
      dryRunInHandler: true,
    },
  ],
};


const latest: Handler = async (input, ctx) => {
  const jobId = String(input.values.job_id);
  const status = input.values.status as string | undefined;
  const backup = await newestBackup(await ctx.client(), jobId, { status, signal: ctx.signal });
  if (!backup) throw new EmptyResultError(`job ${jobId} has no ${status ? `${status} ` : ''}backup`);
  const maxAge = input.values.max_age as number | undefined;
  if (maxAge !== undefined) {
    const when = backupTime(backup);
    // A time in the future (past the clock skew) has no age: it is not fresh either.
    const age = ageMs(when, Date.now()) ?? Infinity;
    if (age > maxAge) {
      const how = when === undefined ? 'of unknown age' : age === Infinity ? 'dated in the future' : `${Math.floor(age / 3_600_000)}h old`;
      throw new EmptyResultError(`the newest ${status ? `${status} ` : ''}backup of job ${jobId} (${backup.id}) is ${how}, ${when !== undefined && age === Infinity ? 'not within' : 'older than'} --max-age`);
    }
  }
  return { kind: 'record', record: backup, columns: columns.backup!, idField: 'id' };
};

const download = checkedHandler(checkDownload, async (input, ctx, { toStdout }) => {
  const v = input.values;
  const jobId = String(v.job_id);
  if (ctx.globals.dryRun) {
    const req = v.latest ? newestBackupsRequest(jobId, { status: 'completed' }) : { method: 'GET' as const, path: `/backups/${encodeURIComponent(String(v.backup))}` };
    return (await import('../cli/dry-run.js')).printDryRun(ctx, req);
  }
  const client = await ctx.client();
  let backup: Backup | undefined;
  if (v.latest) {
    // The newest successful backup (completed: docs/scripting.md, "Rules backupctl applies").
    backup = await newestBackup(client, jobId, { status: 'completed', signal: ctx.signal });
    if (!backup) throw new EmptyResultError(`job ${jobId} has no completed backup to download`);
  } else {
    // A backup of another job is refused (exit 5) before any file is fetched.
    backup = (await backupOfJob(client, jobId, String(v.backup), ctx.signal)).backup;
  }
  const urlsAt = Date.now();
  const all = await filesOf(client, backup, ctx.signal);
  if (!all.length) throw new EmptyResultError(`backup ${backup.id} has no files`);
  // --file: the full name, or its last path segment (issue 30 §4).
  const files = v.file === undefined ? all : filesNamed(all, String(v.file));
  const shown = (f: BackupFile) => `  ${sanitize(f.recordName ?? f.name)}`;
  if (v.file !== undefined && files.length > 1) {
    throw new UsageError(`--file ${JSON.stringify(sanitize(String(v.file)))} names ${files.length} files of backup ${backup.id}: give the full name`, files.map(shown));
  }
  if (!files.length || (toStdout && files.length > 1)) {
    const names = all.map(shown);
    throw new UsageError(
      v.file === undefined
        ? `backup ${backup.id} has ${all.length} files; --output - writes one: give --file <name>`
        : `backup ${backup.id} has no file named ${JSON.stringify(sanitize(String(v.file)))}; its files:`,
      names,
    );
  }
  const settings = await ctx.settings();
  const { downloadFiles, streamFile } = await import('../jobs/download.js');
  // Decrypt on the way (--private-key, --decrypt-with, or the job's settings in the config).
  const jobName = async () => {
    const res = await client.request({ method: 'GET', path: `/jobs/${encodeURIComponent(jobId)}` }, { signal: ctx.signal });
    const name = (res.body as { data?: { name?: unknown } } | undefined)?.data?.name;
    return typeof name === 'string' ? name : null;
  };
  const decryptor = await (await import('../jobs/decrypt.js')).decryptorFor(ctx, v, { id: jobId, name: null }, jobName);
  // Ciphertext to stdout: the bytes go as stored, and stderr says so (a pipe into tar or gunzip would fail with no word why).
  if (toStdout && !decryptor && typeof backup.encryption_key === 'string' && backup.encryption_key !== '') {
    const { encryptedHint } = await import('../pipeline/encrypted.js');
    ctx.warn(`${sanitize(files[0]!.name)} of backup ${backup.id} is written as stored, ${encryptedHint((await jobName()) ?? jobId)} to get the plaintext`);
  }
  const decrypt = decryptor && { decryptor, backupId: backup.id, encryptionKey: typeof backup.encryption_key === 'string' ? backup.encryption_key : null };
  // Fresh signed URLs for files that start late, and after a 403 from the store (src/pipeline/urls.ts).
  const { downloadUrls, urlMaxAgeFromEnv, urlOf } = await import('../pipeline/urls.js');
  const backupId = backup.id;
  const urls = {
    at: urlsAt,
    maxAgeMs: await urlMaxAgeFromEnv(ctx.env),
    async fresh(name: string): Promise<string> {
      const url = urlOf(await downloadUrls(ctx, backupId), name);
      if (url === undefined) throw new EmptyResultError(`the service's fresh URLs for backup ${backupId} name no file ${sanitize(name)}`);
      return url;
    },
  };
  if (toStdout) {
    const got = await streamFile(files[0]!, ctx.io.stdout, {
      signal: ctx.signal,
      timeoutMs: settings.timeoutMs,
      stderr: ctx.io.stderr,
      progress: ctx.output.animation !== undefined,
      debug: settings.debug,
      decrypt,
      urls,
    });
    if (ctx.io.stderrIsTTY) ctx.io.stderr.write(`Wrote ${sanitize(files[0]!.name)} (${got.bytes} bytes) of backup ${backup.id} to stdout.\n`);
    await rememberUnit(ctx, settings, [{ name: files[0]!.name, stated: files[0]!.stated, bytes: got.bytes }]);
    return { kind: 'empty' };
  }
  const got = await downloadFiles(files, {
    dir: String(v.dir ?? '.'),
    force: v.force === true,
    parallel: Number(v.parallel ?? 2),
    signal: ctx.signal,
    timeoutMs: settings.timeoutMs,
    stderr: ctx.io.stderr,
    progress: ctx.output.animation !== undefined && !ctx.output.quiet,
    debug: settings.debug,
    decrypt,
    urls,
  });
  ctx.note(`Downloaded ${got.length} file${got.length === 1 ? '' : 's'} of backup ${backup.id}.`);
  await rememberUnit(ctx, settings, files.map((f, i) => ({ name: f.name, stated: f.stated, bytes: got[i]?.bytes ?? -1 })));
  return {
    kind: 'list',
    pages: (async function* () {
      yield got;
    })(),
    columns: columns.downloaded!,
    idField: 'path',
  };
});

/**
 * Remembers which unit the service states sizes in, once a file showed it (issue 30 §3): per
 * profile, in the state folder; --debug says so. A cache: failing to write it fails nothing.
 */
async function rememberUnit(ctx: Context, settings: Settings, files: Array<{ name: string; stated: unknown; bytes: number }>): Promise<void> {
  const [{ unitShown, rememberSizeUnit }, { stateDir }] = await Promise.all([import('../backups/size-unit.js'), import('../config/paths.js')]);
  const shown = unitShown(files.filter((f) => f.bytes >= 0));
  if (!shown) return;
  if (settings.debug) ctx.note(`[debug] ${shown.file}: the service states sizes in ${shown.unit}s; remembered for profile ${settings.profile}`);
  await rememberSizeUnit(stateDir(ctx.env), settings.profile, settings.baseUrl, shown, new Date()).catch((err: unknown) => {
    if (settings.debug) ctx.note(`[debug] could not remember the size unit: ${(err as Error).message}`);
  });
}

/** download's output and decryption flags: refused before a job given by name is looked up (Handler.check), so nothing is sent. */
async function checkDownload(input: Parameters<Handler>[0], ctx: Context): Promise<{ toStdout: boolean }> {
  const v = input.values;
  const toStdout = ctx.globals.output?.trim() === '-';
  // As curl does: a backup's bytes would garble the terminal (and mix with the progress bar).
  if (toStdout && ctx.io.stdoutIsTTY && v.force !== true) {
    throw new UsageError('--output - would write the backup to the terminal: binary output can mess up your terminal; nothing was sent', [
      '  Pipe it (... --output - | gunzip | mysql db), redirect it (> file), or give --force to write it to the terminal anyway.',
    ]);
  }
  await checkDecryptFlags(v);
  if (!toStdout) await (await import('../jobs/download.js')).checkDownloadDir(String(v.dir ?? '.'));
  return { toStdout };
}

export const handlers: Record<string, Handler> = { latest, download };
