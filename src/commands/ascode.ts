// Backups as code: `export` writes the team's set-up as a YAML file, `plan`
// compares a file with the service, `apply` makes the service match it.
// yaml loads only when one of these commands runs.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod/mini';
import type { Context, Handler, Result } from '../contract/context.js';
import type { ModuleSpec, ParamSpec } from '../contract/spec.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { SECTIONS, backupsFileSchema, type Section } from '../ascode/filespec.js';
import type { Change, FieldChange, Plan } from '../ascode/plan.js';
import type { CheckTools, Problem } from '../ascode/parse.js';
import type { ResolvedReference } from '../ascode/references.js';

const sectionsText = SECTIONS.join(',');
/** What export and plan read (apply too, before it changes anything). */
const READS = ['GET /storage', 'GET /jobs', 'GET /servers', 'GET /cloud_i/droplets', 'GET /cloud_i/volumes', 'GET /snapshots/resources'];

const fileAndPrune: ParamSpec[] = [
  { name: 'file', short: 'f', in: 'local', type: 'string', required: true, placeholder: 'path', description: 'The backups file (YAML), or - for standard input' },
  { name: 'prune', in: 'local', type: 'boolean', description: 'Also delete what the file does not name (in the sections it has)' },
  {
    name: 'allow_outside_files',
    in: 'local',
    type: 'boolean',
    description: 'Let ${file:PATH} read files outside the backups file\'s folder (refused without it, symbolic links included)',
  },
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
        'are never written: each is a ${env:NAME} reference with a comment naming the field (a key that names a ' +
        'secret, a value the service masks or whose type is password), and the file is written at mode 0600. ' +
        'Recipe ids known to backupctl (learnt from what apply created) are written as recipe_id. Two resources of one ' +
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
        '(only with --prune, and only in the sections the file has). Secrets show as (sensitive); the plan lists ' +
        'the secrets apply would send (only for what it creates or replaces) and every file it would read, so a ' +
        'drift check needs no secret set. Exit 0: no ' +
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
        { name: 'allow_expiry', in: 'local', type: 'boolean', description: 'Allow, without a terminal, a lower retention count that makes the next run expire backups or snapshots' },
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
    /** The secret references apply sends (creates and replaces only): never a value. */
    secrets: z.array(
      z.object({ reference: z.string(), kind: z.string(), name: z.string(), field: z.string(), available: z.boolean(), file: z.nullable(z.string()) }),
    ),
    /** Every file apply reads (the ${file:} references it sends), absolute. */
    files: z.array(z.string()),
    /** Per lowered retention count: what the next run expires that it keeps today (docs/retention.md). */
    expiry: z.array(
      z.object({
        target: z.enum(['job', 'droplet', 'volume']),
        id: z.string(),
        expire: z.int(),
        oldest: z.nullable(z.object({ id: z.string(), created_at: z.string() })),
        newest: z.nullable(z.object({ id: z.string(), created_at: z.string() })),
        next_run: z.nullable(z.string()),
        /** The newest backup proven by verify or restore-test, when the change expires it. */
        proven: z.nullable(z.object({ id: z.string(), created_at: z.string(), by: z.enum(['verify', 'restore-test']) })),
        /** The last clean backup before anomalous ones (backupctl anomalies), when the change expires it. */
        clean: z.nullable(z.object({ id: z.string(), created_at: z.string() })),
      }),
    ),
    summary: z.object({ create: z.int(), update: z.int(), replace: z.int(), delete: z.int() }),
    /** The assurance plan of each job (docs/assurance.md): local policy, never sent. */
    assurance: z.array(
      z.object({
        job: z.string(),
        job_id: z.string(),
        selector: z.string(),
        verify_every: z.nullable(z.string()),
        restore_test_every: z.nullable(z.string()),
        backup: z.enum(['latest', 'random']),
        within: z.nullable(z.string()),
        engine: z.nullable(z.string()),
        rto: z.nullable(z.string()),
        validations: z.int(),
      }),
    ),
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
  // A file that cannot be written is refused before the set-up is read (exit 2, nothing sent).
  if (target !== undefined && target !== '-') await (await import('../output/output-file.js')).checkOutputFile(target, '--file');
  if (ctx.globals.dryRun) return dryRunNote(ctx, 'export reads the set-up with GET requests only; --dry-run sends nothing.');
  const [{ readState }, { exportState, toYaml }] = await Promise.all([import('../ascode/state.js'), import('../ascode/export.js')]);
  const client = await ctx.client();
  const spinner = ctx.spinner('Reading the set-up');
  const state = await readState(client, sections, ctx.signal).finally(() => spinner.stop());
  const [{ knownRecipes }, { stateDir }] = await Promise.all([import('../ascode/recipes.js'), import('../config/paths.js')]);
  const recipes = await knownRecipes(stateDir(ctx.env), (await ctx.settings()).baseUrl, state.jobs ?? []);
  const { file, comments, problems } = exportState(state, sections, recipes);
  if (problems.length) {
    throw new UsageError(
      'names must be unique to be exported: rename these first',
      problems.map((p) => `  ${p.kind} "${p.name}": ids ${p.ids.join(', ')}`),
    );
  }
  if (ctx.output.jq !== undefined && (target === undefined || target === '-')) {
    await printJson(ctx, file);
    return { kind: 'empty' };
  }
  const text = ctx.globals.json || ctx.output.format === 'json' ? `${JSON.stringify(file, null, 2)}\n` : toYaml(file, comments);
  if (target !== undefined && target !== '-') {
    const { writeFileAtomic } = await import('../output/output-file.js');
    // Private: it names every secret's variable, and a user may paste a value in.
    await writeFileAtomic(target, text, { mode: 0o600, failure: (err) => new UsageError(`cannot write --file ${target}: ${err.message}`) });
    ctx.note(`Wrote ${target}.`);
    return { kind: 'empty' };
  }
  ctx.io.stdout.write(text);
  return { kind: 'empty' };
};

