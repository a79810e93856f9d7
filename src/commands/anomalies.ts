// `backupctl scan` and `backupctl anomalies` (issue 33 §1-2): fingerprints of
// backups in the catalog, and which backup is clean. A backup's fingerprint is
// compared with a baseline of the job's earlier clean backups and with fixed
// rules (random-looking files, renames, ransom notes, onion addresses, lost
// tables, sizes far off); each finding names its evidence and the last clean
// backup before it. See docs/anomalies.md.
import type { CommandInput, Context, Handler, Result } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { CliError, EmptyResultError, ExitCode, UsageError } from '../errors.js';
import { checkedHandler } from '../cli/checked.js';
import { checkCronFlags, cronParams } from '../jobs/cron.js';
import { checkDecryptFlags, decryptParams } from '../jobs/decrypt.js';
import { jobArg } from '../resources/common.js';
import type { JobAnomalies, Thresholds } from '../catalog/anomalies.js';
import { anomaliesSchema, scanSchema } from '../catalog/document.js';

const DEFAULT_SINCE_DAYS = 30;

export const module: ModuleSpec = {
  name: 'anomalies',
  commands: [
    {
      path: ['scan'],
      summary: 'Read backups into the catalog: a fingerprint of each (listing, entropy, tables) for anomalies, ls, find and diff',
      description:
        'Reads each completed backup of the job created since --since (default 30d) that the catalog does not hold yet, through the ' +
        'read pipeline verify uses (signed URL, no Authorization, the same checks on the way, nothing written but the catalog), and ' +
        'records its fingerprint: size, duration, files; for tar archives every entry (path, size, mode, owner, mtime, CRC-32), counts ' +
        'per extension, the entropy of members that should compress, ransom-note names and onion addresses; for SQL dumps the rows of ' +
        'every table. verify and restore-test record the same fingerprint of what they read. The catalog is kept per service in the ' +
        'state folder ($XDG_STATE_HOME/backupctl/catalog). An encrypted backup is decrypted on the way as verify does (--private-key, ' +
        '--decrypt-with, or the job\'s settings); read without a key, only its size is recorded, and a later read with a key reads it again.',
      examples: ['backupctl scan "file share" --since 30d', 'backupctl scan "crm postgres" --rescan --json'],
      params: [
        { ...jobArg(), in: 'local' },
        { name: 'since', in: 'local', type: 'datetime', placeholder: 'age|datetime', description: 'Backups created since then (default 30d)' },
        { name: 'rescan', in: 'local', type: 'boolean', description: 'Read again the backups the catalog already holds' },
        { name: 'parallel', in: 'local', type: 'integer', min: 1, max: 16, default: 2, placeholder: 'n', description: 'Files read at once' },
        ...decryptParams,
      ],
      output: { kind: 'object', schema: 'scan' },
      handler: 'scan',
      alsoCalls: ['GET /jobs/{job_id}', 'GET /jobs/{job_id}/backups', 'POST /backups/{backup_id}/download'],
      dryRunInHandler: true,
    },
    {
      path: ['anomalies'],
      summary: 'Which backup is clean: each backup against its job\'s history (ransomware, mass renames, lost tables)',
      description:
        'Judges every completed backup of the job (or of every job) created since --since (default 30d) against a baseline of the ' +
        'job\'s earlier clean backups (their median and spread, so one bad night does not move it) and fixed rules: a share of files that ' +
        'should compress turned random (encrypted), many files renamed (a new extension added to their names) or gone since the last ' +
        'clean backup, a new extension on many files, a ransom note, an onion address, a table that lost most of its rows or vanished, ' +
        'a size or entry count far outside the job\'s history. Backups the catalog lacks are read first (as `backupctl scan`; ' +
        '--offline uses only the catalog). Each finding names its evidence and the last clean backup before it.\n\n' +
        'Thresholds are settings with defaults (docs/anomalies.md): BACKUPCTL_ANOMALY_ENTROPY_SHARE (0.2), _ENTROPY_MIN (5), ' +
        '_RENAME_MIN (50), _RENAME_SHARE (0.2), _VANISH_SHARE (0.3), _TABLE_LOSS (0.5), _SPREAD_K (6), _CHANGE_FLOOR (0.5), _BASELINE (10).\n\n' +
        '--ack <backup> accepts a backup\'s changes as the new normal (an application upgrade, a table truncated by design): it is then ' +
        'shown as acknowledged, joins the baseline, and no longer fails --check. --check is for cron: exit 17 when a backup in the ' +
        'window has a finding not acknowledged; -o prometheus prints metrics per job.',
      examples: [
        'backupctl anomalies "file share"',
        'backupctl anomalies --since 7d --check --healthcheck-url https://hc-ping.com/<uuid>',
        'backupctl anomalies "crm postgres" --json',
        'backupctl anomalies "crm postgres" --ack <backup-id> --note "orders archived by design"',
      ],
      params: [
        { ...jobArg(), in: 'local', required: false, description: 'Job id or name (default: every job)' },
        { name: 'since', in: 'local', type: 'datetime', placeholder: 'age|datetime', description: 'Judge the backups created since then (default 30d)' },
        { name: 'check', in: 'local', type: 'boolean', description: 'For cron: exit 17 when a backup has a finding not acknowledged' },
        { name: 'offline', in: 'local', type: 'boolean', description: 'Judge only what the catalog holds: read no backup' },
        { name: 'ack', in: 'local', type: 'uuid', complete: 'backups', placeholder: 'backup-id', description: 'Accept this backup\'s changes as the new normal (recorded in the catalog): its id or its first 6 or more characters' },
        { name: 'note', in: 'local', type: 'string', placeholder: 'text', needs: 'ack', description: 'Why, with --ack' },
        ...decryptParams,
        ...cronParams,
      ],
      output: { kind: 'object', schema: 'anomalies' },
      handler: 'anomalies',
      alsoCalls: ['GET /jobs', 'GET /jobs/{job_id}', 'GET /jobs/{job_id}/backups', 'POST /backups/{backup_id}/download'],
      dryRunInHandler: true,
      extraFormats: ['prometheus'],
    },
  ],
};

