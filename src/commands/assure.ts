// `backupctl assure run` and `backupctl assure status` (issue 44 §2, §4; docs/assurance.md): the
// assurance plans of the backups file (src/ascode/assurance.ts) acted on. run runs the tests that are
// due (src/ascode/coverage.ts), each through the verify or restore-test command itself (the same code,
// the same per-backup mark); with a PostgreSQL state, runners on many machines split the work by
// leases (src/state/pg-leases.ts); --shard i/n splits it without one. status shows how each job's plan
// is met.
import { randomBytes, randomInt } from 'node:crypto';
import { hostname } from 'node:os';
import { Writable, Readable } from 'node:stream';
import * as z from 'zod/mini';
import type { Column, Context, Handler, IO, ProfileView, Result } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import type { JobPlan } from '../ascode/assurance.js';
import type { CoverageState, DueTest } from '../ascode/coverage.js';
import { parseDuration } from '../util/time.js';
import { cronChecks, printJson, problemsError, readFileArg } from './ascode.js';

const fileParam = { name: 'file', short: 'f', in: 'local', type: 'string', required: true, placeholder: 'path', description: 'The backups file with the assurance section' } as const;

export const module: ModuleSpec = {
  name: 'assure',
  commands: [
    {
      path: ['assure', 'run'],
      summary: 'Run the verify and restore tests the assurance plans say are due',
      description:
        'Reads the assurance section of the backups file and the marks of the state, and runs every test that is due: ' +
        'never tested first, then the oldest proof, then the ones that failed. Each runs as `backupctl verify` or ' +
        '`backupctl restore-test` of the chosen backup (the latest completed, or one at random within the plan\'s window) ' +
        'and leaves its per-backup mark. A restore test checks the plan\'s validations (restore-test --assert, by the ' +
        'restore\'s own login) and its RTO. --concurrency tests at once; --max-time stops starting tests after that long and ' +
        'stops the ones running; --shard i/n runs only the share i of n (any orchestrator\'s index). With a PostgreSQL state ' +
        '(state_url, BACKUPCTL_STATE_URL) runners on many machines claim tests by lease: a runner that dies loses its lease ' +
        'after --lease and another takes the test; no test runs twice within its window. Exit 0: every test passed; 9: a ' +
        'test failed; 2: a bad plan. --dry-run lists the due tests and runs none.',
      examples: ['backupctl assure run -f backups.yaml', 'backupctl assure run -f backups.yaml --concurrency 4 --max-time 2h --shard 2/5'],
      params: [
        fileParam,
        { name: 'concurrency', in: 'local', type: 'integer', min: 1, max: 32, default: 2, placeholder: 'n', description: 'Tests at once' },
        { name: 'max_time', in: 'local', type: 'string', placeholder: 'duration', description: 'Start no test after this long, and stop the ones running (e.g. 2h)' },
        { name: 'shard', in: 'local', type: 'string', placeholder: 'i/n', description: 'Run only the share i of n of the due tests (1-based; a hash of job and kind)' },
        { name: 'lease', in: 'local', type: 'string', placeholder: 'duration', description: 'With a PostgreSQL state: how long a claimed test is held without news of its runner (default 10m)' },
      ],
      output: { kind: 'object', schema: 'assureRun' },
      handler: 'run',
      alsoCalls: ['GET /jobs', 'GET /jobs/{job_id}/backups', 'POST /backups/{backup_id}/download'],
      dryRunInHandler: true,
    },
    {
      path: ['assure', 'status'],
      summary: 'How each job meets its assurance plan: a passing test within its window, RTO met',
      description:
        'One row per job and kind of test its plan asks for: covered (a passing attempt within the window, the RTO met), ' +
        'slow (passed within the window, over the RTO), due (none within the window), failing (the latest attempt failed), ' +
        'from the marks of the state (shared by the team with a PostgreSQL state). --check exits 9 when a test is not ' +
        'covered; -o prometheus prints metrics per job. --all-profiles (or --profiles a,b) judges the plans for every profile\'s ' +
        'jobs and marks: one table with a profile column (--check: exit 9 when a profile has a test not covered).',
      examples: [
        'backupctl assure status -f backups.yaml',
        'backupctl assure status -f backups.yaml --check -q',
        'backupctl assure status -f backups.yaml -o prometheus',
        'backupctl assure status -f backups.yaml --all-profiles',
      ],
      params: [fileParam, { name: 'check', in: 'local', type: 'boolean', description: 'Exit 9 when a test of a plan is due, failing or slow' }],
      output: { kind: 'list', schema: 'assureCoverage', columns: 'assureCoverage', idField: 'job' },
      handler: 'status',
      alsoCalls: ['GET /jobs'],
      extraFormats: ['prometheus'],
      perProfile: { rows: '', columns: ['job', 'kind', 'window', 'state', 'at'] },
    },
  ],
};