/** JSON on stdout, through --jq when given (as render does for other commands; these write their own output). */
export async function printJson(ctx: Context, value: unknown): Promise<void> {
  if (ctx.output.jq !== undefined) {
    const { applyJq } = await import('../output/jq.js');
    const { text, error } = await applyJq(value, ctx.output.jq, ctx.io.stdoutIsTTY);
    ctx.io.stdout.write(text);
    if (error) throw error;
    return;
  }
  ctx.io.stdout.write(`${JSON.stringify(value, null, ctx.output.pretty ? 2 : undefined)}\n`);
}

function dryRunNote(ctx: Context, text: string): Result {
  ctx.io.stderr.write(`${text}\n`);
  return { kind: 'empty' };
}

export async function readFileArg(ctx: Context, file: string): Promise<{ text: string; name: string; baseDir: string }> {
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

export function problemsError(name: string, problems: Problem[]): UsageError {
  const n = problems.length;
  return new UsageError(
    `${name}: ${n} problem${n > 1 ? 's' : ''}; nothing was changed`,
    problems.map((p) => `  ${name}:${p.line}:${p.col}: ${p.at ? `${p.at}: ` : ''}${p.message}`),
  );
}

/** The CLI's own checks of cron expressions and time zones (src/cli/values.ts), as the flags get them. */
export async function cronChecks(): Promise<CheckTools> {
  const { cronProblem, canonicalTimezone } = await import('../cli/values.js');
  return {
    cronError: cronProblem,
    timezoneError: (zone) => (canonicalTimezone(zone) === undefined ? `"${zone}" is not a time zone (an IANA name such as UTC or Europe/Paris)` : undefined),
  };
}

interface Planned {
  plan: Plan;
  /** Each secret reference apply sends, resolved (not read): where it comes from, whether it is there. */
  resolved: Map<string, ResolvedReference>;
  /** The backups file as given (for messages), or `-`. */
  fileArg: string;
  recipes: { stateDir: string; baseUrl: string };
  /** The assurance plan of each job (local policy: shown, never sent). */
  assurance: import('../ascode/assurance.js').JobPlan[];
}

/**
 * Reads and checks the file, reads the service, and plans; every problem is
 * exit 2 before anything changes. A `${file:}` outside the file's folder is a
 * problem wherever it stands (without --allow-outside-files); a secret that is
 * not there is a problem only for apply, and only when apply sends it.
 */
async function planFor(ctx: Context, fileArg: string, opts: { prune: boolean; allowOutside: boolean; forApply: boolean }): Promise<Planned> {
  const [{ parseBackupsFile }, { readState }, { makePlan, sectionsOf }, { resolveReference }, { knownRecipes }, { stateDir }] = await Promise.all([
    import('../ascode/parse.js'),
    import('../ascode/state.js'),
    import('../ascode/plan.js'),
    import('../ascode/references.js'),
    import('../ascode/recipes.js'),
    import('../config/paths.js'),
  ]);
  const { text, name, baseDir } = await readFileArg(ctx, fileArg);
  const parsed = await parseBackupsFile(text, name, await cronChecks());
  if (!parsed.ok) throw problemsError(name, parsed.problems);
  const resolved = new Map<string, ResolvedReference>();
  const fileProblems: Problem[] = [];
  for (const r of parsed.parsed.references) {
    const res = resolveReference(r.ref, baseDir, ctx.env);
    resolved.set(r.ref, res);
    if (res.outside && !opts.allowOutside) {
      fileProblems.push({ ...parsed.parsed.where(r.at), at: r.at, message: `${r.ref} is outside the folder of the backups file (${baseDir}); give --allow-outside-files to read it` });
    }
  }
  if (fileProblems.length) throw problemsError(name, fileProblems);
  const client = await ctx.client();
  const spinner = ctx.spinner('Reading the set-up');
  const state = await readState(client, sectionsOf(parsed.parsed.file), ctx.signal).finally(() => spinner.stop());
  const recipes = { stateDir: stateDir(ctx.env), baseUrl: (await ctx.settings()).baseUrl };
  const { plan, problems } = makePlan(parsed.parsed, state, { prune: opts.prune, recipes: await knownRecipes(recipes.stateDir, recipes.baseUrl, state.jobs ?? []) });
  if (opts.forApply) {
    for (const use of plan.secrets) {
      const res = resolved.get(use.ref)!;
      if (res.available) continue;
      const why = `(apply sends it: ${use.kind} "${use.name}" is ${use.action === 'create' ? 'created' : 'replaced'})`;
      problems.push({
        ...parsed.parsed.where(use.at),
        at: use.at,
        message: res.kind === 'env' ? `the environment variable ${res.name} is not set ${why}` : `the file ${res.name} does not exist or is not a regular file ${why}`,
      });
    }
  }
  let assurance: Planned['assurance'] = [];
  if (parsed.parsed.file.assurance) {
    const { resolveAssurance } = await import('../ascode/assurance.js');
    const jobs = state.jobs ?? (await readState(client, ['jobs'], ctx.signal)).jobs ?? [];
    const r = resolveAssurance(parsed.parsed, jobs);
    problems.push(...r.problems);
    assurance = r.plans;
  }
  if (problems.length) throw problemsError(name, problems.sort((a, b) => a.line - b.line || a.col - b.col));
  return { plan, resolved, fileArg, recipes, assurance };
}

// ---------------------------------------------------------------------------
// Showing a plan

const show = (v: unknown) => (v === undefined || v === null ? '(none)' : typeof v === 'string' ? JSON.stringify(v) : String(v));

function fieldLine(f: FieldChange, action: Change['action']): string {
  // A replace sends the secret again: the service never showed what it was.
  if (f.sensitive) return action === 'replace' ? `${f.field}: (not shown) -> (sensitive)` : `${f.field}: (sensitive)`;
  const after = `${show(f.after)}${f.means ? ` (${f.means})` : ''}`;
  if (f.before === undefined) return `${f.field}: ${after}`;
  return `${f.field}: ${show(f.before)} -> ${after}`;
}

/** A path as the user may type it again (quoted for a POSIX shell when needed). */
const shellWord = (p: string) => (/^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);

/** Each secret apply sends, with where it comes from and whether it is there (never its value). */
function secretLines(plan: Plan, resolved: ReadonlyMap<string, ResolvedReference>): string[] {
  if (!plan.secrets.length) return [];
  const lines = ['Secrets apply sends:'];
  for (const use of plan.secrets) {
    const r = resolved.get(use.ref);
    const where = !r ? '' : r.kind === 'env' ? (r.available ? 'set' : 'not set') : `file ${r.file}${r.available ? '' : ' (missing)'}`;
    lines.push(`  ${use.ref} for ${use.kind} ${JSON.stringify(use.name)} ${use.field}: ${where}`);
  }
  const files = filesRead(plan, resolved);
  if (files.length) lines.push(`Files apply reads: ${files.join(', ')}`);
  return lines;
}

function filesRead(plan: Plan, resolved: ReadonlyMap<string, ResolvedReference>): string[] {
  const files = plan.secrets.map((u) => resolved.get(u.ref)?.file).filter((f): f is string => typeof f === 'string');
  return [...new Set(files)];
}

export async function planText(plan: Plan, color: boolean, width = Infinity, resolved: ReadonlyMap<string, ResolvedReference> = new Map()): Promise<string> {
  const [{ summary, MARKS }, { sanitize }, { wrapHanging }] = await Promise.all([import('../ascode/plan.js'), import('../output/sanitize.js'), import('../util/wrap.js')]);
  const paint = color ? (await import('chalk')).default : undefined;
  const markColor = (c: Change) => {
    const m = MARKS[c.action].padEnd(3);
    if (!paint) return m;
    return c.action === 'create' ? paint.green(m) : c.action === 'update' ? paint.yellow(m) : paint.red(m);
  };
  // Notes are prose: wrapped at the terminal's width, words kept whole.
  const noteLines = (n: string) => wrapHanging(`Note: ${sanitize(n)}`, width, '      ');
  if (!plan.changes.length) return `No changes: the service matches the file.\n${plan.notes.flatMap(noteLines).map((l) => `${l}\n`).join('')}`;
  const s = summary(plan);
  const lines = [`Plan: ${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete.`, ''];
  for (const c of plan.changes) {
    // The head's note is prose too: wrapped under the head, the colour of the mark not counted.
    const head = `${MARKS[c.action].padEnd(3)} ${c.kind} ${sanitize(JSON.stringify(c.name))}${c.id !== undefined ? ` (${sanitize(String(c.id))})` : ''}${c.note ? `: ${c.note}` : ''}`;
    const wrapped = wrapHanging(head, width, '    ');
    wrapped[0] = markColor(c) + wrapped[0]!.slice(3);
    lines.push(...wrapped);
    for (const f of c.fields) lines.push(`      ${sanitize(fieldLine(f, c.action))}`);
  }
  const secrets = secretLines(plan, resolved);
  if (secrets.length) lines.push('', ...secrets.flatMap((l) => wrapHanging(sanitize(l), width, '    ')));
  for (const n of plan.notes) lines.push('', ...noteLines(n));
  return `${lines.join('\n')}\n`;
}

/** The plan as JSON: what `schema plan` describes. */
export function planJson(plan: Plan, resolved: ReadonlyMap<string, ResolvedReference> = new Map()) {
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
    secrets: plan.secrets.map((u) => {
      const r = resolved.get(u.ref);
      return { reference: u.ref, kind: u.kind, name: u.name, field: u.field, available: r?.available ?? false, file: r?.file ?? null };
    }),
    files: filesRead(plan, resolved),
  };
}