export const schemas = { scan: scanSchema, anomalies: anomaliesSchema };

const sinceOf = (v: Record<string, unknown>): string =>
  typeof v.since === 'string' ? v.since : new Date(Date.now() - DEFAULT_SINCE_DAYS * 86_400_000).toISOString();

const scan: Handler = checkedHandler(async (input) => checkDecryptFlags(input.values), async (input, ctx) => {
  const v = input.values;
  const jobId = String(v.job_id);
  const since = sinceOf(v);
  if (ctx.globals.dryRun) {
    const { printDryRun } = await import('../cli/dry-run.js');
    await printDryRun(ctx, { method: 'GET', path: `/jobs/${encodeURIComponent(jobId)}/backups` });
    ctx.io.stderr.write('Then a GET of every file\'s signed URL of the backups the catalog lacks (no Authorization); only the catalog is written.\n');
    return { kind: 'empty' };
  }
  const { catalogFor, ensureFingerprints, backupsOfJob, jobName } = await import('../catalog/scan.js');
  const catalog = await catalogFor(ctx);
  const name = await jobName(ctx, jobId);
  const records = await backupsOfJob(ctx, jobId, since);
  if (!records.length) throw new EmptyResultError(`job ${name ?? jobId} has no completed backup with files since ${since}`);
  const decrypt = await (await import('../jobs/decrypt.js')).decryptorFor(ctx, v, { id: jobId, name });
  const { fingerprints, read } = await ensureFingerprints(ctx, catalog, records, { rescan: v.rescan === true, parallel: Number(v.parallel ?? 2), by: 'scan', decrypt });
  const { fingerprintRows, fingerprintColumns } = await import('../catalog/view.js');
  ctx.note(`${read} backup${read === 1 ? '' : 's'} read, ${fingerprints.length - read} already in the catalog`);
  const sealed = fingerprints.filter((fp) => fp.files.some((f) => f.encrypted === true)).length;
  if (sealed) {
    const { encryptedHint } = await import('../pipeline/encrypted.js');
    ctx.warn(`${sealed} backup${sealed === 1 ? '' : 's'}: only the size recorded, the content is ${encryptedHint(name ?? jobId)}`);
  }
  if (ctx.output.format === 'json') return { kind: 'object', value: { job: { id: jobId, name }, since, read, fingerprints } };
  const { onePage } = await import('../fleet/calls.js');
  return { kind: 'list', pages: onePage(fingerprintRows(fingerprints)), columns: fingerprintColumns, idField: 'id' };
});

/** anomalies' flags and settings, checked before the job's name is looked up. */
async function checkAnomalies(input: CommandInput, ctx: Context) {
  const v = input.values;
  const prometheus = ctx.globals.output?.trim().toLowerCase() === 'prometheus';
  if (prometheus && ctx.globals.json) throw new UsageError('--json and -o prometheus ask for two formats: give one');
  const { thresholdsFrom } = await import('../catalog/anomalies.js');
  const thresholds = thresholdsFrom(ctx.env);
  // A prefix is still a NameRef here (resolved after this check): only whether --ack was given counts.
  const ack = v.ack !== undefined;
  if (ack && v.job_id === undefined) throw new UsageError('--ack needs the job: backupctl anomalies <job> --ack <backup-id>');
  if (ack && v.check === true) throw new UsageError('--ack and --check: give one');
  checkCronFlags(v);
  await checkDecryptFlags(v);
  return { prometheus, thresholds, ack };
}

