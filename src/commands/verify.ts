// `backupctl verify`: proves a backup can be read back. Every file of the
// chosen backups is fetched through its signed URL (no Authorization, resumed
// on a broken transfer, nothing written to disk) and checked on the stream:
// size against the record, sha256 against the ledger, and the content
// (src/pipeline/inspect.ts). Exit 11 when a file fails, 9 when nothing matched.
import type { Context, Handler, IO, OutputOptions, Result } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { cronParams } from '../jobs/cron.js';
import { checkDecryptFlags, decryptParams } from '../jobs/decrypt.js';
import { jobArg } from '../resources/common.js';
import { CliError, EmptyResultError, ExitCode, UsageError, VerificationFailedError } from '../errors.js';
import { verifyDocumentSchema } from '../verify/model.js';

export const module: ModuleSpec = {
  name: 'verify',
  commands: [
    {
      path: ['verify'],
      summary: 'Read backups back and check every file: size, sha256, gzip/tar/zip/dump structure',
      description:
        'Fetches each file of the chosen backups through its signed URL, as `jobs backup download` does (no ' +
        'Authorization header, resumed on a broken transfer), but writes nothing to disk: every byte goes through ' +
        'streaming checks. The byte count is compared with the size the record states (within the precision of its ' +
        'text: "12.5 MB" allows 12.45..12.55 MB), the sha256 with the ledger, and the content, sniffed from the bytes: ' +
        'gzip is decompressed whole (CRC-32 and length of every member), tar headers, entries and end blocks are read, ' +
        'a zip\'s central directory and the CRC-32 of every entry, and a SQL dump must end with the marker mysqldump or ' +
        'pg_dump writes last, whatever the record says about encryption. A backup\'s own .sha256 or SHA256SUMS list is ' +
        'parsed and its other files checked against it. Bytes with an OpenSSL ("Salted__"), OpenPGP or age header are ' +
        '"encrypted"; other bytes are "not inspected" ("encrypted" when the record names a key). Such files are checked ' +
        'for size and hash only and never count as verified: the summary says "content not checked", and --strict makes ' +
        'them fail. Decompression bombs are refused: overlapping zip entries, more than 100000 zip entries ' +
        '(BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES), more than 64GiB inflated from a zip (BACKUPCTL_VERIFY_MAX_INFLATED), a gzip ' +
        'expanding more than 200 times past its first 64 MiB (BACKUPCTL_VERIFY_MAX_RATIO); see docs/verify.md.\n\n' +
        'The ledger ($XDG_STATE_HOME/backupctl/verify-ledger.json, else ~/.local/state/backupctl/) keeps the sha256 of ' +
        'every file that verified; a later verify that reads other bytes for it fails with "changed since <date>".\n\n' +
        'Each backup checked gets a mark, kept per service and backup in the state folder (marks.json), where status and report ' +
        'read it: passed (every file read and its content checked), unchecked (size and hash only), failed (the bytes are bad), ' +
        'not-tested (a file could not be read: network, store or service; it never makes a job failing).\n\n' +
        'Without a selection, the newest completed backup (--latest). Exit 0 when every backup passed, 11 when a file ' +
        'failed (with --strict, also when one was not inspected), 6 when a file could not be read (not-tested; 4 when the store refused the signed URL), 9 when no backup matched. ' +
        'With --check, an unchecked backup exits 11 too, unless --allow-unchecked. --check is for cron: one summary line per backup on stdout and one line ' +
        'per failed file on stderr; --lock, --jitter and --healthcheck-url work as for jobs backup start. -o prometheus ' +
        'prints metrics per job; --output-file writes the output atomically. -o ndjson prints each file as it is ' +
        'judged, then one line per backup (backupctl schema verify describes --json). Each backup read gets a fingerprint in the ' +
        'catalog (backupctl anomalies, ls, find, diff); --skip-catalog records none.',
      examples: [
        'backupctl verify 3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c --latest',
        'backupctl verify "shop mysql" --since 7d --parallel 4',
        'backupctl verify "shop mysql" --sample 3 --since 30d --json',
        'backupctl verify "shop mysql" --latest --check --lock verify-shop --healthcheck-url https://hc-ping.com/<uuid>',
        'backupctl verify "shop mysql" --latest -o prometheus --output-file /var/lib/node_exporter/textfile/verify-shop.prom',
      ],
      params: [
        { ...jobArg(), in: 'local' },
        { name: 'backup', in: 'local', type: 'uuid', positional: true, complete: 'backups', description: 'One backup id (else --latest, --since or --sample)' },
        { name: 'latest', in: 'local', type: 'boolean', description: 'The newest completed backup of the job (the default)' },
        { name: 'since', in: 'local', type: 'datetime', placeholder: 'age|datetime', description: 'Every successful (completed) backup with files created since then (7d, 24h, or ISO 8601)' },
        { name: 'sample', in: 'local', type: 'integer', min: 1, max: 1000, placeholder: 'n', description: 'N backups with files drawn at random (from --since when given, else from all)' },
        { name: 'parallel', in: 'local', type: 'integer', min: 1, max: 16, default: 2, placeholder: 'n', description: 'Files read at once' },
        { name: 'strict', in: 'local', type: 'boolean', description: 'A file whose content was not checked (encrypted, or of a format backupctl does not read) fails (exit 11)' },
        { name: 'check', in: 'local', type: 'boolean', description: 'For cron: a summary line per backup on stdout, failed files on stderr, no progress bar; passes on passed only' },
        { name: 'allow_unchecked', in: 'local', type: 'boolean', description: 'With --check: a backup checked for size and hash only (unchecked) passes' },
        ...decryptParams,
        { name: 'skip_catalog', in: 'local', type: 'boolean', description: 'Record no fingerprint of the backups read in the catalog (anomalies, ls, find, diff read it)' },
        ...cronParams,
        { name: 'output_file', in: 'local', type: 'string', placeholder: 'path', description: 'Write the output to this file atomically instead of stdout' },
      ],
      output: { kind: 'object', schema: 'verify' },
      handler: 'verify',
      alsoCalls: ['GET /jobs/{job_id}', 'GET /jobs/{job_id}/backups', 'GET /backups/{backup_id}', 'POST /backups/{backup_id}/download'],
      dryRunInHandler: true,
      extraFormats: ['prometheus'],
      perProfile: { rows: '', columns: ['job.name', 'verdict', 'summary.backups', 'summary.files', 'summary.files_failed'] },
    },
  ],
};

