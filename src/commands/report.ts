// `backupctl report`: did the schedules keep? Expected runs from each job's
// cron expression and time zone over a window, matched to the backups that
// ran; missed runs, failures, durations and sizes per job, then droplets,
// volumes and snapshot resources. As a table, JSON, Markdown or one
// self-contained HTML file with charts.
import type { Handler, ProfileView, Result } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { FLEET_CALLS, fleetDryRun, onePage } from '../fleet/calls.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { cronParams } from '../jobs/cron.js';
import { parseDatetime } from '../util/time.js';
import { REPORT_RULES, reportDocumentSchema, type ReportDocument } from '../report/document.js';

export const module: ModuleSpec = {
  name: 'report',
  commands: [
    {
      path: ['report'],
      summary: 'Expected runs against actual backups: missed runs, failures, durations, sizes',
      description:
        'For every job, the runs its schedules expected in the window (from each cron expression in its time zone, ' +
        'daylight-saving changes included), matched to its backups: a backup started within --grace of an expected run ' +
        'fulfils it, an expected run nothing fulfilled is missed, a backup that fulfilled none is unscheduled (manual ' +
        'backups always are). Per job: expected, completed, completed with errors, failed, missed, success rate, the ' +
        'missed runs, median and p95 duration, stored size and the last success. Then droplets and volumes (snapshots ' +
        'expected every `frequency` hours from `run_offset`) and snapshot resources with backups activated, as far as ' +
        'their records allow; what cannot be computed is said.\n\n' +
        '-o md prints Markdown; -o html one self-contained HTML file (inline CSS and SVG charts, no network request, ' +
        'printable): the fleet summary, a calendar strip per job (one cell per day), durations over time and the ' +
        'success rate per job. --json prints the document (backupctl schema report). --output-file writes the output ' +
        'to a file atomically.\n\n' +
        'A schedule edit does not rewrite history: the service keeps no past schedules, so the runs the current schedule ' +
        'expected before the job was last changed (its updated_at) count only where a backup fulfilled them; the others ' +
        'are "unknown: schedule changed on <date>", never missed. Where the service states no schedule (snapshot ' +
        'resources), the schedule is unknown: nothing is missed, nothing is called unscheduled.\n\n' +
        '--check turns the report into an alert: it exits 13 when a job has more missed runs than --max-missed (default ' +
        '0) or a success rate below --min-success, naming each such job on stderr; -q then prints only their ids. ' +
        '--healthcheck-url pings a healthchecks.io-style monitor around the run (/fail on exit 13).\n\n' +
        'Each job also shows the verify and restore-test marks of its newest completed backup (passed, unchecked, structure-only, ' +
        'failed, not-tested; a restore test that passed with its time to restore), or "never"; a mark of an older backup is shown as such. ' +
        'And what `backupctl anomalies` finds in the catalog for its backups created in the window: the anomalous ones and the last ' +
        'clean backup, the acknowledged ones as such.\n\n' +
        'Rules (also printed by --explain):\n' +
        REPORT_RULES.map((r) => `- ${r}`).join('\n'),
      examples: [
        'backupctl report',
        'backupctl report --since 7d --job "shop mysql"',
        'backupctl report --since 2026-01-01 --until 2026-02-01 -o md > january.md',
        'backupctl report -o html --output-file report.html',
        'backupctl report --json | jq \'.jobs[] | select(.missed > 0) | {name, missed_runs}\'',
        'backupctl report --since 7d --check --max-missed 1 --min-success 90 -q',
      ],
      params: [
        { name: 'since', in: 'local', type: 'string', default: '30d', placeholder: 'age|datetime', description: 'Start of the window: an age (30d, 2w, 36h) or an ISO 8601 datetime' },
        { name: 'until', in: 'local', type: 'string', default: 'now', placeholder: 'age|datetime', description: 'End of the window: now, an age (1d) or an ISO 8601 datetime' },
        { name: 'job', in: 'local', type: 'string', repeatable: true, placeholder: 'id|name', description: 'Only this job, by id or name; droplets, volumes and resources are then left out' },
        { name: 'grace', in: 'local', type: 'duration', default: '1h', placeholder: 'duration', description: 'A backup started within this of an expected run (before or after) fulfils it' },
        { name: 'output_file', in: 'local', type: 'string', placeholder: 'path', description: 'Write the output to this file atomically instead of stdout' },
        { name: 'check', in: 'local', type: 'boolean', description: 'Exit 13 when a job breaks a threshold (--max-missed, --min-success); -q prints only those jobs' },
        { name: 'max_missed', in: 'local', type: 'integer', min: 0, placeholder: 'n', description: 'With --check: a job with more missed runs than this breaks the check (default 0)' },
        {
          name: 'min_success',
          in: 'local',
          type: 'string',
          placeholder: 'percent',
          description: 'With --check: a job whose success rate is below this percentage (0-100, e.g. 95 or 99.5%) breaks the check',
        },
        { name: 'explain', in: 'local', type: 'boolean', description: 'Print the rules the report follows after the table' },
        {
          name: 'assurance',
          in: 'local',
          type: 'string',
          placeholder: 'path',
          description: 'A backups file with an assurance section: add the restore testing evidence (md, html, --json) of its plans (docs/assurance.md)',
        },
        ...cronParams.filter((p) => p.name === 'healthcheck_url'),
      ],
      output: { kind: 'object', schema: 'report' },
      handler: 'report',
      alsoCalls: FLEET_CALLS,
      dryRunInHandler: true,
      extraFormats: ['md', 'html'],
      perProfile: { rows: 'jobs', columns: ['name', 'expected', 'completed', 'failed', 'missed', 'success_rate'], formats: ['md', 'html'] },
    },
  ],
};