const coverageSchema = z.object({
  job: z.string(),
  job_id: z.string(),
  selector: z.string(),
  kind: z.enum(['verify', 'restore_test']),
  window: z.string(),
  // The states of ascode/coverage.ts (a type-only import: that module loads when the command runs).
  state: z.enum(['covered', 'slow', 'due', 'failing', 'unchecked', 'not-validated'] as const satisfies readonly CoverageState[]),
  backup_id: z.nullable(z.string()),
  at: z.nullable(z.string()),
  result: z.nullable(z.string()),
  total_seconds: z.nullable(z.number()),
  rto_met: z.nullable(z.boolean()),
});

const resultSchema = z.object({
  job: z.string(),
  job_id: z.string(),
  kind: z.enum(['verify', 'restore_test']),
  backup_id: z.nullable(z.string()),
  state: z.string(),
  exit_code: z.int(),
  reason: z.nullable(z.string()),
  total_seconds: z.nullable(z.number()),
  rto_met: z.nullable(z.boolean()),
  /** How long the test itself ran (the verify or restore-test, backup chosen): the rest of the run is scheduling and state. */
  seconds: z.number(),
});

export const schemas = {
  assureCoverage: coverageSchema,
  assureRun: z.object({
    runner: z.string(),
    due: z.int(),
    results: z.array(resultSchema),
    /** Due tests another runner held or had done (a PostgreSQL state), or that --max-time left. */
    not_run: z.array(z.object({ job: z.string(), kind: z.enum(['verify', 'restore_test']), why: z.string() })),
  }),
};

const COVERAGE_COLUMNS: Column[] = [
  { key: 'job', header: 'Job' },
  { key: 'kind', header: 'Test', get: (r) => (r.kind === 'restore_test' ? 'restore-test' : 'verify') },
  { key: 'window', header: 'Every' },
  { key: 'state', header: 'State' },
  { key: 'at', header: 'Last proof', get: (r) => (r.at ? `${r.at} (${r.result})` : 'never') },
  { key: 'rto_met', header: 'RTO', get: (r) => (r.rto_met === null ? '' : r.rto_met ? `met (${r.total_seconds}s)` : `missed (${r.total_seconds}s)`) },
];
export const columns = { assureCoverage: COVERAGE_COLUMNS };

/** The plans of the file for the service's jobs; a bad plan is exit 2 before anything runs. */
export async function loadPlans(ctx: Context, file: string): Promise<JobPlan[]> {
  const [{ parseBackupsFile }, { readState }, { resolveAssurance }] = await Promise.all([import('../ascode/parse.js'), import('../ascode/state.js'), import('../ascode/assurance.js')]);
  const { text, name } = await readFileArg(ctx, file);
  const parsed = await parseBackupsFile(text, name, await cronChecks());
  if (!parsed.ok) throw problemsError(name, parsed.problems);
  if (!parsed.parsed.file.assurance) throw new UsageError(`${name} has no assurance section: nothing to run (docs/assurance.md)`);
  const jobs = (await readState(await ctx.client(), ['jobs'], ctx.signal)).jobs ?? [];
  const r = resolveAssurance(parsed.parsed, jobs);
  if (r.problems.length) throw problemsError(name, r.problems);
  return r.plans;
}

