// `backupctl status`: fleet health at a glance. Every job with its schedules
// in words, its newest backup, a strip of the last 10, the next run and its
// storage, worst first; then droplets, volumes and snapshot resources.
// `--check` turns it into a freshness check (exit 9), `-o prometheus` into
// metrics for node_exporter's textfile collector.
import type { Context, Handler, IO, OutputOptions, ProfileView, Result } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { FLEET_CALLS, fleetDryRun, onePage } from '../fleet/calls.js';
import { EmptyResultError, UsageError } from '../errors.js';
import { cronParams } from '../jobs/cron.js';
import { parseDuration } from '../util/time.js';
import { DEFAULT_MAX_AGE_MS, parseMaxAges, statusDocumentSchema, type BackupSummary, type JobStatus, type MachineStatus, type MaxAgeRules, type ResourceStatus, type StatusDocument } from '../status/document.js';
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
        '--allow-errors), or when the verify or restore test of its newest completed backup failed, whatever --max-age says; ' +
        'stale when its newest completed backup is older than its max age: its schedule\'s interval plus a grace ' +
        `(25%, at least 2h), from its cron expressions and time zone; --max-age overrides it (${durationText(DEFAULT_MAX_AGE_MS)} ` +
        'when no active schedule can be read); unknown when it has none yet and is younger than its max age.\n\n' +
        'Each job shows the verify and restore-test marks of its newest completed backup (backupctl verify, restore-test; kept per ' +
        'service and backup in the state folder): passed, unchecked, structure-only, failed or not-tested. A mark of an older backup is ' +
        'shown as such and never judged. Droplets, volumes and snapshot resources get a health too, from their frequency and snapshots.\n\n' +
        '--check exits 9 when a job, droplet, volume or snapshot resource is failing or stale, with one line per such ' +
        'thing on stderr; unchecked and not-tested marks (and a job not tested for longer than its max age) are warnings on stderr, ' +
        'which fail it only with --strict. Each job also shows what `backupctl anomalies` finds in the catalog for its backups of the ' +
        'last 30 days (read by verify, restore-test, scan and anomalies; status reads no backup): an anomaly not acknowledged is a ' +
        'warning naming the last clean backup, an acknowledged one is shown as such. --healthcheck-url pings a healthchecks.io-style monitor around it. -o prometheus prints metrics for node_exporter\'s textfile collector; --output-file writes the output ' +
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
        { name: 'check', in: 'local', type: 'boolean', description: 'Exit 9 when a job, droplet, volume or snapshot resource is failing or stale' },
        { name: 'strict', in: 'local', type: 'boolean', description: 'With --check: warnings (unchecked or not-tested marks of the newest backup) fail it too' },
        {
          name: 'max_age',
          in: 'local',
          type: 'string',
          repeatable: true,
          placeholder: '[job=]duration',
          description: 'Max age of the newest completed backup: 26h for every job, or <job>=48h for one job (id or name); default: each job\'s schedule interval plus 25% (at least 2h)',
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
      perProfile: { rows: 'jobs', columns: ['name', 'health', 'last_completed.created_at', 'next_run'] },
    },
  ],
};

export const schemas = { status: statusDocumentSchema };

type Format = Extract<import('../contract/context.js').Format, 'table' | 'json' | 'ndjson' | 'tsv' | 'quiet' | 'prometheus'>;

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
  // --check judges them whatever the format (they are said on stderr).
  const sections = jobs.length === 0 && (v.check === true || format === 'table' || format === 'json' || format === 'ndjson' || format === 'prometheus');
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
    const [{ readFleetMarks }, { readFleetAnomalies, ANOMALY_WINDOW_DAYS }] = await Promise.all([import('../fleet/marks.js'), import('../fleet/anomalies.js')]);
    const now = Date.now();
    const doc = await collectStatus(ctx, {
      jobs,
      sections,
      maxAges,
      allowErrors: v.allow_errors === true,
      now,
      tools: await loadCronTools(),
      marks: await readFleetMarks(ctx),
      anomalies: await readFleetAnomalies(ctx, { since: now - ANOMALY_WINDOW_DAYS * 86_400_000 }),
    });

    const { renderToOutput } = await import('../output/output-file.js');
    // --check -q: the ids of the jobs that fail the check, so a script can act on them.
    const strict = v.strict === true;
    const shown = v.check === true && format === 'quiet' ? { ...doc, jobs: doc.jobs.filter((j) => breaksCheck(j, strict)) } : doc;
    await renderToOutput(ctx, outputFile, (out, io) => resultFor(shown, format, out, io, ctx, maxAges, jobKeys));
    if (v.check === true) {
      // The retention guard (issue 32): a warning kind of its own, for jobs with a proven backup about to expire.
      const { guardWarnings } = await import('../retention/fleet.js');
      for (const line of await guardWarnings(ctx, doc.jobs.map((j) => j.id), Date.parse(doc.generated_at))) ctx.warn(line);
      await check(doc, { strict, warn: (line) => ctx.warn(line) });
    }
    return { kind: 'empty' };
  });
};

