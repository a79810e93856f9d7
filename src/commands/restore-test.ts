// `backupctl restore-test`: proves that a backup's data comes back. The
// chosen backup (src/backups/select.ts) is read through the one read pipeline
// verify uses (src/pipeline: signed URL, no Authorization, resumed, the size
// cap, verify's checks and ledger on the way) with one extra sink per file,
// which restores it as it streams: SQL dumps into a scratch
// database, mongodump archives parsed document by document, file archives
// extracted into a private folder where --exec runs. Exit 0 passed, 14 the
// restore or a check failed, 15 no engine, 11 a file failed the checks on the way.
import type { Context, Handler, IO, OutputOptions, Result } from '../cli/types.js';
import type { ModuleSpec } from '../resources/types.js';
import { cronParams } from '../jobs/cron.js';
import { jobArg } from '../resources/common.js';
import { CliError, EmptyResultError, ExitCode, UsageError, VerificationFailedError } from '../errors.js';
import { restoreDocumentSchema } from '../restore/model.js';

export const module: ModuleSpec = {
  name: 'restore-test',
  commands: [
    {
      path: ['restore-test'],
      summary: 'Restore a backup to prove its data comes back: SQL into a scratch database, archives extracted',
      description:
        'Reads each file of the chosen backup (the newest completed one unless a backup id is given) by its signed ' +
        'URL, through the read pipeline verify uses (no Authorization header, resumed on a broken transfer; gzip CRC, tar ' +
        'headers and the sha256 against verify\'s ledger checked on the way), and restores it while it streams. What a file holds is sniffed from its bytes, never its name: ' +
        'MySQL/MariaDB and PostgreSQL dumps load into a scratch database (--into URL or BACKUPCTL_RESTORE_URL, else a ' +
        'private server started from the local binaries, else PGlite), every table\'s rows are counted against the dump, ' +
        'and each --assert SQL must return a true first cell. A mongodump archive is parsed document by document and ' +
        'counted per collection ("structure checked, not restored"). A tar, tar.gz or zip is extracted into a private ' +
        'folder (0700; ".." paths, absolute paths and links leading outside are refused), counted against its own ' +
        'listing, and --exec CMD runs inside it (sh -c): its exit decides. The folder and any scratch database are ' +
        'removed afterwards, on Ctrl-C and SIGTERM too, unless --keep.\n\n' +
        'The global --timeout is the longest the test may take (default 30m). Exit 0 when restored and checked, 14 when ' +
        'the restore or a check failed, 15 when no engine is available, 11 when a file failed the checks on the way, 2 ' +
        'for flags that do not fit. Each run is recorded beside verify\'s ledger (restore-tests.json), where status and report ' +
        'read the last one. --check is for cron: one summary line on stdout; --lock, --jitter and --healthcheck-url work ' +
        'as for verify. -o md writes a record for an audit folder, -o prometheus metrics per job; backupctl schema ' +
        'restore-test describes --json.',
      examples: [
        'backupctl restore-test "archive files" --exec "test -d data"',
        'backupctl restore-test "events mongodb" --json',
        'backupctl restore-test "api postgres" --into postgres://restore@db-scratch/ --assert "select count(*) > 0 from orders"',
        'backupctl restore-test "archive files" --exec "test -d data" --check --lock restore-archive --healthcheck-url https://hc-ping.com/<uuid>',
        'backupctl restore-test "events mongodb" -o prometheus --output-file /var/lib/node_exporter/textfile/restore-events.prom',
      ],
      params: [
        { ...jobArg(), in: 'local' },
        { name: 'backup', in: 'local', type: 'uuid', positional: true, complete: 'backups', description: 'One backup id (else the newest completed one)' },
        { name: 'latest', in: 'local', type: 'boolean', description: 'The newest completed backup of the job (the default)' },
        { name: 'into', in: 'local', type: 'string', placeholder: 'url', description: 'A scratch server to restore SQL into (postgres://… or mysql://…; env BACKUPCTL_RESTORE_URL): a fresh database is made and dropped' },
        { name: 'engine', in: 'local', type: 'enum', values: ['auto', 'server', 'local', 'embedded'], default: 'auto', description: 'Where SQL is restored: auto tries --into, then local binaries, then PGlite' },
        { name: 'assert', in: 'local', type: 'string', repeatable: true, placeholder: 'sql', description: 'SQL that must return a true first cell after the restore' },
        { name: 'exec', in: 'local', type: 'string', placeholder: 'command', description: 'Run this (sh -c) inside an extracted file archive; its exit decides' },
        { name: 'keep', in: 'local', type: 'boolean', description: 'Keep the scratch database or the extracted folder (their place is printed)' },
        { name: 'allow_empty', in: 'local', type: 'boolean', description: 'A restore that leaves no table (or an archive with no file) passes' },
        { name: 'run_as', in: 'local', type: 'string', placeholder: 'user', description: 'The unprivileged user an ephemeral server runs as when backupctl runs as root' },
        { name: 'check', in: 'local', type: 'boolean', description: 'For cron: a summary line on stdout, failed files on stderr' },
        ...cronParams,
        { name: 'output_file', in: 'local', type: 'string', placeholder: 'path', description: 'Write the output to this file atomically instead of stdout' },
      ],
      output: { kind: 'object', schema: 'restore-test' },
      handler: 'restoreTest',
      alsoCalls: ['GET /jobs/{job_id}', 'GET /jobs/{job_id}/backups', 'GET /backups/{backup_id}', 'POST /backups/{backup_id}/download'],
      dryRunInHandler: true,
      extraFormats: ['md', 'prometheus'],
    },
  ],
};

