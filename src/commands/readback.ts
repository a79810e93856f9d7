// The one shape of a read-back command (issue 31 §2): verify and restore-test
// declare what they select, what they run on the read pipeline and how they
// render; this module owns the rest, once: the format (-o, --json, -q,
// --check), the selection flags, --output-file, the bounds, --dry-run, the cron
// helper (--lock, --jitter, --healthcheck-url), the job lookup, the backups
// chosen, the decryptor, verify's ledger, fresh signed URLs, the progress bar,
// ndjson streaming, the catalog's fingerprints (issue 33 §1; --skip-catalog),
// the marks, and the output.
import type { Column, CommandInput, Context, Format, Handler, IO, OutputOptions, Result } from '../contract/context.js';
import type { JobRef } from '../backups/job.js';
import type { BackupSelection } from '../pipeline/select.js';
import type { Bounds } from '../pipeline/bounds.js';
import type { ContentSink, FileOutcome, PipelineBackup, PipelineFile, Progress, UrlSource } from '../pipeline/types.js';
import type { Decryptor } from '../pipeline/decrypt.js';
import type { LedgerState as Ledger } from '../state/verify-ledger.js';
import type { MarkedBackup, MarkInput, MarkKind } from '../state/marks.js';
import type { ParamSpec } from '../contract/spec.js';
import { EmptyResultError, UsageError } from '../errors.js';
import { checkCronFlags, cronParams } from '../jobs/cron.js';
import { checkedHandler } from '../cli/checked.js';
import { decryptParams } from '../jobs/decrypt.js';

/** The flags every read-back command takes after its own: decryption, --skip-catalog, the cron helper's, --output-file. */
export const readbackParams: ParamSpec[] = [
  ...decryptParams,
  { name: 'skip_catalog', in: 'local', type: 'boolean', description: 'Record no fingerprint of the backups read in the catalog (anomalies, ls, find, diff read it)' },
  ...cronParams,
  { name: 'output_file', in: 'local', type: 'string', placeholder: 'path', description: 'Write the output to this file atomically instead of stdout' },
];

/** The calls a read-back command makes besides its own. */
export const READBACK_CALLS = ['GET /jobs/{job_id}', 'GET /jobs/{job_id}/backups', 'GET /backups/{backup_id}', 'POST /backups/{backup_id}/download'];

/** The format a read-back command renders: its own -o formats, else --check's lines (unless -o/--json), -q, or the global format. */
export function readbackFormat(ctx: Context, own: ReadonlyArray<Format>, check: boolean): Format {
  const asked = ctx.globals.output?.trim().toLowerCase();
  const extra = own.find((f) => f === asked);
  if (extra && ctx.globals.json) throw new UsageError(`--json and -o ${extra} ask for two formats: give one`);
  if (extra) return extra;
  const explicitFormat = ctx.globals.output !== undefined || ctx.globals.json === true;
  return check && !explicitFormat ? 'check' : ctx.output.quiet ? 'quiet' : ctx.output.format;
}

/** What the shared piece hands a command's `run`: everything of the read but the command's own sink. */
export interface Readback {
  ctx: Context;
  job: JobRef;
  selection: BackupSelection;
  backups: PipelineBackup[];
  /** The service's records of the backups (for the fingerprints' duration). */
  records: Array<Record<string, unknown>>;
  decrypt: Decryptor | undefined;
  ledger: Ledger;
  urls: UrlSource;
  progress: Progress | undefined;
  bounds: Bounds;
  /** The catalog's sink per file (undefined with --skip-catalog). */
  sinks: ((file: PipelineFile, backup: PipelineBackup) => Array<ContentSink<unknown>>) | undefined;
  /** Every file's whole outcome (the catalog's fingerprints). */
  onOutcome: ((outcome: FileOutcome<unknown>) => void) | undefined;
  /** Each file as it is judged: a line of ndjson on stdout when it streams, else nothing. */
  onFile: (file: object) => void;
  /** The transfer stage, made with the given signal. */
  transfer(signal: AbortSignal): import('../pipeline/types.js').Transfer;
}