export const handlers: Record<string, Handler> = { status };

/**
 * --all-profiles / --profiles a,b (issue 42.11): the single-profile view of every profile's
 * document, with a profile column (table: jobs, droplets, volumes, resources, marks,
 * anomalies; tsv; -q the ids of the jobs). --json stays `{"profiles": [...]}`.
 */
export const profileViews: Record<string, ProfileView> = {
  status: async (outcomes, { output, io, env, format }) => {
    // -o prometheus: one exposition per profile (its own file and scrape), so not merged.
    if (format !== undefined) return undefined;
    const { mergeStatus } = await import('../status/profiles.js');
    const { doc, unreadProfiles } = mergeStatus(outcomes);
    const { selectColumns, sanitize } = await import('../output/index.js');
    const notRead = (await import('../fleet/profiles.js')).notReadLines(unreadProfiles, sanitize);
    const { jobColumns, statusView, unicodeMarks } = await import('../status/view.js');
    if (output.quiet) return { kind: 'list', pages: onePage(doc.jobs), columns: jobColumns, idField: 'id' };
    const profileColumn = { key: 'profile', header: 'Profile' };
    if (output.format === 'tsv') return { kind: 'list', pages: onePage(doc.jobs), columns: [profileColumn, ...jobColumns], idField: 'id' };
    const jobKeys = output.columns ? selectColumns(jobColumns, output.columns).map((c) => c.key) : undefined;
    const { makePalette } = await import('../output/view-table.js');
    const text = statusView(doc, {
      palette: await makePalette(output.color),
      unicode: unicodeMarks(env),
      width: io.columns,
      noHeaders: output.noHeaders,
      now: new Date(doc.generated_at),
      jobKeys,
      maxAgeText: "from each job's schedule (interval + 25%, at least 2h), or as each profile's run was given",
      profiles: true,
    });
    return { kind: 'text', text: text + (notRead ? `\n${notRead}` : '') };
  },
};

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
        maxAgeText: `${maxAges.givenMs !== undefined ? durationText(maxAges.givenMs) : "from each job's schedule (interval + 25%, at least 2h)"}${maxAges.perJob.length ? ' (and per job as given)' : ''}`,
      });
      return { kind: 'text', text };
    }
  }
}

/** What --check refuses: a failing or stale job (failed marks of its newest backup included); with --strict, a warning too. */
function breaksCheck(j: JobStatus, strict = false): boolean {
  return j.health === 'failing' || j.health === 'stale' || (strict && j.warnings.length > 0);
}

type Snapshotted = (MachineStatus | ResourceStatus) & { kind: string; label: string };

/**
 * --check: exit 9 when a job, droplet, volume or snapshot resource is failing (its newest run failed, or a
 * verify or restore test of the newest completed backup failed) or stale (no completed backup within its
 * max age; a new job gets until then). Warnings (unchecked, not-tested) are said on stderr and fail it only
 * with --strict.
 */