export const schemas = { report: reportDocumentSchema };

type Format = Extract<import('../contract/context.js').Format, 'table' | 'json' | 'ndjson' | 'tsv' | 'quiet' | 'md' | 'html'>;

/** --since/--until: `now`, an age before now, or an ISO 8601 datetime. */
function windowEnd(flag: string, text: string, now: number): number {
  if (text.trim().toLowerCase() === 'now') return now;
  const iso = parseDatetime(text, now);
  if (iso === undefined) {
    throw new UsageError(`invalid value ${JSON.stringify(text)} for --${flag}: must be now, an age such as 30d, 2w, 36h, or an ISO 8601 datetime (2026-01-31T02:00:00Z)`);
  }
  return Date.parse(iso);
}

const report: Handler = async (input, ctx) => {
  const v = input.values;
  const own = ctx.globals.output?.trim().toLowerCase();
  const extra = own === 'md' || own === 'html' ? own : undefined;
  if (extra && ctx.globals.json) throw new UsageError(`--json and -o ${extra} ask for two formats: give one`);
  const format: Format = extra ?? (ctx.output.quiet ? 'quiet' : ctx.output.format);
  const now = Date.now();
  const since = windowEnd('since', String(v.since ?? '30d'), now);
  const until = windowEnd('until', String(v.until ?? 'now'), now);
  if (since >= until) throw new UsageError(`--since (${new Date(since).toISOString()}) must be before --until (${new Date(until).toISOString()})`);
  const graceMs = Number(v.grace ?? 3_600_000);
  if (!(graceMs >= 0)) throw new UsageError('invalid value for --grace: must be a duration such as 30m or 2h');
  const jobs = (v.job as string[] | undefined) ?? [];
  const outputFile = v.output_file as string | undefined;
  const check = v.check === true ? { maxMissed: Number(v.max_missed ?? 0), minSuccess: parseMinSuccess(v.min_success) } : undefined;
  if (!check) {
    for (const flag of ['max_missed', 'min_success'] as const) {
      if (v[flag] !== undefined) throw new UsageError(`--${flag.replace('_', '-')} is a threshold of --check: add --check`);
    }
  }
  if (outputFile !== undefined) {
    const { checkOutputFile } = await import('../output/output-file.js');
    await checkOutputFile(outputFile);
  }
  // The table, the document and the HTML show the other sections; tsv and -q are per job.
  const sections = jobs.length === 0 && format !== 'tsv' && format !== 'quiet';
  if (ctx.globals.dryRun) {
    return fleetDryRun(
      ctx,
      sections,
      `Then, for every job: GET /v1/jobs/{job_id}/backups?started_since=${new Date(since - graceMs).toISOString()}&sort=started_at&page_size=100 (every page)` +
        (sections ? '; the same for every scheduled droplet and volume (.../snapshots), and GET /v1/snapshots for the resources' : '') +
        '.',
    );
  }

  // The plans of --assurance, read before anything else: a bad plan is exit 2 before the fleet is read.
  const assurance = typeof v.assurance === 'string' ? { file: v.assurance, plans: await (await import('./assure.js')).loadPlans(ctx, v.assurance) } : null;
  const { runCronJob } = await import('../jobs/cron.js');
  return runCronJob(v, ctx, async () => {
    const [{ collectReport }, { loadCronTools }, { readFleetMarks }, { readFleetAnomalies }, { openTimings }] = await Promise.all([
      import('../report/collect.js'),
      import('../fleet/schedule.js'),
      import('../fleet/marks.js'),
      import('../fleet/anomalies.js'),
      import('../fleet/timing.js'),
    ]);
    const timings = await openTimings(ctx);
    const doc = await collectReport(ctx, {
      jobs,
      sections,
      window: { since, until, graceMs, now },
      tools: await loadCronTools(),
      marks: await readFleetMarks(ctx),
      // The anomalies of the backups created in the window, from the catalog (issue 33).
      anomalies: await readFleetAnomalies(ctx, { since, until }),
      timings,
      check,
    });
    if (assurance) {
      // The restore testing evidence (issue 44): the plans judged by the marks of the state, now.
      const [{ openMarks }, { buildEvidence }] = await Promise.all([import('../fleet/marks.js'), import('../report/evidence.js')]);
      const marks = await openMarks(ctx);
      doc.assurance = buildEvidence(assurance.file === '-' ? '(stdin)' : assurance.file, assurance.plans, (id) => marks.ofJob(id), Date.parse(doc.generated_at));
    }
    // The timings first seen by this run, remembered; a failed write costs only the memory.
    await timings?.save().catch(() => {});
    const { renderToOutput } = await import('../output/output-file.js');
    // --check -q: only the jobs that break a threshold, so a script can act on them.
    const broken = new Set(doc.check?.broken.map((b) => b.id));
    const shown = check && format === 'quiet' ? { ...doc, jobs: doc.jobs.filter((j) => broken.has(j.id)) } : doc;
    // What expires next per job (issue 32), after the table or the Markdown.
    const { expiresNextSection } = await import('../retention/fleet.js');
    const expiresNext = format === 'table' || format === 'md' ? await expiresNextSection(ctx, shown.jobs.map((j) => String(j.id)), now, format === 'md') : '';
    await renderToOutput(ctx, outputFile, async (out, io) => {
      const result = await resultFor(shown, format, out.color, io.columns, out.noHeaders, v.explain === true);
      if (result.kind !== 'text' || !expiresNext) return result;
      // Before the table's last line (where to read the rules), which stays last.
      const rules = result.text.lastIndexOf('\nThe rules: ');
      return { ...result, text: rules >= 0 ? `${result.text.slice(0, rules)}${expiresNext}${result.text.slice(rules)}` : result.text + expiresNext };
    });
    if (check) await checkThresholds(doc);
    return { kind: 'empty' };
  });
};