export const schemas = { verify: verifyDocumentSchema };

type Rec = Record<string, unknown>;
type Selection = import('../pipeline/select.js').BackupSelection;

/** The job's record, for its name (the runner has turned a name given into the id). */
async function findJob(ctx: Context, id: string): Promise<{ id: string; name: string | null }> {
  const client = await ctx.client();
  const res = await client.request({ method: 'GET', path: `/jobs/${encodeURIComponent(id)}` }, { signal: ctx.signal });
  const data = (res.body as { data?: Rec } | undefined)?.data;
  return { id, name: typeof data?.name === 'string' ? data.name : null };
}

type Format = 'table' | 'json' | 'ndjson' | 'tsv' | 'quiet' | 'prometheus' | 'check';

const verify: Handler = async (input, ctx) => {
  const v = input.values;
  const prometheus = ctx.globals.output?.trim().toLowerCase() === 'prometheus';
  if (prometheus && ctx.globals.json) throw new UsageError('--json and -o prometheus ask for two formats: give one');
  const { readSelection } = await import('../pipeline/select.js');
  const sel = readSelection(v, 'verify');
  checkDecryptFlags(v);
  const jobId = String(v.job_id);
  const outputFile = v.output_file as string | undefined;
  const explicitFormat = ctx.globals.output !== undefined || ctx.globals.json === true;
  const format: Format = prometheus ? 'prometheus' : v.check === true && !explicitFormat ? 'check' : ctx.output.quiet ? 'quiet' : ctx.output.format;
  if (outputFile !== undefined) {
    const { checkOutputFile } = await import('../output/output-file.js');
    await checkOutputFile(outputFile);
  }
  const { boundsFromEnv } = await import('../pipeline/bounds.js');
  const bounds = boundsFromEnv(ctx.env);
  const { runCronJob } = await import('../jobs/cron.js');
  if (ctx.globals.dryRun) {
    const { printDryRun } = await import('../cli/dry-run.js');
    await printDryRun(ctx, { method: 'GET', path: `/jobs/${encodeURIComponent(jobId)}` });
    ctx.io.stderr.write("Then the job's backups, and a GET of every file's signed URL (no Authorization); nothing is written to disk.\n");
    return { kind: 'empty' };
  }
  if (v.allow_unchecked === true && v.strict === true) throw new UsageError('--allow-unchecked lets an unchecked backup pass, --strict makes it fail: give one');
  return runCronJob(v, ctx, () =>
    runVerify(ctx, {
      values: v,
      jobId,
      sel,
      format,
      outputFile,
      parallel: Number(v.parallel ?? 2),
      strict: v.strict === true,
      // Only --check refuses an unchecked backup (a person at a terminal reads the words).
      refuseUnchecked: v.check === true && v.allow_unchecked !== true,
      bounds,
      catalog: v.skip_catalog !== true,
    }),
  );
};

