// Backups as code: `export` writes the team's set-up as a YAML file, `plan`
// compares a file with the service, `apply` makes the service match it.
// yaml loads only when one of these commands runs.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod/mini';
import type { Context, Handler, Result } from '../cli/types.js';
import type { ModuleSpec, ParamSpec } from '../resources/types.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { SECTIONS, backupsFileSchema, type Section } from '../ascode/filespec.js';
import type { Change, FieldChange, Plan } from '../ascode/plan.js';
import type { CheckTools, Problem } from '../ascode/parse.js';

const sectionsText = SECTIONS.join(',');
/** What export and plan read (apply too, before it changes anything). */
const READS = ['GET /storage', 'GET /jobs', 'GET /servers', 'GET /cloud_i/droplets', 'GET /cloud_i/volumes', 'GET /snapshots/resources'];

const fileAndPrune: ParamSpec[] = [
  { name: 'file', short: 'f', in: 'local', type: 'string', required: true, placeholder: 'path', description: 'The backups file (YAML), or - for standard input' },
  { name: 'prune', in: 'local', type: 'boolean', description: 'Also delete what the file does not name (in the sections it has)' },
];

export const module: ModuleSpec = {
  name: 'ascode',
  commands: [
    {
      path: ['export'],
      summary: 'Write the backup set-up (storage, jobs, snapshot schedules) as a YAML file',
      description:
        'Storage destinations, jobs (recipe, compute, config, storage with priority, schedules), droplet and volume ' +
        'snapshot schedules, and snapshot resources with backups activated, keyed by name (resources by id). Secrets ' +
        'are never written: each is a ${env:NAME} reference with a comment naming the field. Two resources of one ' +
        'kind with the same name are an error that lists them. Check the file with `backupctl plan -f`, apply it with ' +
        '`backupctl apply -f`; `backupctl schema file` prints its JSON Schema.',
      examples: ['backupctl export -f backups.yaml', 'backupctl export --only storage,jobs > jobs.yaml'],
      params: [
        { name: 'file', short: 'f', in: 'local', type: 'string', placeholder: 'path', description: 'Write to this file (atomically) instead of stdout' },
        { name: 'only', in: 'local', type: 'string', placeholder: 'sections', description: `Only these sections, comma-separated: ${sectionsText}` },
      ],
      output: { kind: 'object', schema: 'file' },
      handler: 'exportSetup',
      alsoCalls: READS,
      dryRunInHandler: true,
    },
    {
      path: ['plan'],
      summary: 'Show what apply would change to make the service match a backups file',
      description:
        'Marks: + create, ~ update in place (field by field, before -> after), -/+ replace (what the service cannot ' +
        'change: a job\'s recipe, compute or config; a storage\'s provider, region, bucket or endpoint), - delete ' +
        '(only with --prune, and only in the sections the file has). Secrets show as (sensitive). Exit 0: no ' +
        'changes; exit 12: changes pending (for a drift check in CI); exit 2: a problem in the file, each with its ' +
        'line and column. Only GET requests are sent.',
      examples: ['backupctl plan -f backups.yaml', 'backupctl plan -f backups.yaml --prune --json', 'backupctl plan -f backups.yaml >/dev/null || echo "drift (exit $?)"'],
      params: [
        ...fileAndPrune,
      ],
      output: { kind: 'object', schema: 'plan' },
      handler: 'planSetup',
      alsoCalls: READS,
      dryRunInHandler: true,
    },
    {
      path: ['apply'],
      summary: 'Make the service match a backups file',
      description:
        'Shows the plan and asks on a terminal; without a terminal it needs --yes. A replace (a job whose recipe, ' +
        'compute or config changed loses the link to its backups) needs --allow-replace. Changes go in dependency ' +
        'order: storage, then jobs, then their schedules and storage, then snapshot schedules, then deletions. It ' +
        'stops at the first failure and says what was done and what was not. Applying the same file again sends ' +
        'nothing.',
      examples: ['backupctl apply -f backups.yaml', 'backupctl apply -f backups.yaml --prune --yes', 'backupctl apply -f backups.yaml --allow-replace'],
      params: [
        ...fileAndPrune,
        { name: 'allow_replace', in: 'local', type: 'boolean', description: 'Allow replacing jobs and storage (a replaced job loses the link to its backups)' },
      ],
      output: { kind: 'object', schema: 'apply' },
      handler: 'applySetup',
      alsoCalls: [
        'POST /storage',
        'DELETE /storage/{storage_id}',
        'POST /jobs',
        'PATCH /jobs/{job_id}',
        'DELETE /jobs/{job_id}',
        'PATCH /jobs/{job_id}/schedules/{schedule_id}',
        'PATCH /jobs/{job_id}/storage',
        'PATCH /cloud_i/droplets/{droplet_id}',
        'PATCH /cloud_i/droplets/{droplet_id}/activate',
        'PATCH /cloud_i/droplets/{droplet_id}/pause',
        'PATCH /cloud_i/droplets/{droplet_id}/resume',
        'PATCH /cloud_i/droplets/{droplet_id}/deactivate',
        'PATCH /cloud_i/volumes/{volume_id}',
        'PATCH /cloud_i/volumes/{volume_id}/activate',
        'PATCH /cloud_i/volumes/{volume_id}/pause',
        'PATCH /cloud_i/volumes/{volume_id}/resume',
        'PATCH /cloud_i/volumes/{volume_id}/deactivate',
        'PATCH /snapshots/resources/{resource_id}/activate',
        'PATCH /snapshots/resources/{resource_id}/deactivate',
      ],
      dryRunInHandler: true,
    },
  ],
};