export const schemas = { 'restore-test': restoreDocumentSchema };

type Rec = Record<string, unknown>;
type Format = 'table' | 'json' | 'ndjson' | 'tsv' | 'quiet' | 'prometheus' | 'md' | 'check';

/** Recipes whose backups hold no SQL (--assert cannot apply), and those that hold no file archive (--exec cannot). */
const NOT_SQL = new Set(['files', 'website', 'mongodb']);
const NOT_ARCHIVE = new Set(['mysql', 'postgresql', 'mongodb']);
const DEFAULT_TIMEOUT_MS = 30 * 60_000;

async function checkInto(url: string, from: string): Promise<void> {
  const { parseIntoUrl } = await import('../restore/sql/url.js');
  try {
    parseIntoUrl(url);
  } catch {
    // Never echo the value: it may hold a password.
    throw new UsageError(`invalid value for ${from}: must be a URL of a scratch server, postgres://user:password@host/ or mysql://user:password@host/ (a Unix socket: postgres://user@/db?host=/run/postgresql)`);
  }
}

const restoreTest: Handler = async (input, ctx) => {
  const v = input.values;
  const own = ctx.globals.output?.trim().toLowerCase();
  const extra = own === 'md' || own === 'prometheus' ? own : undefined;
  if (extra && ctx.globals.json) throw new UsageError(`--json and -o ${extra} ask for two formats: give one`);
  const explicitFormat = ctx.globals.output !== undefined || ctx.globals.json === true;
  const format: Format = extra ?? (v.check === true && !explicitFormat ? 'check' : ctx.output.quiet ? 'quiet' : ctx.output.format);
  const { readSelection } = await import('../backups/select.js');
  const selection = readSelection(v, 'restore-test');
  const intoFlag = typeof v.into === 'string' ? v.into : undefined;
  const into = intoFlag ?? (ctx.env.BACKUPCTL_RESTORE_URL || undefined);
  if (into !== undefined) await checkInto(into, intoFlag !== undefined ? '--into' : 'BACKUPCTL_RESTORE_URL');
  const engine = (v.engine as 'auto' | 'server' | 'local' | 'embedded' | undefined) ?? 'auto';
  if (engine === 'server' && into === undefined) throw new UsageError('--engine server restores into --into URL (or BACKUPCTL_RESTORE_URL): give one');
  const asserts = (v.assert as string[] | undefined) ?? [];
  const exec = typeof v.exec === 'string' ? v.exec : undefined;
  if (exec !== undefined && !exec.trim()) throw new UsageError('invalid value for --exec: an empty command');
  if (asserts.some((a) => !a.trim())) throw new UsageError('invalid value for --assert: an empty query');
  if (exec !== undefined && asserts.length) throw new UsageError('--exec (a file archive) and --assert (a SQL dump) check different kinds of backup: give one');
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  if (ctx.globals.timeout !== undefined) timeoutMs = (await ctx.settings()).timeoutMs;
  const outputFile = v.output_file as string | undefined;
  if (outputFile !== undefined) {
    const { checkOutputFile } = await import('../output/output-file.js');
    await checkOutputFile(outputFile);
  }
  const jobId = String(v.job_id);
  const { runCronJob } = await import('../jobs/cron.js');
  if (ctx.globals.dryRun) {
    const { printDryRun } = await import('../cli/dry-run.js');
    await printDryRun(ctx, { method: 'GET', path: `/jobs/${encodeURIComponent(jobId)}` });
    ctx.io.stderr.write("Then the job's newest completed backup, and a GET of each file's signed URL (no Authorization); nothing is restored.\n");
    return { kind: 'empty' };
  }
  return runCronJob(v, ctx, () =>
    runRestoreTest(ctx, {
      jobId,
      selection,
      format,
      outputFile,
      timeoutMs,
      restore: {
        engine,
        into,
        asserts,
        exec,
        execTimeoutMs: timeoutMs,
        keep: v.keep === true,
        allowEmpty: v.allow_empty === true,
        runAs: typeof v.run_as === 'string' ? v.run_as : undefined,
        warn: (line) => ctx.warn(line),
      },
    }),
  );
};

