// `backupctl retention`: what the service's retention counts will do to each
// backup or snapshot of a job, droplet, volume or snapshot resource: kept by
// which rule, or expiring, and at which scheduled run. --simulate steps the
// schedule forward, --what-if tries other counts (nothing is sent but the
// reads), --check guards the newest proven backup (exit 16), --audit compares
// the predictions recorded by earlier runs with what the service expired.
import type { CommandInput, Context, Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { EmptyResultError, UsageError } from '../errors.js';
import { checkedHandler } from '../cli/checked.js';
import { retentionOutputSchema as outputSchema } from '../retention/schema.js';

export const module: ModuleSpec = {
  name: 'retention',
  commands: [
    {
      path: ['retention'],
      summary: 'Which backups the retention counts keep, by which rule, and when each is predicted to expire',
      description:
        'For every backup of a job (or snapshot of a droplet, volume or snapshot resource): kept, with the rule that ' +
        'keeps it ("daily #3", "weekly #1"), or expiring at the next run; and for each the scheduled run predicted to ' +
        'push it out, from the schedule\'s cron expression and time zone (droplets, volumes and resources: frequency ' +
        'and run offset). The inputs are echoed first: the counts, the schedule, the time zone and the tags read. The ' +
        'model and its named assumptions (A1-A7) are in docs/retention.md.\n\n' +
        '--simulate 30d steps the schedule forward and lists what goes each day and what exists at the end. ' +
        '--what-if daily=3,weekly=2 forecasts with other counts; it only reads, and records no prediction. ' +
        '--json prints keep / expire / reasons lists (as restic forget does) with every backup\'s verdict; -o md ' +
        'prints Markdown.\n\n' +
        'Each run records its predictions in the state folder (retention-predictions.json); --audit compares the ' +
        'recorded predictions with what the service has expired since, and says how many held.\n\n' +
        '--check exits 16 when the newest backup that passed verify or restore-test is predicted to expire within ' +
        '--within (default 3d) while no newer backup has passed, naming both and the date.',
      examples: [
        'backupctl retention "shop mysql"',
        'backupctl retention "shop mysql" --simulate 30d',
        'backupctl retention "shop mysql" --what-if daily=3,weekly=2',
        'backupctl retention --droplet 301234567 --json | jq \'.[0].expire\'',
        'backupctl retention --all --check',
        'backupctl retention "shop mysql" --audit',
      ],
      params: [
        { name: 'job_id', flag: 'job', in: 'local', type: 'uuid', positional: true, names: 'jobs', complete: 'jobs', description: 'Job id or name (or --droplet, --volume, --resource, --all)' },
        { name: 'droplet', in: 'local', type: 'integer', min: 1, placeholder: 'droplet', names: 'droplets', description: 'A droplet\'s snapshots instead of a job\'s backups (id or name)' },
        { name: 'volume', in: 'local', type: 'uuid', placeholder: 'volume', names: 'volumes', description: 'A volume\'s snapshots (id or name)' },
        { name: 'resource', in: 'local', type: 'string', placeholder: 'id', description: 'A snapshot resource\'s snapshots' },
        { name: 'all', in: 'local', type: 'boolean', description: 'Every job, every scheduled droplet and volume, every snapshot resource with backups activated' },
        { name: 'simulate', in: 'local', type: 'duration', min: 3_600_000, placeholder: 'duration', description: 'Step the schedule forward this long (30d) and show what goes each day and what exists at the end' },
        { name: 'what_if', in: 'local', type: 'string', placeholder: 'period=n,...', description: 'Forecast with these counts instead of the service\'s (hourly, daily, weekly, monthly), e.g. daily=3,weekly=2' },
        { name: 'check', in: 'local', type: 'boolean', description: 'Exit 16 when the newest backup that passed verify or restore-test is predicted to expire within --within and none newer has passed' },
        { name: 'within', in: 'local', type: 'duration', default: '3d', placeholder: 'duration', description: 'With --check: how soon an expiry of the newest proven backup fails the guard' },
        { name: 'audit', in: 'local', type: 'boolean', description: 'Compare the predictions recorded by earlier runs with what the service expired since' },
        { name: 'now', in: 'local', type: 'datetime', placeholder: 'datetime', description: 'Forecast as of this instant (default: now); the service\'s records after it are left out' },
      ],
      checks: { exactlyOne: ['job_id', 'droplet', 'volume', 'resource', 'all'] },
      output: { kind: 'object', schema: 'retention' },
      handler: 'retention',
      alsoCalls: [
        'GET /jobs',
        'GET /jobs/{job_id}',
        'GET /jobs/{job_id}/backups',
        'GET /cloud_i/droplets',
        'GET /cloud_i/droplets/{droplet_id}',
        'GET /cloud_i/droplets/{droplet_id}/snapshots',
        'GET /cloud_i/volumes',
        'GET /cloud_i/volumes/{volume_id}',
        'GET /cloud_i/volumes/{volume_id}/snapshots',
        'GET /snapshots/resources',
        'GET /snapshots',
      ],
      dryRunInHandler: true,
      extraFormats: ['md'],
      perProfile: { rows: '', columns: ['target.kind', 'target.name', 'keep.length', 'expire.length', 'expires_next.at', 'guard.fails'] },
    },
  ],
};

export const schemas = { retention: outputSchema };

/** retention's flags, checked before a name given for the job is looked up. */
async function checkRetention(input: CommandInput, ctx: Context) {
  const v = input.values;
  const md = ctx.globals.output?.trim().toLowerCase() === 'md';
  if (md && ctx.globals.json) throw new UsageError('--json and -o md ask for two formats: give one');
  const { applyWhatIf } = await import('../retention/keep-rules.js');
  const whatIf = typeof v.what_if === 'string' ? v.what_if : undefined;
  if (whatIf !== undefined) {
    const parsed = applyWhatIf({ hourly: 0, daily: 0, weekly: 0, monthly: 0 }, whatIf);
    if ('error' in parsed) throw new UsageError(`invalid value "${whatIf}" for --what-if: ${parsed.error}`);
  }
  if (v.audit === true && (whatIf !== undefined || v.simulate !== undefined)) throw new UsageError('--audit compares recorded predictions: it takes no --what-if or --simulate');
  return { md, whatIf };
}

const retention = checkedHandler(checkRetention, async (input, ctx, { md, whatIf }) => {
  const v = input.values;
  const now = typeof v.now === 'string' ? Date.parse(v.now) : Date.now();
  if (ctx.globals.dryRun) {
    const { printDryRun } = await import('../cli/dry-run.js');
    const first =
      v.all === true ? { method: 'GET' as const, path: '/jobs', query: { page_size: 100 } }
      : v.droplet !== undefined ? { method: 'GET' as const, path: `/cloud_i/droplets/${encodeURIComponent(String(v.droplet))}` }
      : v.volume !== undefined ? { method: 'GET' as const, path: `/cloud_i/volumes/${encodeURIComponent(String(v.volume))}` }
      : v.resource !== undefined ? { method: 'GET' as const, path: '/snapshots/resources', query: { page_size: 100 } }
      : { method: 'GET' as const, path: `/jobs/${encodeURIComponent(String(v.job_id))}` };
    await printDryRun(ctx, first);
    ctx.io.stderr.write('Then every backup or snapshot of each (GET, all pages). Nothing is changed.\n');
    return { kind: 'empty' };
  }

  const collect = await import('../retention/collect.js');
  const targets =
    v.all === true ? await collect.collectAll(ctx)
    : v.droplet !== undefined ? [await collect.collectMachine(ctx, 'droplet', String(v.droplet))]
    : v.volume !== undefined ? [await collect.collectMachine(ctx, 'volume', String(v.volume))]
    : v.resource !== undefined ? [await collect.collectResource(ctx, String(v.resource))]
    : [await collect.collectJob(ctx, String(v.job_id))];
  if (!targets.length) throw new EmptyResultError('nothing to forecast: no jobs, scheduled droplets, volumes or resources');

  const [{ stateOf }, audit] = await Promise.all([import('../state/open.js'), import('../retention/audit.js')]);
  // The state folder, or the PostgreSQL state the team shares (an unreachable one is exit 3, never the folder).
  const where = await stateOf(ctx);
  if (v.audit === true) return auditResult(ctx, targets, where, md);

  const { buildDocuments } = await import('../retention/forecast.js');
  const [{ readProofs }, { readCleanSource }] = await Promise.all([import('../retention/proven.js'), import('../retention/clean.js')]);
  const proofs = await readProofs(ctx);
  const docs = await buildDocuments(targets, {
    now,
    whatIf,
    simulateMs: typeof v.simulate === 'number' ? v.simulate : undefined,
    proofs,
    cleans: await readCleanSource(ctx),
    guardWithinMs: typeof v.within === 'number' ? v.within : 3 * 86_400_000,
  });
  await audit.recordPredictions(where, docs, where.service).catch((err: unknown) => {
    if (where.url) throw err;
    ctx.warn(`${(err as Error).message}: predictions not recorded`);
  });

  const { render } = await import('../output/index.js');
  if (md) {
    const { forecastMarkdown } = await import('../retention/view.js');
    await render({ kind: 'text', text: forecastMarkdown(docs) }, ctx.output, ctx.io);
  } else if (ctx.output.format === 'table' && !ctx.output.quiet) {
    const [{ forecastView }, { makePalette }] = await Promise.all([import('../retention/view.js'), import('../output/view-table.js')]);
    const text = forecastView(docs, {
      palette: await makePalette(ctx.output.color),
      width: ctx.io.columns,
      noHeaders: ctx.output.noHeaders,
      shortIds: ctx.output.shortIds === true,
    });
    await render({ kind: 'text', text }, ctx.output, ctx.io);
  } else if (ctx.output.quiet) {
    // -q: the ids that expire at the next run.
    const ids = docs.flatMap((d) => d.expire);
    await render({ kind: 'text', text: ids.length ? `${ids.join('\n')}\n` : '' }, ctx.output, ctx.io);
  } else if (ctx.output.format === 'tsv' || ctx.output.format === 'ndjson') {
    // One line per backup, with its job / droplet / volume / resource.
    const { rowColumns } = await import('../retention/view.js');
    const rows = docs.flatMap((d) => d.backups.map((b) => ({ kind: d.target.kind, target: d.target.id, target_name: d.target.name, ...b })));
    const { onePage } = await import('../fleet/calls.js');
    await render({ kind: 'list', pages: onePage(rows), columns: rowColumns, idField: 'id' }, ctx.output, ctx.io);
  } else {
    await render({ kind: 'object', value: docs }, ctx.output, ctx.io);
  }
  if (v.check === true) {
    const { RetentionGuardError } = await import('../retention/errors.js');
    const failing = docs.filter((d) => d.guard?.fails);
    if (failing.length) {
      const { sanitize } = await import('../output/sanitize.js');
      throw new RetentionGuardError(
        `${failing.length} of ${docs.length} ${docs.length === 1 ? 'forecast fails' : 'forecasts fail'} the guard: the newest proven backup or the last clean one is about to expire`,
        failing.map((d) => `  ${sanitize(d.target.name ?? d.target.id)} (${sanitize(d.target.id)}): ${sanitize(d.guard!.message)}`),
      );
    }
  }
  return { kind: 'empty' };
});

/** The predictions are kept under the service: the marks' key (base URL and account). */
async function auditResult(ctx: Context, targets: import('../retention/collect.js').Target[], where: import('../retention/audit.js').PredictionsWhere & { service: string }, md: boolean) {
  const { audit, readPredictions, recordsOf } = await import('../retention/audit.js');
  const service = where.service;
  const records = await readPredictions(where, service);
  const results = targets.map((t) => {
    const target = { kind: t.kind, id: t.id, name: t.name };
    return audit(target, recordsOf(records, { target }, service), t.backups);
  });
  const { render } = await import('../output/index.js');
  const { sanitize } = await import('../output/sanitize.js');
  if (ctx.output.format === 'table' || md) {
    const lines = results.flatMap((r) => [
      `${r.target.kind} ${sanitize(r.target.name ?? r.target.id)}: ${sanitize(r.message)}`,
      ...r.wrong.map((w) => `  ${sanitize(w.id)}: predicted ${w.predicted}; ${w.actual}`),
    ]);
    await render({ kind: 'text', text: `${lines.join('\n')}\n` }, ctx.output, ctx.io);
  } else {
    await render({ kind: 'object', value: results }, ctx.output, ctx.io);
  }
  return { kind: 'empty' as const };
}

export const handlers: Record<string, Handler> = { retention };