/** --min-success: a percentage 0..100, with or without "%", as a fraction. */
function parseMinSuccess(value: unknown): number | null {
  if (value === undefined) return null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(String(value));
  const n = m ? Number(m[1]) : NaN;
  if (!(n >= 0 && n <= 100)) throw new UsageError(`invalid value ${JSON.stringify(String(value))} for --min-success: must be a percentage from 0 to 100, such as 95 or 99.5%`);
  return n / 100;
}

/** --check: exit 13 naming each job that breaks a threshold. */
async function checkThresholds(doc: ReportDocument): Promise<void> {
  const broken = doc.check?.broken ?? [];
  if (!broken.length) return;
  const { sanitize } = await import('../output/index.js');
  const n = broken.length;
  throw new CliError(
    `${n} of ${doc.jobs.length} job${doc.jobs.length === 1 ? '' : 's'} ${n === 1 ? 'breaks' : 'break'} a threshold of report --check`,
    ExitCode.thresholdBroken,
    broken.map((b) => `  ${sanitize(b.name ?? String(b.id))} (${sanitize(String(b.id))}): ${b.reasons.join('; ')}`),
  );
}

export const handlers: Record<string, Handler> = { report };

/**
 * --all-profiles / --profiles a,b (issue 42.11): the single-profile report of every profile's
 * document, with a profile column (table, tsv; -q the ids); Markdown and HTML have each entry's
 * name say its profile. The totals are counted over every profile's entries. --json stays
 * `{"profiles": [...]}`.
 */