interface RunInput {
  jobId: string;
  selection: import('../backups/select.js').BackupSelection;
  format: Format;
  outputFile: string | undefined;
  timeoutMs: number;
  restore: Omit<import('../restore/types.js').RestoreOptions, 'signal'>;
}

async function findJob(ctx: Context, id: string): Promise<{ id: string; name: string | null; recipe: string | null }> {
  const client = await ctx.client();
  const res = await client.request({ method: 'GET', path: `/jobs/${encodeURIComponent(id)}` }, { signal: ctx.signal });
  const data = (res.body as { data?: Rec } | undefined)?.data;
  return { id, name: typeof data?.name === 'string' ? data.name : null, recipe: typeof data?.recipe === 'string' ? data.recipe : null };
}

async function runRestoreTest(ctx: Context, o: RunInput): Promise<Result> {
  const { sanitize } = await import('../output/sanitize.js');
  const job = await findJob(ctx, o.jobId);
  const label = sanitize(job.name ?? job.id);
  if (o.restore.asserts.length && job.recipe && NOT_SQL.has(job.recipe)) {
    throw new UsageError(`--assert runs SQL in a restored database, but job ${label} backs up ${job.recipe === 'mongodb' ? 'a MongoDB database (checked, not restored)' : 'files (a file archive)'}${job.recipe === 'mongodb' ? '' : ': check it with --exec instead'}`);
  }
  if (o.restore.exec !== undefined && job.recipe && NOT_ARCHIVE.has(job.recipe)) {
    throw new UsageError(`--exec runs inside an extracted file archive, but job ${label} backs up a ${job.recipe === 'mongodb' ? 'MongoDB' : job.recipe === 'mysql' ? 'MySQL' : 'PostgreSQL'} database${job.recipe === 'mongodb' ? '' : ': check it with --assert instead'}`);
  }
  // Stage 1 of the read pipeline: the backup (<backup> | --latest, the newest completed one by default).
  const { selectBackups, pipelineBackup } = await import('../backups/select.js');
  const [record] = await selectBackups(ctx, job.id, o.selection);
  if (!record) throw new EmptyResultError(`job ${label} has no completed backup to restore`);
  const backup = await pipelineBackup(ctx, record);
  if (!backup.files.length) throw new EmptyResultError(`backup ${sanitize(backup.id)} of job ${label} has no files`);

  const settings = await ctx.settings();
  const [{ signedUrlTransfer }, { restoreBackup }, { stateDir }, { recordRestoreRun, readRestoreStates }, { Ledger }] = await Promise.all([
    import('../pipeline/transfer.js'),
    import('../restore/run.js'),
    import('../config/paths.js'),
    import('../state/restore-tests.js'),
    import('../state/verify-ledger.js'),
  ]);
  // verify's ledger: the same "changed since" check on the way as verify (a broken ledger is exit 3, left as it is).
  const ledger = await Ledger.open(stateDir(ctx.env));
  const streamNdjson = o.format === 'ndjson' && o.outputFile === undefined;
  // As verify: a bar on a terminal's stderr that can redraw a line (not TERM=dumb), not -q, not --check.
  let progress: import('../output/progress.js').ProgressBar | undefined;
  if (ctx.output.animation !== undefined && !ctx.output.quiet && o.format !== 'check') {
    const [{ ProgressBar }, { parseStatedSize }] = await Promise.all([import('../output/progress.js'), import('../util/stated-size.js')]);
    progress = new ProgressBar(ctx.io.stderr, backup.files.reduce((n, f) => n + (parseStatedSize(f.size)?.bytes ?? 0), 0), backup.files.length);
  }
  const doc = await restoreBackup(backup, {
    job: { id: job.id, name: job.name },
    selection: o.selection.backup ? 'backup' : 'latest',
    transfer: (signal) => signedUrlTransfer({ signal, timeoutMs: settings.timeoutMs, stderr: ctx.io.stderr, debug: settings.debug }),
    progress,
    ledger,
    env: ctx.env,
    restore: o.restore,
    timeoutMs: o.timeoutMs,
    signal: ctx.signal,
    now: () => new Date(),
    onFile: (f) => {
      if (streamNdjson) ctx.io.stdout.write(`${JSON.stringify({ type: 'file', ...f })}\n`);
    },
  });
  await ledger.save();
  const b = doc.backups[0]!;
  const engines = [...new Set(b.files.filter((f) => f.engine).map((f) => (f.engine!.mode === 'bson' || f.engine!.mode === 'extract' ? f.engine!.product : `${f.engine!.product}${f.engine!.version ? ` ${f.engine!.version}` : ''} (${f.engine!.mode})`)))];
  const dir = stateDir(ctx.env);
  await recordRestoreRun(dir, job.id, {
    at: new Date().toISOString(),
    backup_id: b.id,
    verdict: b.verdict,
    read_seconds: b.read_seconds,
    restore_seconds: b.restore_seconds,
    total_seconds: b.total_seconds,
    rows: b.rows,
    tables: b.tables,
    engine: engines.length ? engines.join(', ') : null,
    reason: b.reason,
  });
  const state = (await readRestoreStates(dir))[job.id];

  const { renderToOutput } = await import('../output/output-file.js');
  await renderToOutput(ctx, o.outputFile, (out, io) => outputResult(doc, o.format, out, io, state, streamNdjson));
  if (doc.verdict === 'failed') {
    const { failureLines } = await import('../restore/view.js');
    const details = failureLines(doc);
    if (b.files.some((f) => f.check.verdict === 'failed')) {
      throw new VerificationFailedError(`the restore test of job ${label} failed: a file failed the checks on the way`, details);
    }
    throw new CliError(`the restore test of job ${label} failed: ${sanitize(b.reason ?? 'see above')}`, ExitCode.restoreFailed, details);
  }
  return { kind: 'empty' };
}

