// `backupctl report`: did the schedules keep? Expected runs from each job's
// cron expression and time zone over a window, matched to the backups that
// ran; missed runs, failures, durations and sizes per job, then droplets,
// volumes and snapshot resources. As a table, JSON, Markdown or one
// self-contained HTML file with charts.
import type { Handler, Result } from '../cli/types.js';
import type { ModuleSpec } from '../resources/types.js';
import { FLEET_CALLS, fleetDryRun, onePage } from '../status/fleet.js';
import { UsageError } from '../errors.js';
import { parseDatetime } from '../util/time.js';
import { reportDocumentSchema, type ReportDocument } from '../report/model.js';

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
        'to a file atomically.',
      examples: [
        'backupctl report',
        'backupctl report --since 7d --job "shop mysql"',
        'backupctl report --since 2026-01-01 --until 2026-02-01 -o md > january.md',
        'backupctl report -o html --output-file report.html',
        'backupctl report --json | jq \'.jobs[] | select(.missed > 0) | {name, missed_runs}\'',
      ],
      params: [
        { name: 'since', in: 'local', type: 'string', default: '30d', placeholder: 'age|datetime', description: 'Start of the window: an age (30d, 2w, 36h) or an ISO 8601 datetime' },
        { name: 'until', in: 'local', type: 'string', default: 'now', placeholder: 'age|datetime', description: 'End of the window: now, an age (1d) or an ISO 8601 datetime' },
        { name: 'job', in: 'local', type: 'string', repeatable: true, placeholder: 'id|name', description: 'Only this job, by id or name; droplets, volumes and resources are then left out' },
        { name: 'grace', in: 'local', type: 'duration', default: '1h', placeholder: 'duration', description: 'A backup started within this of an expected run (before or after) fulfils it' },
        { name: 'output_file', in: 'local', type: 'string', placeholder: 'path', description: 'Write the output to this file atomically instead of stdout' },
      ],
      output: { kind: 'object', schema: 'report' },
      handler: 'report',
      alsoCalls: FLEET_CALLS,
      dryRunInHandler: true,
      extraFormats: ['md', 'html'],
    },
  ],
};

export const schemas = { report: reportDocumentSchema };

type Format = 'table' | 'json' | 'ndjson' | 'tsv' | 'quiet' | 'md' | 'html';

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
  if (outputFile !== undefined) {
    const { checkOutputFile } = await import('../status/output-file.js');
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

  const [{ collectReport }, { loadCronTools }] = await Promise.all([import('../report/collect.js'), import('../status/schedule.js')]);
  const doc = await collectReport(ctx, { jobs, sections, window: { since, until, graceMs, now }, tools: await loadCronTools() });
  const { renderToOutput } = await import('../status/output-file.js');
  await renderToOutput(ctx, outputFile, async (out, io) => resultFor(doc, format, out.color, io.columns, out.noHeaders));
  return { kind: 'empty' };
};

export const handlers: Record<string, Handler> = { report };

async function resultFor(doc: ReportDocument, format: Format, color: boolean, width: number, noHeaders: boolean): Promise<Result> {
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
      const [{ reportTable }, { makePalette }] = await Promise.all([import('../report/text.js'), import('../status/view.js')]);
      return { kind: 'text', text: reportTable(doc, { palette: await makePalette(color), width, noHeaders, now }) };
    }
  }
}