const planOptions = (input: { values: Record<string, unknown> }, forApply: boolean) => ({
  prune: input.values.prune === true,
  allowOutside: input.values.allow_outside_files === true,
  forApply,
});

/** What each lowered retention count makes the next run expire (src/retention/lowering.ts). */
async function expiryOf(ctx: Context, plan: Plan): Promise<Array<import('../retention/lowering.js').LoweringCost>> {
  const lowered = plan.changes.filter((c) => c.lowers);
  if (!lowered.length) return [];
  const { costOfLowering } = await import('../retention/lowering.js');
  const out = [];
  for (const c of lowered) out.push(await costOfLowering(ctx, c.lowers!, Date.now()));
  return out;
}

async function expiryText(costs: Array<import('../retention/lowering.js').LoweringCost>, plan: Plan): Promise<string> {
  if (!costs.length) return '';
  const [{ costLine }, { sanitize }] = await Promise.all([import('../retention/lowering.js'), import('../output/sanitize.js')]);
  const nameOf = (id: string) => plan.changes.find((c) => c.lowers?.id === id)?.name ?? id;
  return `\n${costs.map((c) => `${c.target} ${sanitize(JSON.stringify(nameOf(c.id)))}: ${sanitize(costLine(c))}`).join('\n')}\n`;
}