function sink(): { stream: Writable; text(): string } {
  const chunks: Buffer[] = [];
  return {
    stream: new Writable({
      write(c: Buffer | string, _e, done) {
        chunks.push(Buffer.from(c));
        done();
      },
    }),
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}

/** The backup a test reads: the newest completed, or one at random within the plan's window. */
async function chooseBackup(ctx: Context, t: DueTest, now: number): Promise<{ id: string; created_at: string | null } | null> {
  const client = await ctx.client();
  if (t.plan.backup === 'latest') {
    const { newestBackup } = await import('../backups/newest.js');
    const b = await newestBackup(client, t.job_id, { status: 'completed', signal: ctx.signal });
    return b ? { id: String(b.id), created_at: b.created_at ?? null } : null;
  }
  const { backupsSince } = await import('../backups/newest.js');
  const pool = (await backupsSince(client, t.job_id, now - t.plan.withinMs, ctx.signal)).filter((b) => b.status === 'completed');
  if (!pool.length) return null;
  const b = pool[randomInt(pool.length)]!;
  return { id: String(b.id), created_at: b.created_at ?? null };
}

/** Runs one test through the verify or restore-test command itself; its exit code and message. */
async function runTest(ctx: Context, t: DueTest, backupId: string, signal: AbortSignal): Promise<{ code: number; message: string | null }> {
  const [{ startupSource }, { assertionsOf }] = await Promise.all([import('../cli/startup.js'), import('../ascode/coverage.js')]);
  if (!ctx.runCommand) throw new Error('assure run needs the command runner');
  const top = t.kind === 'verify' ? 'verify' : 'restore-test';
  const spec = startupSource().commandsOf(top).find((c) => c.path.length === 1 && c.path[0] === top)!;
  const options: Record<string, unknown> = {};
  if (t.kind === 'restore_test') {
    const engine = t.plan.engine;
    if (engine && ['auto', 'server', 'local', 'embedded'].includes(engine)) options.engine = engine;
    else if (engine) {
      const m = /^\$\{env:([^}]+)\}$/.exec(engine);
      options.into = m ? (ctx.env[m[1]!] ?? '') : engine;
    }
    const asserts = assertionsOf(t.plan);
    if (asserts.length) options.assert = asserts;
  }
  const out = sink();
  const err = sink();
  const io: IO = { stdout: out.stream, stderr: err.stream, stdin: Readable.from([]), stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: Infinity };
  const globals = { ...ctx.globals, quiet: true, json: false, output: undefined, jq: undefined, dryRun: false };
  try {
    await ctx.runCommand({ spec, positionals: [t.job_id, backupId], options, globals, io, signal });
    return { code: 0, message: null };
  } catch (e) {
    const code = e instanceof CliError ? e.exitCode : ExitCode.refused;
    return { code, message: (e as Error).message || err.text().trim().split('\n')[0] || null };
  }
}

function parseMs(text: unknown, flag: string, fallback: number | null): number | null {
  if (text === undefined || text === null || text === '') return fallback;
  const ms = /^\s*\d/.test(String(text)) ? parseDuration(String(text)) : undefined;
  if (ms === undefined || ms <= 0) throw new UsageError(`${flag} ${JSON.stringify(text)}: write a duration such as 30m, 2h or 1d`);
  return ms;
}