/** What a read-back document has in common: its backups, each with its files. */
export interface ReadbackDocument {
  backups: ReadonlyArray<{ id: string; files: readonly object[] }>;
}

/** How a command's document is shown, format by format (the switch itself is below: renderReadback). */
export interface ReadbackView<Doc> {
  /** The table's and tsv's columns: a row per file. */
  fileColumns: Column[];
  /** A line per backup: under the table, and --check's output. */
  summaryText(doc: Doc, width?: number): string;
  /** -o prometheus: metrics per job; `marks`, the job's marked backups on this machine. */
  prometheus(doc: Doc, marks: readonly MarkedBackup[]): Promise<string>;
  /** -o md, for the commands that take it. */
  markdown?(doc: Doc): string;
}

/** A read-back command: what it selects, what it runs, how it renders. */
export interface ReadbackCommand<Doc extends ReadbackDocument, Prep> {
  /** The command (readSelection's word, and who recorded a fingerprint). */
  name: 'verify' | 'restore-test';
  /** Its own -o formats (its spec's extraFormats). */
  formats: ReadonlyArray<Format>;
  /** Its own flags, checked before anything is sent (a bad one is exit 2). */
  prepare(v: Record<string, unknown>, ctx: Context, bounds: Bounds): Promise<Prep>;
  /** --dry-run: what follows the GET of the job. */
  dryRunNote: string;
  /** Every backup matched (verify), or the first (restore-test). */
  select: 'all' | 'one';
  /** Work that may start before the job is looked up (restore-test: --into's read-only questions). Never throws. */
  warm?(prep: Prep, ctx: Context): Promise<void>;
  /** Refuses flags the job's recipe cannot take (before the key is opened or a backup listed). */
  checkJob?(job: JobRef, prep: Prep, label: string): void | Promise<void>;
  /** Nothing matched (exit 9). */
  noBackup(label: string, selection: BackupSelection): string;
  /** The backups chosen have no file (exit 9). */
  noFiles(label: string, backups: PipelineBackup[]): string;
  /** Reads the backups: the pipeline with the command's sinks, the shared ones included. */
  run(r: Readback, prep: Prep): Promise<Doc>;
  /** The marks it leaves (status and report judge the newest backup by its own). */
  marks(doc: Doc, prep: Prep): Promise<{ kind: MarkKind; entries: MarkInput[] }>;
  /** How it renders: its view (loaded only when the output is written). */
  view(): Promise<ReadbackView<Doc>>;
  /** The exit: returns when it passed, else throws the command's typed error. */
  finish(doc: Doc, prep: Prep, label: string): Promise<Result>;
}

/** The handler of a read-back command. Its check (the format, the selection, the flags, the bounds, --output-file) runs before the job's name is looked up. */
export function readbackHandler<Doc extends ReadbackDocument, Prep>(cmd: ReadbackCommand<Doc, Prep>): Handler {
  const check = async (input: CommandInput, ctx: Context) => {
    const v = input.values;
    const format = readbackFormat(ctx, cmd.formats, v.check === true);
    const { readSelection } = await import('../pipeline/select.js');
    readSelection(v, cmd.name);
    const { checkDecryptFlags } = await import('../jobs/decrypt.js');
    await checkDecryptFlags(v);
    checkCronFlags(v);
    // The bounds (src/pipeline/bounds.ts): a bad value is exit 3 naming the variable, before anything is sent.
    const { boundsFromEnv } = await import('../pipeline/bounds.js');
    const bounds = boundsFromEnv(ctx.env);
    const prep = await cmd.prepare(v, ctx, bounds);
    const outputFile = v.output_file as string | undefined;
    if (outputFile !== undefined) {
      const { checkOutputFile } = await import('../output/output-file.js');
      await checkOutputFile(outputFile);
    }
    return { format, bounds, prep, outputFile };
  };
  return checkedHandler(check, async (input, ctx, { format, bounds, prep, outputFile }) => {
    const v = input.values;
    // Again with the names looked up: a backup given by the start of its id is an id now.
    const { readSelection } = await import('../pipeline/select.js');
    const selection = readSelection(v, cmd.name);
    const jobId = String(v.job_id);
    if (ctx.globals.dryRun) {
      const { printDryRun } = await import('../cli/dry-run.js');
      await printDryRun(ctx, { method: 'GET', path: `/jobs/${encodeURIComponent(jobId)}` });
      ctx.io.stderr.write(`${cmd.dryRunNote}\n`);
      return { kind: 'empty' };
    }
    const { runCronJob } = await import('../jobs/cron.js');
    return runCronJob(v, ctx, () => runReadback(ctx, cmd, { values: v, prep, jobId, selection, format, outputFile, bounds, catalog: v.skip_catalog !== true }));
  });
}