const anomalies = checkedHandler(checkAnomalies, async (input, ctx, { prometheus, thresholds, ack }) => {
  const v = input.values;
  const since = sinceOf(v);
  if (ctx.globals.dryRun) {
    const { printDryRun } = await import('../cli/dry-run.js');
    await printDryRun(ctx, { method: 'GET', path: v.job_id === undefined ? '/jobs' : `/jobs/${encodeURIComponent(String(v.job_id))}/backups` });
    ctx.io.stderr.write(v.offline ? 'Nothing else is sent: --offline judges the catalog.\n' : 'Then a GET of every file\'s signed URL of the backups the catalog lacks (no Authorization).\n');
    return { kind: 'empty' };
  }
  const scanMod = await import('../catalog/scan.js');
  const catalog = await scanMod.catalogFor(ctx);
  if (ack) {
    const jobId = String(v.job_id);
    const record = await scanMod.backupOfJobById(ctx, jobId, String(v.ack));
    await catalog.addAck({ backup_id: record.id, job_id: jobId, at: new Date().toISOString(), note: typeof v.note === 'string' ? v.note : null });
    return { kind: 'done', message: `backup ${record.id} accepted as the new normal of its job: its findings no longer fail --check`, id: record.id };
  }
  const { runCronJob } = await import('../jobs/cron.js');
  return runCronJob(v, ctx, () => runAnomalies(ctx, catalog, v, since, thresholds, prometheus));
});

async function runAnomalies(
  ctx: Context,
  catalog: import('../state/catalog.js').CatalogState,
  v: Record<string, unknown>,
  since: string,
  thresholds: Thresholds,
  prometheus: boolean,
): Promise<Result> {
  const scanMod = await import('../catalog/scan.js');
  const { analyzeJob } = await import('../catalog/anomalies.js');
  const jobs = v.job_id === undefined ? await scanMod.allJobs(ctx) : [{ id: String(v.job_id), name: await scanMod.jobName(ctx, String(v.job_id)) }];
  const acks = await catalog.acks();
  const results: Array<JobAnomalies & { job: { id: string; name: string | null } }> = [];
  for (const job of jobs) {
    if (v.offline !== true) {
      const records = await scanMod.backupsOfJob(ctx, job.id, since);
      // Decrypted on the way with the flags, else the job's settings: an encrypted backup read without a key is unchecked.
      const decrypt = await (await import('../jobs/decrypt.js')).decryptorFor(ctx, v, job);
      await scanMod.ensureFingerprints(ctx, catalog, records, { by: 'scan', decrypt });
    }
    const fps = await catalog.ofJob(job.id);
    if (!fps.length) continue;
    const judged = await analyzeJob(job.id, fps, acks.filter((a) => a.job_id === job.id), (fp) => catalog.listings(fp), { since: new Date(since), thresholds });
    results.push({ ...judged, job });
  }
  if (!results.length) throw new EmptyResultError(`no backup to judge since ${since}${v.offline ? ' in the catalog (--offline)' : ''}`);
  const view = await import('../catalog/view.js');
  const doc = view.anomaliesDocument(results, since, new Date());
  const failing = doc.summary.anomalous;
  let out: Result;
  if (prometheus) out = { kind: 'text', text: view.anomaliesPrometheus(doc) };
  else if (ctx.output.format === 'json') out = { kind: 'object', value: doc };
  else if (ctx.output.quiet) out = { kind: 'text', text: doc.jobs.flatMap((j) => j.backups.filter((b) => b.verdict === 'anomalous').map((b) => `${b.backup_id}\n`)).join('') };
  else out = { kind: 'text', text: view.anomaliesText(doc, ctx.io.columns ?? 100) };
  if (v.check === true && failing > 0) {
    const { render } = await import('../output/index.js');
    await render(out, ctx.output, ctx.io);
    throw new CliError(
      `${failing} backup${failing === 1 ? '' : 's'} with anomalies not acknowledged`,
      ExitCode.anomalyFound,
      doc.jobs.filter((j) => j.last_clean).map((j) => `  ${j.job.name ?? j.job.id}: last clean backup ${j.last_clean!.id} (${j.last_clean!.created_at ?? 'unknown time'})`),
    );
  }
  return out;
}

export const handlers: Record<string, Handler> = { scan, anomalies };