const run: Handler = async (input, ctx) => {
  const v = input.values;
  const [coverage, { openMarks, serviceOf }] = await Promise.all([import('../ascode/coverage.js'), import('../fleet/marks.js')]);
  const maxMs = parseMs(v.max_time, '--max-time', null);
  const leaseMs = parseMs(v.lease, '--lease', 600_000)!;
  const shard = coverage.parseShard(v.shard as string | undefined);
  if (shard instanceof Error) throw new UsageError(shard.message);
  const concurrency = Number(v.concurrency ?? 2);
  const started = Date.now();
  const plans = await loadPlans(ctx, String(v.file));
  const settings = await ctx.settings();
  const service = await serviceOf(ctx);
  const marks = await openMarks(ctx);
  let due = coverage.dueTests(plans, (id) => marks.ofJob(id), started);
  if (shard) due = due.filter((t) => coverage.shardOf(t.job_id, t.kind, shard.count) === shard.index - 1);
  const runner = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const label = (t: DueTest) => `${t.kind === 'verify' ? 'verify' : 'restore-test'} ${JSON.stringify(t.job)}`;
  if (ctx.globals.dryRun) {
    for (const t of due) ctx.io.stdout.write(`${label(t)}: due (${t.order === 0 ? 'never tested' : t.order === 1 ? `last proof ${t.last!.mark.at}` : `last attempt ${t.last!.mark.state}`})\n`);
    ctx.io.stderr.write(`Dry run: ${due.length} test${due.length === 1 ? '' : 's'} due; none was run.\n`);
    return { kind: 'empty' };
  }
  const leases = settings.stateUrl ? await (await import('../state/pg-leases.js')).Leases.open(settings.stateUrl, service, runner, leaseMs, settings.timeoutMs) : null;
  const { provenWithin } = await import('../state/pg-leases.js');
  const stop = new AbortController();
  const onAbort = () => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  const deadline = maxMs === null ? null : setTimeout(() => stop.abort(new Error('--max-time')), Math.max(0, started + maxMs - Date.now()));
  const heartbeat = leases ? setInterval(() => void leases.renew().catch(() => {}), Math.max(250, Math.floor(leaseMs / 3))) : null;
  const results: Array<z.infer<typeof resultSchema>> = [];
  const notRun: Array<{ job: string; kind: DueTest['kind']; why: string }> = [];
  let queue = [...due];
  let waiting: DueTest[] = [];
  const worker = async () => {
    for (;;) {
      if (stop.signal.aborted) return;
      const t = queue.shift();
      if (!t) return;
      if (leases) {
        const claim = await leases.claim(t, t.windowMs, (c) => provenWithin(c, service, t, t.windowMs, new Date().toISOString()));
        if (claim === 'held') {
          waiting.push(t);
          continue;
        }
        if (claim === 'done') {
          notRun.push({ job: t.job, kind: t.kind, why: 'done by another runner within its window' });
          continue;
        }
      }
      let backup: { id: string; created_at: string | null } | null = null;
      let outcome: { code: number; message: string | null };
      const began = performance.now();
      try {
        backup = await chooseBackup(ctx, t, Date.now());
        outcome = backup ? await runTest(ctx, t, backup.id, stop.signal) : { code: ExitCode.empty, message: 'no completed backup to test' };
      } catch (e) {
        outcome = { code: e instanceof CliError ? e.exitCode : ExitCode.refused, message: (e as Error).message };
      }
      const testSeconds = Math.round(performance.now() - began) / 1000;
      if (stop.signal.aborted) {
        await leases?.finish(t, false);
        notRun.push({ job: t.job, kind: t.kind, why: ctx.signal.aborted ? 'interrupted' : 'stopped by --max-time' });
        return;
      }
      const after = backup ? (await openMarks(ctx)).backup(backup.id)?.[t.kind]?.last : undefined;
      const state = after && outcome.code !== ExitCode.empty ? after.state : 'not-tested';
      const seconds = after?.total_seconds ?? null;
      // Measured against the budget when restored; a failed test that measured no time did not miss it (it failed).
      const rtoMet = t.kind === 'restore_test' && t.plan.rtoMs !== null && state !== 'not-tested' && (state !== 'failed' || seconds !== null) ? seconds !== null && seconds * 1000 <= t.plan.rtoMs : null;
      await leases?.finish(t, state !== 'not-tested');
      results.push({ job: t.job, job_id: t.job_id, kind: t.kind, backup_id: backup?.id ?? null, state, exit_code: outcome.code, reason: after?.reason ?? outcome.message, total_seconds: seconds, rto_met: rtoMet, seconds: testSeconds });
      ctx.note(`assure: ${label(t)} backup ${backup?.id ?? '(none)'}: ${state}${rtoMet === false ? ' (RTO missed)' : ''} by ${runner}`);
    }
  };
  try {
    for (;;) {
      await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, queue.length)) }, worker));
      if (stop.signal.aborted || !waiting.length) break;
      // Tests another runner holds: taken over when its lease runs out (a runner that died), else done by it.
      await new Promise((r) => setTimeout(r, Math.min(1000, Math.max(100, Math.floor(leaseMs / 4)))));
      queue = waiting;
      waiting = [];
    }
  } finally {
    if (deadline) clearTimeout(deadline);
    if (heartbeat) clearInterval(heartbeat);
    ctx.signal.removeEventListener('abort', onAbort);
    await leases?.close();
  }
  for (const t of [...queue, ...waiting]) notRun.push({ job: t.job, kind: t.kind, why: ctx.signal.aborted ? 'interrupted' : 'stopped by --max-time' });
  if (ctx.signal.aborted) throw ctx.signal.reason;
  const doc = { runner, due: due.length, results, not_run: notRun };
  const json = ctx.globals.json || ctx.output.format === 'json' || ctx.output.format === 'ndjson';
  if (json) await printJson(ctx, doc);
  else {
    for (const r of results) ctx.io.stdout.write(`${r.kind === 'verify' ? 'verify' : 'restore-test'}\t${r.job}\t${r.backup_id ?? '-'}\t${r.state}${r.rto_met === false ? '\tRTO missed' : ''}\n`);
    ctx.io.stderr.write(`${results.length} of ${due.length} due test${due.length === 1 ? '' : 's'} run${notRun.length ? `; ${notRun.length} not run here` : ''}.\n`);
  }
  const failed = results.filter((r) => r.state === 'failed' || r.rto_met === false);
  if (failed.length) throw new CliError(`${failed.length} test${failed.length === 1 ? '' : 's'} failed: ${failed.map((r) => `${r.kind === 'verify' ? 'verify' : 'restore-test'} "${r.job}"`).join(', ')}`, ExitCode.empty);
  return { kind: 'empty' };
};