const changeSchema = z.object({
  action: z.enum(['create', 'update', 'replace', 'delete']),
  kind: z.enum(['storage', 'job', 'droplet', 'volume', 'resource']),
  name: z.string(),
  id: z.nullable(z.union([z.string(), z.number()])),
  note: z.nullable(z.string()),
  fields: z.array(z.object({ field: z.string(), before: z.optional(z.unknown()), after: z.optional(z.unknown()), sensitive: z.optional(z.boolean()) })),
  requests: z.array(z.object({ method: z.string(), path: z.string() })),
});
export const schemas = {
  /** export --json prints the backups file: its JSON Schema is made from filespec, not from zod. */
  file: backupsFileSchema,
  plan: z.object({
    changes: z.array(changeSchema),
    notes: z.array(z.string()),
    summary: z.object({ create: z.int(), update: z.int(), replace: z.int(), delete: z.int() }),
  }),
  apply: z.object({ applied: z.array(changeSchema), not_applied: z.array(changeSchema) }),
};

/** plan: changes are pending (a drift check in CI). Prints nothing more: the plan said it. */
export class ChangesPendingError extends CliError {
  constructor() {
    super('', ExitCode.changesPending);
  }
}

function parseSections(text: string | undefined): Section[] {
  if (text === undefined) return [...SECTIONS];
  const names = text.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
  if (bad.length || !names.length) throw new UsageError(`invalid value "${text}" for --only: ${bad.length ? `unknown section ${bad.map((b) => `"${b}"`).join(', ')}` : 'no section given'}`, [`Allowed: ${sectionsText}.`]);
  return SECTIONS.filter((s) => names.includes(s));
}

const exportSetup: Handler = async (input, ctx) => {
  const sections = parseSections(input.values.only as string | undefined);
  const target = input.values.file as string | undefined;
  if (target === '') throw new UsageError('invalid value "" for --file: give a path');
  if (ctx.globals.dryRun) return dryRunNote(ctx, 'export reads the set-up with GET requests only; --dry-run sends nothing.');
  const [{ readState }, { exportState, toYaml }] = await Promise.all([import('../ascode/state.js'), import('../ascode/export.js')]);
  const client = await ctx.client();
  const spinner = ctx.spinner('Reading the set-up');
  const state = await readState(client, sections, ctx.signal).finally(() => spinner.stop());
  const { file, comments, problems } = exportState(state, sections);
  if (problems.length) {
    throw new UsageError(
      'names must be unique to be exported: rename these first',
      problems.map((p) => `  ${p.kind} "${p.name}": ids ${p.ids.join(', ')}`),
    );
  }
  const text = ctx.globals.json || ctx.output.format === 'json' ? `${JSON.stringify(file, null, 2)}\n` : toYaml(file, comments);
  if (target !== undefined && target !== '-') {
    const { writeFileAtomic } = await import('../status/output-file.js');
    await writeFileAtomic(target, text);
    ctx.warn(`Wrote ${target}.`);
    return { kind: 'empty' };
  }
  ctx.io.stdout.write(text);
  return { kind: 'empty' };
};

