// `backupctl status`: fleet health at a glance. Every job with its schedules
// in words, its newest backup, a strip of the last 10, the next run and its
// storage, worst first; then droplets, volumes and snapshot resources.
// `--check` turns it into a freshness check (exit 9), `-o prometheus` into
// metrics for node_exporter's textfile collector.
import type { Context, Handler, IO, OutputOptions, Result } from '../cli/types.js';
import type { ModuleSpec } from '../resources/types.js';
import { FLEET_CALLS, fleetDryRun, onePage } from '../fleet/calls.js';
import { EmptyResultError, UsageError } from '../errors.js';
import { cronParams } from '../jobs/cron.js';
import { parseDuration } from '../util/time.js';
import { DEFAULT_MAX_AGE_MS, parseMaxAges, statusDocumentSchema, type BackupSummary, type JobStatus, type MaxAgeRules, type StatusDocument } from '../status/model.js';
import { durationText } from '../util/duration.js';

export const module: ModuleSpec = {
  name: 'status',
  commands: [
    {
      path: ['status'],
      summary: 'Fleet health at a glance: every job, newest backup, next run',
      description:
        'One row per job, worst first (failing, stale, unknown, healthy): where it runs, its schedules in words, its ' +
        'newest backup, the last 10 as marks (newest first, as -o tsv and --json list them), the last success, the next run from its cron ' +
        'expression and time zone, and its storage. Then droplets, volumes and snapshot resources that take snapshots.\n\n' +
        'A job is failing when its newest finished backup failed or expired (or completed with errors, unless ' +
        '--allow-errors), stale when its newest completed backup is older than its max age (default ' +
        `${durationText(DEFAULT_MAX_AGE_MS)}), unknown when it has none yet and is younger than its max age.\n\n` +
        'Each job also shows its last verify (from verify\'s ledger; a failed one makes the job failing) and when its ' +
        'last restore test passed (restore-test), or "never".\n\n' +
        '--check exits 9 when a job has no completed backup younger than its max age, or its last verify failed, with ' +
        'one line per such job on stderr; --healthcheck-url pings a healthchecks.io-style monitor around it. -o prometheus prints metrics for node_exporter\'s textfile collector; --output-file writes the output ' +
        'to a file atomically (temporary file, then rename). -o tsv prints one line per job; --json the whole document ' +
        '(backupctl schema status).',
      examples: [
        'backupctl status',
        'backupctl status --job "shop mysql"',
        'backupctl status --check --max-age 26h --max-age "weekly archive=8d" -q',
        'backupctl status -o prometheus --output-file /var/lib/node_exporter/textfile/backupctl.prom',
        'backupctl status --json | jq \'.jobs[] | select(.health != "healthy") | .name\'',
      ],
      params: [
        { name: 'job', in: 'local', type: 'string', repeatable: true, placeholder: 'id|name', complete: 'jobs', description: 'Only this job, by id or name' },
        { name: 'check', in: 'local', type: 'boolean', description: 'Exit 9 when a job has no completed backup younger than its max age, or its last verify failed' },
        {
          name: 'max_age',
          in: 'local',
          type: 'string',
          repeatable: true,
          placeholder: '[job=]duration',
          description: `Max age of the newest completed backup: 26h for every job (default ${durationText(DEFAULT_MAX_AGE_MS)}), or <job>=48h for one job (id or name)`,
        },
        { name: 'allow_errors', in: 'local', type: 'boolean', description: 'Count completed_with_errors as completed, not as failed' },
        { name: 'output_file', in: 'local', type: 'string', placeholder: 'path', description: 'Write the output to this file atomically instead of stdout' },
        ...cronParams.filter((p) => p.name === 'healthcheck_url'),
      ],
      output: { kind: 'object', schema: 'status' },
      handler: 'status',
      alsoCalls: FLEET_CALLS,
      dryRunInHandler: true,
      extraFormats: ['prometheus'],
    },
  ],
};

export const schemas = { status: statusDocumentSchema };

type Format = 'table' | 'json' | 'ndjson' | 'tsv' | 'quiet' | 'prometheus';

const status: Handler = async (input, ctx) => {
  const v = input.values;
  const prometheus = ctx.globals.output?.trim().toLowerCase() === 'prometheus';
  if (prometheus && ctx.globals.json) throw new UsageError('--json and -o prometheus ask for two formats: give one');
  const maxAges = parseMaxAges(
    (v.max_age as string[] | undefined) ?? [],
    parseDuration,
    (value, reason) => new UsageError(`invalid value "${value}" for --max-age: ${reason}`),
  );
  const jobs = (v.job as string[] | undefined) ?? [];
  const outputFile = v.output_file as string | undefined;
  const format: Format = prometheus ? 'prometheus' : ctx.output.quiet ? 'quiet' : ctx.output.format;
  // The other sections are shown by the table, the document and the metrics; tsv and -q are per job.
  const sections = jobs.length === 0 && (format === 'table' || format === 'json' || format === 'ndjson' || format === 'prometheus');
  const { selectColumns } = await import('../output/index.js');
  const { jobColumns } = await import('../status/view.js');
  const jobKeys = ctx.output.columns && (format === 'table' || format === 'tsv') ? selectColumns(jobColumns, ctx.output.columns).map((c) => c.key) : undefined;
  if (outputFile !== undefined) {
    const { checkOutputFile } = await import('../output/output-file.js');
    await checkOutputFile(outputFile);
  }
  if (ctx.globals.dryRun) {
    return fleetDryRun(
      ctx,
      sections,
      'Then, for every job: GET /v1/jobs/{job_id}/backups?sort=-created_at&page_size=15' +
        (sections ? '; for every scheduled droplet and volume: GET .../snapshots?sort=-started_at&page_size=15; GET /v1/snapshots?sort=-started_at&page_size=100 for the resources' : '') +
        '.',
    );
  }

  const [{ collectStatus }, { loadCronTools }] = await Promise.all([import('../status/collect.js'), import('../fleet/schedule.js')]);
  const { runCronJob } = await import('../jobs/cron.js');
  return runCronJob(v, ctx, async () => {
    const { readJobMarks } = await import('../fleet/marks.js');
    const doc = await collectStatus(ctx, {
      jobs,
      sections,
      maxAges,
      allowErrors: v.allow_errors === true,
      now: Date.now(),
      tools: await loadCronTools(),
      marks: await readJobMarks(ctx),
    });

    const { renderToOutput } = await import('../output/output-file.js');
    // --check -q: the ids of the jobs that fail the check, so a script can act on them.
    const shown = v.check === true && format === 'quiet' ? { ...doc, jobs: doc.jobs.filter(breaksCheck) } : doc;
    await renderToOutput(ctx, outputFile, (out, io) => resultFor(shown, format, out, io, ctx, maxAges, jobKeys));
    if (v.check === true) await check(doc);
    return { kind: 'empty' };
  });
};