async function runVerify(
  ctx: Context,
  o: {
    values: Record<string, unknown>;
    jobId: string;
    sel: Selection;
    format: Format;
    outputFile: string | undefined;
    parallel: number;
    strict: boolean;
    refuseUnchecked: boolean;
    bounds: import('../pipeline/bounds.js').InspectBounds;
    catalog: boolean;
  },
): Promise<Result> {
  const job = await findJob(ctx, o.jobId);
  // Decrypt on the way (--private-key, --decrypt-with, or the job's settings): the key is opened before any file is read.
  const decrypt = await (await import('../jobs/decrypt.js')).decryptorFor(ctx, o.values, job);
  const { selectBackups, pipelineBackup } = await import('../pipeline/select.js');
  const backups = await selectBackups(ctx, job.id, o.sel);
  if (!backups.length) {
    throw new EmptyResultError(`job ${job.name ?? job.id} has no ${o.sel.latest ? 'completed backup' : `backup with files matching ${o.sel.text}`} to verify`);
  }
  const targets = [];
  for (const b of backups) targets.push(await pipelineBackup(ctx, b));
  if (!targets.some((t) => t.files.length)) throw new EmptyResultError(`the chosen backups of job ${job.name ?? job.id} have no files`);

  const settings = await ctx.settings();
  const [{ Ledger }, { stateDir }, { signedUrlTransfer }, { verifyBackups }, { parseStatedSize }] = await Promise.all([
    import('../state/verify-ledger.js'),
    import('../config/paths.js'),
    import('../pipeline/transfer.js'),
    import('../verify/run.js'),
    import('../util/stated-size.js'),
  ]);
  const ledger = await Ledger.open(stateDir(ctx.env), await (await import('../fleet/marks.js')).serviceOf(ctx));
  // Fresh signed URLs for files that start late, and after a 403 (src/pipeline/urls.ts).
  const { SignedUrls, urlMaxAgeFromEnv } = await import('../pipeline/urls.js');
  const urls = new SignedUrls(ctx, await urlMaxAgeFromEnv(ctx.env));
  // As `jobs backup download`: a terminal on stderr that can redraw a line (not TERM=dumb), not -q, not --check.
  const showProgress = ctx.output.animation !== undefined && !ctx.output.quiet && o.format !== 'check';
  let progress;
  if (showProgress) {
    const { ProgressBar } = await import('../output/progress.js');
    const total = targets.reduce((n, t) => n + t.files.reduce((m, f) => m + (parseStatedSize(f.size)?.bytes ?? 0), 0), 0);
    progress = new ProgressBar(ctx.io.stderr, total, targets.reduce((n, t) => n + t.files.length, 0));
  }
  const { sanitize } = await import('../output/sanitize.js');
  // ndjson to stdout streams each file as it is judged.
  const streamNdjson = o.format === 'ndjson' && o.outputFile === undefined;
  // The catalog: a fingerprint of every backup read (issue 33 §1), for anomalies, ls, find and diff.
  const { catalogFor } = await import('../catalog/scan.js');
  const { FingerprintRecorder } = await import('../catalog/record.js');
  const fingerprints = o.catalog ? new FingerprintRecorder(await catalogFor(ctx), 'verify', new Map(backups.map((b) => [b.id, b as Record<string, unknown>]))) : undefined;
  const doc = await verifyBackups(targets, {
    sinks: fingerprints && ((file, backup) => [fingerprints.sink(file, backup)]),
    onOutcome: fingerprints && ((outcome) => fingerprints.add(outcome)),
    job,
    selection: o.sel.text,
    transfer: signedUrlTransfer({ signal: ctx.signal, timeoutMs: settings.timeoutMs, stderr: ctx.io.stderr, debug: settings.debug }),
    ledger,
    decrypt,
    urls,
    strict: o.strict,
    inspect: { bounds: o.bounds },
    parallel: o.parallel,
    now: () => new Date(),
    progress,
    signal: ctx.signal,
    onFile: streamNdjson ? (f) => ctx.io.stdout.write(`${JSON.stringify({ type: 'file', ...f })}\n`) : undefined,
  });
  await ledger.save();
  // Each backup's mark, keyed by the service and the backup (status and report judge the newest backup by its own).
  const { openMarks } = await import('../fleet/marks.js');
  const { verifyMarks } = await import('../verify/view.js');
  const marks = await openMarks(ctx);
  await marks.record('verify', verifyMarks(doc, { refuseUnchecked: o.refuseUnchecked }));
  await fingerprints?.flush();

  const { renderToOutput } = await import('../output/output-file.js');
  await renderToOutput(ctx, o.outputFile, (out, io) => outputResult(doc, o.format, out, io, marks.ofJob(job.id), streamNdjson));
  const { failureLines, untestedLines } = await import('../verify/view.js');
  const label = sanitize(job.name ?? job.id);
  if (doc.verdict === 'failed') {
    const n = doc.summary.files_failed;
    throw new VerificationFailedError(`${n} of ${doc.summary.files} file${doc.summary.files === 1 ? '' : 's'} of job ${label} failed verification`, failureLines(doc));
  }
  if (doc.verdict === 'not-tested') {
    const files = doc.backups.flatMap((b) => b.files).filter((f) => f.verdict === 'not-tested');
    const code = files.find((f) => f.exit_code !== undefined)?.exit_code ?? ExitCode.transient;
    throw new CliError(
      `${files.length} file${files.length === 1 ? '' : 's'} of job ${label} could not be read: not tested (nothing is known of ${files.length === 1 ? 'its' : 'their'} bytes; the job is not marked failing)`,
      code,
      untestedLines(doc),
    );
  }
  if (doc.verdict === 'unchecked' && o.refuseUnchecked) {
    throw new VerificationFailedError(
      `job ${label}: ${doc.summary.files_unchecked} of ${doc.summary.files} file${doc.summary.files === 1 ? '' : 's'} checked for size and hash only, content not checked (unchecked): --check passes on passed only; --allow-unchecked accepts it`,
    );
  }
  return { kind: 'empty' };
}