const status: Handler = async (input, ctx) => {
  const [coverage, { openMarks }] = await Promise.all([import('../ascode/coverage.js'), import('../fleet/marks.js')]);
  const plans = await loadPlans(ctx, String(input.values.file));
  const marks = await openMarks(ctx);
  const rows = coverage.coverage(plans, (id) => marks.ofJob(id), Date.now());
  const bad = rows.filter((r) => r.state !== 'covered');
  if (ctx.globals.output?.trim().toLowerCase() === 'prometheus') {
    const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
    const lines = [
      '# HELP backupctl_assurance_covered 1 when the job\'s test passed within its plan\'s window (and met its RTO), else 0.',
      '# TYPE backupctl_assurance_covered gauge',
      ...rows.map((r) => `backupctl_assurance_covered{job="${esc(r.job)}",test="${r.kind}"} ${r.state === 'covered' ? 1 : 0}`),
      '# HELP backupctl_assurance_last_proof_timestamp_seconds When the latest conclusive test of the job ended (0: never).',
      '# TYPE backupctl_assurance_last_proof_timestamp_seconds gauge',
      ...rows.map((r) => `backupctl_assurance_last_proof_timestamp_seconds{job="${esc(r.job)}",test="${r.kind}"} ${r.at ? Math.floor(Date.parse(r.at) / 1000) : 0}`),
    ];
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
    if (input.values.check === true && bad.length) throw new CliError(`${bad.length} test${bad.length === 1 ? '' : 's'} of the plans not covered`, ExitCode.empty);
    return { kind: 'empty' };
  }
  if (input.values.check === true && bad.length) {
    if (!ctx.globals.quiet) {
      const json = ctx.globals.json || ctx.output.format === 'json' || ctx.output.format === 'ndjson';
      if (json) await printJson(ctx, rows);
      else for (const r of rows) ctx.io.stdout.write(`${r.job}\t${r.kind === 'verify' ? 'verify' : 'restore-test'}\t${r.window}\t${r.state}\t${r.at ?? 'never'}\n`);
    }
    throw new CliError(`${bad.length} test${bad.length === 1 ? '' : 's'} of the plans not covered: ${bad.map((r) => `${r.kind === 'verify' ? 'verify' : 'restore-test'} "${r.job}" ${r.state}`).join(', ')}`, ExitCode.empty);
  }
  const result: Result = {
    kind: 'list',
    pages: (async function* () {
      yield rows;
    })(),
    columns: COVERAGE_COLUMNS,
    idField: 'job',
  };
  return result;
};

export const handlers: Record<string, Handler> = { run, status };

/**
 * --all-profiles / --profiles a,b: the single-profile view of every profile's rows with a profile
 * column (table, tsv; -q the jobs). The plans are judged per profile (each its jobs, marks and state);
 * a profile that could not be read is said under the table. --json stays `{"profiles": [...]}`.
 */
export const profileViews: Record<string, ProfileView> = {
  status: async (outcomes, { io }) => {
    const [{ tagged, profilesNotRead, notReadLines }, { sanitize }] = await Promise.all([import('../fleet/profiles.js'), import('../output/index.js')]);
    const rows = outcomes.flatMap((o) => (Array.isArray(o.result) ? tagged(o.result as Array<Record<string, unknown>>, o.profile) : []));
    const notRead = notReadLines(profilesNotRead(outcomes, Array.isArray), sanitize);
    // On stderr: stdout carries the rows only (a profile that failed is also named in the exit's message).
    if (notRead) io.stderr.write(notRead);
    return {
      kind: 'list',
      pages: (async function* () {
        yield rows;
      })(),
      columns: [{ key: 'profile', header: 'Profile' }, ...COVERAGE_COLUMNS],
      idField: 'job',
    };
  },
};