/** The assurance plans as plan --json shows them. */
function assuranceJson(plans: Planned['assurance']) {
  return plans.map((p) => ({
    job: p.job,
    job_id: p.job_id,
    selector: p.plan.selector,
    verify_every: p.plan.entry.verify_every ?? null,
    restore_test_every: p.plan.entry.restore_test_every ?? null,
    backup: p.plan.backup,
    within: p.plan.backup === 'random' ? (p.plan.entry.within ?? '30d') : null,
    engine: p.plan.engine,
    rto: p.plan.entry.rto ?? null,
    validations: p.plan.validations.length,
  }));
}

/** The assurance plans under the plan: local policy, never counted as a change of the service. */
async function assuranceText(plans: Planned['assurance']): Promise<string> {
  if (!plans.length) return '';
  const [{ planLine }, { sanitize }] = await Promise.all([import('../ascode/assurance.js'), import('../output/sanitize.js')]);
  const lines = ['', `Assurance plans (local policy for assure run; nothing is sent): ${plans.length} job${plans.length === 1 ? '' : 's'} covered.`];
  for (const p of plans) lines.push(`  ${sanitize(JSON.stringify(p.job))}${p.plan.selector !== p.job ? ` (by "${sanitize(p.plan.selector)}")` : ''}: ${sanitize(planLine(p.plan))}`);
  return `${lines.join('\n')}\n`;
}