async function runReadback<Doc extends ReadbackDocument, Prep>(
  ctx: Context,
  cmd: ReadbackCommand<Doc, Prep>,
  o: { values: Record<string, unknown>; prep: Prep; jobId: string; selection: BackupSelection; format: Format; outputFile: string | undefined; bounds: Bounds; catalog: boolean },
): Promise<Result> {
  // Started, not awaited: it runs while the job and its backups are looked up.
  void cmd.warm?.(o.prep, ctx).catch(() => {});
  const { sanitize } = await import('../output/sanitize.js');
  const { fetchJob } = await import('../backups/job.js');
  const job = await fetchJob(await ctx.client(), o.jobId, ctx.signal);
  const label = sanitize(job.name ?? job.id);
  await cmd.checkJob?.(job, o.prep, label);
  // Decrypt on the way (--private-key, --decrypt-with, or the job's settings): the key is opened before any file is read.
  const decrypt = await (await import('../jobs/decrypt.js')).decryptorFor(ctx, o.values, job);
  // Stage 1 of the read pipeline: the backups (<backup>, --latest, --since, --sample).
  const { selectBackups, pipelineBackup } = await import('../pipeline/select.js');
  const found = await selectBackups(ctx, job.id, o.selection);
  const records = cmd.select === 'one' ? found.slice(0, 1) : found;
  if (!records.length) throw new EmptyResultError(cmd.noBackup(label, o.selection));
  const backups: PipelineBackup[] = [];
  for (const b of records) backups.push(await pipelineBackup(ctx, b));
  if (!backups.some((b) => b.files.length)) throw new EmptyResultError(cmd.noFiles(label, backups));
  // Encrypted and no way given to decrypt: the content is not read (size and hash only); stderr says how to read it.
  if (!decrypt && backups.some((b) => b.encrypted && b.files.length)) {
    const { encryptedHint } = await import('../pipeline/encrypted.js');
    const n = backups.filter((b) => b.encrypted && b.files.length).length;
    ctx.warn(`${n === 1 ? 'the backup is' : `${n} backups are`} ${encryptedHint(job.name ?? job.id)} to read the content`);
  }

  const settings = await ctx.settings();
  const [{ openLedger }, { signedUrlTransfer }, { SignedUrls, urlMaxAgeFromEnv }] = await Promise.all([
    import('../state/open.js'),
    import('../pipeline/transfer.js'),
    import('../pipeline/urls.js'),
  ]);
  // verify's ledger, per service: "changed since" on the way (a broken ledger, an unreachable state database: exit 3).
  const ledger = await openLedger(ctx, backups.map((b) => b.id));
  // Fresh signed URLs for files that start late, and after a 403 (src/pipeline/urls.ts).
  const urls = new SignedUrls(ctx, await urlMaxAgeFromEnv(ctx.env));
  // As `jobs backup download`: a bar on a terminal's stderr that can redraw a line (not TERM=dumb), not -q, not --check.
  let progress: Progress | undefined;
  if (ctx.output.animation !== undefined && !ctx.output.quiet && o.format !== 'check') {
    const [{ ProgressBar }, { parseStatedSize }] = await Promise.all([import('../output/progress.js'), import('../util/stated-size.js')]);
    const files = backups.flatMap((b) => b.files);
    progress = new ProgressBar(ctx.io.stderr, files.reduce((n, f) => n + (parseStatedSize(f.size)?.bytes ?? 0), 0), files.length);
  }
  // ndjson to stdout streams each file as it is judged.
  const streamNdjson = o.format === 'ndjson' && o.outputFile === undefined;
  // The catalog: a fingerprint of every backup read (issue 33 §1), for anomalies, ls, find and diff.
  let fingerprints: import('../catalog/record.js').FingerprintRecorder | undefined;
  if (o.catalog) {
    const [{ catalogFor }, { FingerprintRecorder }] = await Promise.all([import('../catalog/scan.js'), import('../catalog/record.js')]);
    fingerprints = new FingerprintRecorder(await catalogFor(ctx), cmd.name, new Map(records.map((b) => [b.id, b as Record<string, unknown>])));
  }
  const doc = await cmd.run(
    {
      ctx,
      job,
      selection: o.selection,
      backups,
      records: records as Array<Record<string, unknown>>,
      decrypt,
      ledger,
      urls,
      progress,
      bounds: o.bounds,
      sinks: fingerprints && ((file, backup) => [fingerprints.sink(file, backup)]),
      onOutcome: fingerprints && ((outcome) => fingerprints.add(outcome)),
      onFile: (f) => {
        if (streamNdjson) ctx.io.stdout.write(`${JSON.stringify({ type: 'file', ...f })}\n`);
      },
      transfer: (signal) => signedUrlTransfer({ signal, timeoutMs: settings.timeoutMs, stderr: ctx.io.stderr, debug: settings.debug }),
    },
    o.prep,
  );
  await ledger.save();
  // Each backup's mark, keyed by the service and the backup.
  const { openMarks } = await import('../fleet/marks.js');
  const marks = await openMarks(ctx);
  const m = await cmd.marks(doc, o.prep);
  await marks.record(m.kind, m.entries);
  await fingerprints?.flush();

  const { renderToOutput } = await import('../output/output-file.js');
  const view = await cmd.view();
  await renderToOutput(ctx, o.outputFile, (out, io) => renderReadback(doc, view, o.format, out, io, marks.ofJob(job.id), streamNdjson));
  return cmd.finish(doc, o.prep, label);
}