function dryRunNote(ctx: Context, text: string): Result {
  ctx.io.stderr.write(`${text}\n`);
  return { kind: 'empty' };
}

async function readFileArg(ctx: Context, file: string): Promise<{ text: string; name: string; baseDir: string }> {
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(Buffer.from(c as Buffer));
    return { text: Buffer.concat(chunks).toString('utf8'), name: '<stdin>', baseDir: process.cwd() };
  }
  try {
    return { text: await readFile(file, 'utf8'), name: file, baseDir: path.dirname(path.resolve(file)) };
  } catch (e) {
    throw new UsageError(`cannot read --file ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
}

function problemsError(name: string, problems: Problem[]): UsageError {
  const n = problems.length;
  return new UsageError(
    `${name}: ${n} problem${n > 1 ? 's' : ''}; nothing was changed`,
    problems.map((p) => `  ${name}:${p.line}:${p.col}: ${p.at ? `${p.at}: ` : ''}${p.message}`),
  );
}

/** The CLI's own checks of cron expressions and time zones (src/cli/values.ts), as the flags get them. */
async function cronChecks(): Promise<CheckTools> {
  const { cronProblem, canonicalTimezone } = await import('../cli/values.js');
  return {
    cronError: cronProblem,
    timezoneError: (zone) => (canonicalTimezone(zone) === undefined ? `"${zone}" is not a time zone (an IANA name such as UTC or Europe/Paris)` : undefined),
  };
}

interface Planned {
  plan: Plan;
  baseDir: string;
}

/** Reads and checks the file, reads the service, and plans; every problem is exit 2 before anything changes. */
async function planFor(ctx: Context, fileArg: string, prune: boolean): Promise<Planned> {
  const [{ parseBackupsFile }, { readState }, { makePlan, sectionsOf }] = await Promise.all([
    import('../ascode/parse.js'),
    import('../ascode/state.js'),
    import('../ascode/plan.js'),
  ]);
  const { text, name, baseDir } = await readFileArg(ctx, fileArg);
  const parsed = await parseBackupsFile(text, name, await cronChecks(), baseDir, ctx.env);
  if (!parsed.ok) throw problemsError(name, parsed.problems);
  const client = await ctx.client();
  const spinner = ctx.spinner('Reading the set-up');
  const state = await readState(client, sectionsOf(parsed.parsed.file), ctx.signal).finally(() => spinner.stop());
  const { plan, problems } = makePlan(parsed.parsed, state, { prune });
  if (problems.length) throw problemsError(name, problems.sort((a, b) => a.line - b.line || a.col - b.col));
  return { plan, baseDir };
}

// ---------------------------------------------------------------------------
// Showing a plan

const show = (v: unknown) => (v === undefined || v === null ? '(none)' : typeof v === 'string' ? JSON.stringify(v) : String(v));

function fieldLine(f: FieldChange): string {
  if (f.sensitive) return `${f.field}: (sensitive)`;
  if (f.before === undefined) return `${f.field}: ${show(f.after)}`;
  return `${f.field}: ${show(f.before)} -> ${show(f.after)}`;
}

export async function planText(plan: Plan, color: boolean): Promise<string> {
  const { summary, MARKS } = await import('../ascode/plan.js');
  const { sanitize } = await import('../output/format.js');
  const paint = color ? (await import('chalk')).default : undefined;
  const markColor = (c: Change) => {
    const m = MARKS[c.action].padEnd(3);
    if (!paint) return m;
    return c.action === 'create' ? paint.green(m) : c.action === 'update' ? paint.yellow(m) : paint.red(m);
  };
  if (!plan.changes.length) return `No changes: the service matches the file.\n${plan.notes.map((n) => `Note: ${n}\n`).join('')}`;
  const s = summary(plan);
  const lines = [`Plan: ${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete.`, ''];
  for (const c of plan.changes) {
    lines.push(`${markColor(c)} ${c.kind} ${sanitize(JSON.stringify(c.name))}${c.id !== undefined ? ` (${sanitize(String(c.id))})` : ''}${c.note ? `: ${c.note}` : ''}`);
    for (const f of c.fields) lines.push(`      ${sanitize(fieldLine(f))}`);
  }
  for (const n of plan.notes) lines.push('', `Note: ${n}`);
  return `${lines.join('\n')}\n`;
}

/** The plan as JSON: what `schema plan` describes. */
export function planJson(plan: Plan) {
  return {
    changes: plan.changes.map((c) => ({
      action: c.action,
      kind: c.kind,
      name: c.name,
      id: c.id ?? null,
      note: c.note ?? null,
      fields: c.fields.map((f) => (f.sensitive ? { field: f.field, sensitive: true } : { field: f.field, before: f.before ?? null, after: f.after ?? null })),
      requests: c.steps.map((s) => ({ method: s.method, path: `/v1${s.path}` })),
    })),
    notes: plan.notes,
  };
}

const planSetup: Handler = async (input, ctx) => {
  const { plan } = await planFor(ctx, input.values.file as string, input.values.prune === true);
  const json = ctx.globals.json || ctx.output.format === 'json' || ctx.output.format === 'ndjson';
  if (json) ctx.io.stdout.write(`${JSON.stringify({ ...planJson(plan), summary: (await import('../ascode/plan.js')).summary(plan) }, null, ctx.output.pretty ? 2 : undefined)}\n`);
  else ctx.io.stdout.write(await planText(plan, ctx.output.color));
  if (plan.changes.length) throw new ChangesPendingError();
  return { kind: 'empty' };
};

const applySetup: Handler = async (input, ctx) => {
  const prune = input.values.prune === true;
  const { plan, baseDir } = await planFor(ctx, input.values.file as string, prune);
  const json = ctx.globals.json || ctx.output.format === 'json' || ctx.output.format === 'ndjson';
  const text = await planText(plan, ctx.output.color);
  if (!plan.changes.length) {
    if (json) ctx.io.stdout.write(`${JSON.stringify({ applied: [], not_applied: [] })}\n`);
    else ctx.io.stdout.write(text);
    return { kind: 'empty' };
  }
  const replaces = plan.changes.filter((c) => c.action === 'replace');
  if (replaces.length && input.values.allow_replace !== true) {
    ctx.io.stderr.write(text);
    throw new UsageError(
      `the plan replaces ${replaces.map((c) => `${c.kind} "${c.name}"`).join(', ')}: give --allow-replace to allow it; nothing was changed`,
      ['A replaced job is deleted and created again: it loses the link to its backups.'],
    );
  }
  ctx.io.stderr.write(text);
  if (ctx.globals.dryRun) return dryRunNote(ctx, 'Dry run: nothing was changed.');
  if (!(await ctx.confirm('Apply these changes?'))) throw new UsageError('Cancelled; nothing was changed.');

  const { resolveSecret } = await import('../ascode/parse.js');
  const client = await ctx.client();
  const ids = { storage: new Map<string, number>() };
  const secret = (ref: string) => resolveSecret(ref, baseDir, ctx.env);
  const done: Change[] = [];
  let current: Change | undefined;
  try {
    for (const change of plan.changes) {
      current = change;
      for (const step of change.steps) {
        const req = await step.request(ids, secret);
        const res = await client.request(req, { signal: ctx.signal });
        step.learn?.(ids, res.body);
      }
      done.push(change);
      ctx.note(`${(await import('../ascode/plan.js')).MARKS[change.action]} ${change.kind} ${JSON.stringify(change.name)}: done`);
    }
  } catch (err) {
    const left = plan.changes.filter((c) => !done.includes(c));
    const lines = [
      `Stopped at ${current!.kind} "${current!.name}". Done: ${done.length ? done.map((c) => `${c.kind} "${c.name}"`).join(', ') : 'nothing'}.`,
      `Not done: ${left.map((c) => `${c.kind} "${c.name}"`).join(', ')}.`,
      'Run `backupctl plan -f <file>` to see where the service stands now.',
    ];
    if (err instanceof CliError) throw new CliError(err.message, err.exitCode, [...err.details, ...lines]);
    throw err;
  }
  const { summary } = await import('../ascode/plan.js');
  const s = summary(plan);
  if (json) ctx.io.stdout.write(`${JSON.stringify({ applied: planJson(plan).changes, not_applied: [] }, null, ctx.output.pretty ? 2 : undefined)}\n`);
  else ctx.io.stdout.write(`Applied: ${s.create} created, ${s.update} updated, ${s.replace} replaced, ${s.delete} deleted.\n`);
  return { kind: 'empty' };
};

export const handlers: Record<string, Handler> = { exportSetup, planSetup, applySetup };