export async function check(doc: StatusDocument, o: { strict?: boolean; warn?: (line: string) => void } = {}): Promise<void> {
  const strict = o.strict === true;
  const snapshotted: Snapshotted[] = [
    ...(doc.droplets ?? []).map((m) => ({ ...m, kind: 'droplet', label: m.name ?? String(m.id) })),
    ...(doc.volumes ?? []).map((m) => ({ ...m, kind: 'volume', label: m.name ?? String(m.id) })),
    ...(doc.resources ?? []).map((r) => ({ ...r, kind: 'snapshot resource', label: r.last_known_ip ?? String(r.id) })),
  ];
  const unread = doc.unread ?? [];
  if (!doc.jobs.length && !snapshotted.length && !unread.length) throw new EmptyResultError('no jobs to check');
  const { relativeTime, sanitize } = await import('../output/index.js');
  const now = new Date(doc.generated_at);
  const when = (b: BackupSummary) => relativeTime(b.completed_at ?? b.created_at, now) || 'at an unknown time';
  // Hours and minutes, so "96h1m old, max age 4d" shows why where "4 days ago" would not.
  const old = (seconds: number | null) =>
    seconds === null ? 'of unknown age' : `${Math.floor(seconds / 3600)}h${Math.floor((seconds % 3600) / 60)}m old`;
  if (!strict) {
    for (const j of doc.jobs) for (const w of j.warnings) o.warn?.(`${sanitize(j.name ?? j.id)}: ${sanitize(w.text)} (status --check --strict fails on it)`);
  }
  const offending = doc.jobs.filter((j) => breaksCheck(j, strict));
  const lines = offending.map((j) => {
    const maxAge = durationText(j.max_age_seconds * 1000);
    const from = j.max_age_from === 'schedule' ? ' from its schedule' : j.max_age_from === 'flag' ? ' (--max-age)' : '';
    const reasons: string[] = [];
    if (j.health === 'failing') {
      const finished = j.newest && !['running', 'pending'].includes(j.newest.status ?? '') ? j.newest : null;
      const marks = (['verify', 'restore_test'] as const).filter((k) => j[k]?.of_newest && j[k]?.state === 'failed');
      if (finished && finished.id !== j.last_completed?.id && !marks.length) reasons.push(`newest backup ${sanitize(finished.status ?? 'of unknown status')} ${when(finished)}`);
      for (const k of marks) {
        const m = j[k]!;
        reasons.push(`the ${k === 'verify' ? 'verify' : 'restore test'} of the newest completed backup failed ${relativeTime(m.at, now) || m.at}${m.reason ? ` (${sanitize(m.reason)})` : ''}`);
      }
      if (!reasons.length) reasons.push(`newest backup ${sanitize(j.newest?.status ?? 'failed')}${j.newest ? ` ${when(j.newest)}` : ''}`);
    }
    if (!j.within_max_age) {
      reasons.push(
        j.last_completed
          ? `newest completed backup ${old(j.last_completed.age_seconds)}, max age ${maxAge}${from}`
          : `no completed backup, max age ${maxAge}${from}`,
      );
    }
    if (strict) for (const w of j.warnings) reasons.push(`warning: ${sanitize(w.text)}`);
    return `  ${sanitize(j.name ?? j.id)} (${sanitize(j.id)}): ${reasons.join('; ')}`;
  });
  const badSnapshots = snapshotted.filter((m) => m.health === 'failing' || m.health === 'stale');
  for (const m of badSnapshots) {
    const reason =
      m.health === 'failing'
        ? `newest snapshot ${sanitize(m.newest?.status ?? 'failed')}${m.newest ? ` ${relativeTime(m.newest.completed_at ?? m.newest.started_at, now)}` : ''}`
        : `${'status' in m && m.status === 'paused' ? 'paused; ' : ''}${m.last_completed ? `newest completed snapshot ${old(m.last_completed.age_seconds)}` : 'no completed snapshot'}, max age ${durationText(m.max_age_seconds * 1000)} from its frequency`;
    lines.push(`  ${m.kind} ${sanitize(m.label)} (${sanitize(String(m.id))}): ${m.health}: ${reason}`);
  }
  // A section that could not be read is not a healthy one: its own kind, failing the check whatever --strict says.
  for (const u of unread) lines.push(`  ${sanitize(u.section)}: could not be read: ${sanitize(u.reason)}`);
  if (!offending.length && !badSnapshots.length && !unread.length) return;
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const failing = offending.filter((j) => j.health === 'failing').length + badSnapshots.filter((m) => m.health === 'failing').length;
  const stale = offending.filter((j) => j.health === 'stale').length + badSnapshots.filter((m) => m.health === 'stale').length;
  const warned = offending.filter((j) => j.health !== 'failing' && j.health !== 'stale').length;
  const parts = [
    failing ? `${failing} failing` : '',
    stale ? `${stale} stale` : '',
    warned ? `${warned} with warnings (--strict)` : '',
    unread.length ? `${unread.map((u) => u.section).join(', ')} not read` : '',
  ].filter(Boolean);
  const of = `${count(doc.jobs.length, 'job')}${snapshotted.length ? ` and ${snapshotted.length} droplets, volumes and snapshot resources` : ''}`;
  throw new EmptyResultError(`status --check: ${parts.join(', ')} of ${of}`, lines);
}