export const handlers: Record<string, Handler> = { status };

async function resultFor(
  doc: StatusDocument,
  format: Format,
  out: OutputOptions,
  io: IO,
  ctx: Context,
  maxAges: MaxAgeRules,
  jobKeys: string[] | undefined,
): Promise<Result> {
  switch (format) {
    case 'prometheus': {
      const { prometheusText } = await import('../status/prometheus.js');
      return { kind: 'text', text: prometheusText(doc) };
    }
    case 'json':
    case 'ndjson':
      return { kind: 'text', text: '', value: doc };
    case 'tsv':
    case 'quiet': {
      const { jobColumns } = await import('../status/view.js');
      const columns = jobKeys ? jobKeys.map((k) => jobColumns.find((c) => c.key === k)!) : jobColumns;
      return { kind: 'list', pages: onePage(doc.jobs), columns, idField: 'id' };
    }
    case 'table': {
      const [{ statusView, unicodeMarks }, { makePalette }] = await Promise.all([import('../status/view.js'), import('../output/view-table.js')]);
      const text = statusView(doc, {
        palette: await makePalette(out.color),
        unicode: unicodeMarks(ctx.env),
        width: io.columns,
        noHeaders: out.noHeaders,
        now: new Date(doc.generated_at),
        jobKeys,
        maxAgeText: `${durationText(maxAges.fallbackMs)}${maxAges.perJob.length ? ' (and per job as given)' : ''}`,
      });
      return { kind: 'text', text };
    }
  }
}

/** What --check refuses: no completed backup within the max age, or a last verify that failed. */
function breaksCheck(j: JobStatus): boolean {
  return !j.within_max_age || j.verify?.verdict === 'failed';
}

/**
 * --check: every job needs a completed backup younger than its max age (a new job gets until then),
 * and its last verify, when there was one, must have passed.
 */
export async function check(doc: StatusDocument): Promise<void> {
  if (!doc.jobs.length) throw new EmptyResultError('no jobs to check');
  const offending = doc.jobs.filter(breaksCheck);
  if (!offending.length) return;
  const { relativeTime, sanitize } = await import('../output/index.js');
  const now = new Date(doc.generated_at);
  const when = (b: BackupSummary) => relativeTime(b.completed_at ?? b.created_at, now) || 'at an unknown time';
  // Hours and minutes, so "96h1m old, max age 4d" shows why where "4 days ago" would not.
  const old = (seconds: number | null) =>
    seconds === null ? 'of unknown age' : `${Math.floor(seconds / 3600)}h${Math.floor((seconds % 3600) / 60)}m old`;
  const lines = offending.map((j) => {
    const maxAge = durationText(j.max_age_seconds * 1000);
    const reasons: string[] = [];
    if (!j.within_max_age) {
      const last = j.last_completed
        ? `newest completed backup ${old(j.last_completed.age_seconds)}, max age ${maxAge}`
        : `no completed backup, max age ${maxAge}`;
      const newest = j.newest && j.newest.id !== j.last_completed?.id ? `; newest backup ${sanitize(j.newest.status ?? 'of unknown status')} ${when(j.newest)}` : '';
      reasons.push(last + newest);
    }
    if (j.verify?.verdict === 'failed') reasons.push(`last verify failed ${relativeTime(j.verify.last_at, now) || j.verify.last_at}`);
    return `  ${sanitize(j.name ?? j.id)} (${sanitize(j.id)}): ${reasons.join('; ')}`;
  });
  const n = offending.length;
  const stale = offending.filter((j) => !j.within_max_age).length;
  const unverified = offending.filter((j) => j.verify?.verdict === 'failed').length;
  const of = `${n} of ${doc.jobs.length} job${doc.jobs.length === 1 ? '' : 's'}`;
  // The message names what is wrong: the max age, the verify, or both.
  const message = !unverified
    ? `${of} ${n === 1 ? 'has' : 'have'} no completed backup within ${n === 1 ? 'its' : 'their'} max age`
    : !stale
      ? `${of} failed ${n === 1 ? 'its' : 'their'} last verify`
      : `${of} fail the check: ${stale} with no completed backup within the max age, ${unverified} whose last verify failed`;
  throw new EmptyResultError(message, lines);
}