/** The output (stdout or --output-file); ndjson files already streamed are not repeated. */
async function outputResult(
  doc: import('../verify/model.js').VerifyDocument,
  format: Format,
  out: OutputOptions,
  io: IO,
  marks: import('../state/marks.js').MarkedBackup[],
  filesStreamed: boolean,
): Promise<Result> {
  const view = await import('../verify/view.js');
  switch (format) {
    case 'prometheus':
      return { kind: 'text', text: await view.verifyPrometheus(doc, marks) };
    case 'check':
      return { kind: 'text', text: view.summaryText(doc) };
    case 'json':
      return { kind: 'text', text: '', value: doc };
    case 'ndjson':
      return { kind: 'text', text: (await import('../output/format.js')).backupsNdjson(doc.backups, filesStreamed) };
    case 'quiet': {
      // -q: the id of each backup checked (a file has no id of its own); the exit code says whether one failed.
      const { onePage } = await import('../fleet/calls.js');
      return { kind: 'list', pages: onePage(view.backupIds(doc)), columns: [{ key: 'id', header: 'ID' }], idField: 'id' };
    }
    case 'tsv':
    case 'table': {
      const { onePage } = await import('../fleet/calls.js');
      const files = doc.backups.flatMap((b) => b.files);
      const list: Result = { kind: 'list', pages: onePage(files), columns: view.fileColumns, idField: 'name' };
      if (format !== 'table') return list;
      // The table of files first, then a summary line per backup under it.
      const { render } = await import('../output/index.js');
      await render(list, out, io);
      return { kind: 'text', text: `\n${view.summaryText(doc, io.columns)}` };
    }
  }
}

export const handlers: Record<string, Handler> = { verify };