async function outputResult(
  doc: import('../restore/model.js').RestoreDocument,
  format: Format,
  out: OutputOptions,
  io: IO,
  state: import('../state/restore-tests.js').JobRestoreState | undefined,
  filesStreamed: boolean,
): Promise<Result> {
  const view = await import('../restore/view.js');
  switch (format) {
    case 'prometheus':
      return { kind: 'text', text: await view.restorePrometheus(doc, state) };
    case 'md':
      return { kind: 'text', text: view.restoreMarkdown(doc) };
    case 'check':
      return { kind: 'text', text: view.summaryText(doc) };
    case 'json':
      return { kind: 'text', text: '', value: doc };
    case 'ndjson':
      return { kind: 'text', text: (await import('../output/format.js')).backupsNdjson(doc.backups, filesStreamed) };
    case 'quiet': {
      // -q: the id of each backup restored, as verify -q (a file has no id of its own); the exit code says how it went.
      const { onePage } = await import('../fleet/calls.js');
      return { kind: 'list', pages: onePage(doc.backups.map((b) => ({ id: b.id }))), columns: [{ key: 'id', header: 'ID' }], idField: 'id' };
    }
    case 'tsv':
    case 'table': {
      const { onePage } = await import('../fleet/calls.js');
      const files = doc.backups.flatMap((b) => b.files);
      const list: Result = { kind: 'list', pages: onePage(files), columns: view.restoreFileColumns, idField: 'name' };
      if (format !== 'table') return list;
      const { render } = await import('../output/index.js');
      await render(list, out, io);
      return { kind: 'text', text: `\n${view.summaryText(doc, io.columns)}` };
    }
  }
}

export const handlers: Record<string, Handler> = { restoreTest };