const planSetup: Handler = async (input, ctx) => {
  const { plan, resolved, assurance } = await planFor(ctx, input.values.file as string, planOptions(input, false));
  const expiry = await expiryOf(ctx, plan);
  const json = ctx.globals.json || ctx.output.format === 'json' || ctx.output.format === 'ndjson';
  if (json) await printJson(ctx, { ...planJson(plan, resolved), expiry, summary: (await import('../ascode/plan.js')).summary(plan), assurance: assuranceJson(assurance) });
  else ctx.io.stdout.write((await planText(plan, ctx.output.color, ctx.io.columns, resolved)) + (await expiryText(expiry, plan)) + (await assuranceText(assurance)));
  if (plan.changes.length) throw new ChangesPendingError();
  return { kind: 'empty' };
};

const applySetup: Handler = async (input, ctx) => {
  const { plan, resolved, fileArg, recipes } = await planFor(ctx, input.values.file as string, planOptions(input, true));
  const json = ctx.globals.json || ctx.output.format === 'json' || ctx.output.format === 'ndjson';
  const width = ctx.io.stderrIsTTY ? ctx.io.columns : Infinity;
  const text = await planText(plan, ctx.output.color, width, resolved);
  if (!plan.changes.length) {
    if (json) await printJson(ctx, { applied: [], not_applied: [] });
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
  // A lower retention count expires backups at the next run: said, and allowed only on purpose
  // (--yes or the question on a terminal; --allow-expiry in a script).
  const expiry = (await expiryOf(ctx, plan)).filter((c) => c.expire > 0);
  ctx.io.stderr.write(text + (await expiryText(expiry, plan)));
  const expiring = expiry.reduce((n, c) => n + c.expire, 0);
  if (expiring && !ctx.io.stdinIsTTY && input.values.allow_expiry !== true) {
    throw new UsageError(`the plan lowers retention: the next runs expire ${expiring} backup${expiring === 1 ? '' : 's'} or snapshots kept today; give --allow-expiry to allow it; nothing was changed`, [
      'backupctl retention <job> --what-if daily=3 shows which ones and when.',
    ]);
  }
  if (ctx.globals.dryRun) return dryRunNote(ctx, 'Dry run: nothing was changed.');
  const question = expiring ? `Apply these changes? The next runs expire ${expiring} backup${expiring === 1 ? '' : 's'} or snapshots kept today` : 'Apply these changes?';
  if (!(await ctx.confirm(question))) throw new UsageError('Cancelled; nothing was changed.');

  const [{ resolveSecret }, { learnRecipe }, { MARKS, summary }] = await Promise.all([import('../ascode/parse.js'), import('../jobs/recipe-ids.js'), import('../ascode/plan.js')]);
  const client = await ctx.client();
  const ids = { storage: new Map<string, number>() };
  const secret = (ref: string) =>
    resolveSecret(ref, ctx.env, (r) => {
      const res = resolved.get(r);
      // The plan checked every reference: one it did not see is never read.
      if (!res?.file || (res.outside && input.values.allow_outside_files !== true)) throw new UsageError(`${r}: not a file the plan checked; nothing more was sent`);
      return res.file;
    });
  const done: Change[] = [];
  let current: Change | undefined;
  // Each job about to change: its schedule timing as it is now, remembered with its updated_at, so that `report`
  // tells an edit of retention (or a name) from a schedule change afterwards (fleet/timing.ts, issue 42.5).
  const [{ openTimings, timingOf, lastChangeOf }, { recordOf }] = await Promise.all([import('../fleet/timing.js'), import('../http/shape.js')]);
  const timings = plan.changes.some((c) => c.kind === 'job' && c.action === 'update') ? await openTimings(ctx) : null;
  try {
    for (const change of plan.changes) {
      current = change;
      if (timings && change.kind === 'job' && change.action === 'update' && change.id !== undefined) {
        const job = recordOf(await client.request({ method: 'GET', path: `/jobs/${encodeURIComponent(String(change.id))}` }, { signal: ctx.signal }));
        const at = lastChangeOf(job);
        if (at !== undefined) timings.changedAt(String(change.id), timingOf(job), at);
        await timings.save().catch(() => {});
      }
      for (const step of change.steps) {
        const req = await step.request(ids, secret);
        const res = await client.request(req, { signal: ctx.signal });
        step.learn?.(ids, res.body);
        const check = step.check?.(res.body);
        if (check?.recipe) await learnRecipe(recipes.stateDir, recipes.baseUrl, check.recipe.id, check.recipe.slug, change.name, new Date()).catch(() => {});
        if (check?.problem) {
          // Never leave a job of another recipe behind: take the create back, then stop.
          if (check.undo) {
            try {
              await client.request(check.undo, { signal: ctx.signal });
            } catch (undoErr) {
              throw new CliError(check.problem.replace(/; the job was deleted again$/, ''), ExitCode.refused, [
                `The job could not be deleted again (${(undoErr as Error).message}): delete it with \`backupctl jobs delete ${check.undo.path.split('/').pop()}\`.`,
              ]);
            }
          }
          throw new CliError(check.problem, ExitCode.refused, ['The service made something other than the file says.']);
        }
      }
      done.push(change);
      ctx.note(`${MARKS[change.action]} ${change.kind} ${JSON.stringify(change.name)}: done`);
    }
  } catch (err) {
    const left = plan.changes.filter((c) => !done.includes(c));
    const lines = [
      `Stopped at ${current!.kind} "${current!.name}". Done: ${done.length ? done.map((c) => `${c.kind} "${c.name}"`).join(', ') : 'nothing'}.`,
      `Not done: ${left.map((c) => `${c.kind} "${c.name}"`).join(', ')}.`,
      `Run \`backupctl plan -f ${shellWord(fileArg)}\` to see where the service stands now.`,
    ];
    if (err instanceof CliError) throw new CliError(err.message, err.exitCode, [...err.details, ...lines]);
    throw err;
  }
  const s = summary(plan);
  if (json) await printJson(ctx, { applied: planJson(plan, resolved).changes, not_applied: [] });
  else ctx.io.stdout.write(`Applied: ${s.create} created, ${s.update} updated, ${s.replace} replaced, ${s.delete} deleted.\n`);
  return { kind: 'empty' };
};

export const handlers: Record<string, Handler> = { exportSetup, planSetup, applySetup };