/** The output (stdout or --output-file) of a read-back document; ndjson files already streamed are not repeated. */
async function renderReadback<Doc extends ReadbackDocument>(
  doc: Doc,
  view: ReadbackView<Doc>,
  format: Format,
  out: OutputOptions,
  io: IO,
  marks: MarkedBackup[],
  filesStreamed: boolean,
): Promise<Result> {
  switch (format) {
    case 'prometheus':
      return { kind: 'text', text: await view.prometheus(doc, marks) };
    case 'md':
      if (!view.markdown) break;
      return { kind: 'text', text: view.markdown(doc) };
    case 'check':
      return { kind: 'text', text: view.summaryText(doc) };
    case 'json':
      return { kind: 'text', text: '', value: doc };
    case 'ndjson':
      return { kind: 'text', text: (await import('../output/format.js')).backupsNdjson(doc.backups, filesStreamed) };
    case 'quiet': {
      // -q: the id of each backup read (a file has no id of its own); the exit code says how it went.
      const { onePage } = await import('../fleet/calls.js');
      return { kind: 'list', pages: onePage(doc.backups.map((b) => ({ id: b.id }))), columns: [{ key: 'id', header: 'ID' }], idField: 'id' };
    }
    case 'tsv':
    case 'table': {
      const { onePage } = await import('../fleet/calls.js');
      const files = doc.backups.flatMap((b) => b.files) as Array<Record<string, unknown>>;
      const list: Result = { kind: 'list', pages: onePage(files), columns: view.fileColumns, idField: 'name' };
      if (format !== 'table') return list;
      // The table of files first, then a summary line per backup under it.
      const { render } = await import('../output/index.js');
      await render(list, out, io);
      return { kind: 'text', text: `\n${view.summaryText(doc, io.columns)}` };
    }
  }
  throw new Error(`no ${format} output for this command`);
}