export const profileViews: Record<string, ProfileView> = {
  report: async (outcomes, { output, io, format }) => {
    const { mergeReport, namedByProfile } = await import('../report/profiles.js');
    const { doc, unreadProfiles } = mergeReport(outcomes);
    const { sanitize } = await import('../output/index.js');
    const notRead = (await import('../fleet/profiles.js')).notReadLines(unreadProfiles, sanitize);
    if (format === 'md' || format === 'html') {
      const result = await resultFor(namedByProfile(doc), format, output.color, io.columns, output.noHeaders, false);
      return format === 'md' && result.kind === 'text' && notRead ? { ...result, text: `${result.text}\n${notRead}` } : result;
    }
    if (format !== undefined) return undefined;
    const { reportJobColumns, reportTable } = await import('../report/text.js');
    if (output.quiet) return { kind: 'list', pages: onePage(doc.jobs), columns: reportJobColumns, idField: 'id' };
    if (output.format === 'tsv') return { kind: 'list', pages: onePage(doc.jobs), columns: [{ key: 'profile', header: 'Profile' }, ...reportJobColumns], idField: 'id' };
    const { makePalette } = await import('../output/view-table.js');
    const text = reportTable(doc, { palette: await makePalette(output.color), width: io.columns, noHeaders: output.noHeaders, now: new Date(doc.generated_at), profiles: true });
    return { kind: 'text', text: text + (notRead ? `\n${notRead}` : '') };
  },
};

async function resultFor(doc: ReportDocument, format: Format, color: boolean, width: number, noHeaders: boolean, explain: boolean): Promise<Result> {
  const now = new Date(doc.generated_at);
  switch (format) {
    case 'json':
    case 'ndjson':
      return { kind: 'text', text: '', value: doc };
    case 'tsv':
    case 'quiet': {
      const { reportJobColumns } = await import('../report/text.js');
      return { kind: 'list', pages: onePage(doc.jobs), columns: reportJobColumns, idField: 'id' };
    }
    case 'md': {
      const { reportMarkdown } = await import('../report/text.js');
      return { kind: 'text', text: reportMarkdown(doc) };
    }
    case 'html': {
      const { reportHtml } = await import('../report/html.js');
      return { kind: 'text', text: reportHtml(doc) };
    }
    case 'table': {
      const [{ reportTable }, { makePalette }] = await Promise.all([import('../report/text.js'), import('../output/view-table.js')]);
      return { kind: 'text', text: reportTable(doc, { palette: await makePalette(color), width, noHeaders, now, explain }) };
    }
  }
}
