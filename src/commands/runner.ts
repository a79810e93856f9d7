// Runs one command: check the input, build the request, confirm, dry-run or
// call the handler, render the result. Loaded only once a command was chosen.
import type { ManifestCommand } from '../contract/spec.js';
import type { Globals, Handler, IO, LoadedModule, OutputOptions } from '../contract/context.js';
import { moduleLoaders } from './registry.js';
import { UsageError } from '../errors.js';
import { parseValues } from '../cli/values.js';
import { buildRequest, fillTemplate } from '../cli/request.js';
import { createContext } from '../cli/context.js';
import { runEndpoint } from '../cli/generic.js';
import { redactBody } from '../http/redact.js';
import { addSecret } from '../util/scrub.js';
import { encodeQuery } from '../http/query.js';
import { resolveNames } from '../cli/resolve.js';
import { parseFormat } from '../output/options.js';
import { checkInput, transformValues } from '../cli/checks.js';
import type { PerProfileRun } from '../cli/profiles.js';

/** One command's run: what --all-profiles repeats per profile (src/cli/profiles.ts), and the signal. */
export interface RunInput extends Omit<PerProfileRun, 'runOnce'> {
  signal: AbortSignal;
}

export async function runCommand(o: RunInput): Promise<void> {
  // --all-profiles / --profiles a,b: the command once per profile, outputs merged (src/cli/profiles.ts).
  if (o.spec.perProfile && (o.options.allProfiles !== undefined || o.options.profiles !== undefined)) {
    const { runPerProfile } = await import('../cli/profiles.js');
    const views = o.spec.handler ? (await moduleLoaders[o.spec.module]?.())?.profileViews : undefined;
    const view = o.spec.handler ? views?.[o.spec.handler] : undefined;
    return runPerProfile({
      ...o,
      runOnce: (x) => runCommand({ ...o, ...x }),
      ...(view ? { profileView: (outcomes, output, format) => view(outcomes, { output, io: o.io, env: o.env, format }) } : {}),
    });
  }
  const { spec, globals, io, env } = o;
  const load = moduleLoaders[spec.module];
  if (!load) throw new Error(`no module ${spec.module} for ${spec.path.join(' ')}`);
  // A format the command renders itself (status -o prometheus) is not one the
  // output layer or the settings know: they resolve as if -o were absent, and
  // the handler alone sees it, in ctx.globals.output.
  const ownFormat = globals.output !== undefined && spec.extraFormats?.includes(globals.output.trim().toLowerCase());
  // A format neither knows: the error names the command's own formats with the others.
  if (globals.output !== undefined && !ownFormat && spec.extraFormats?.length) parseFormat(globals.output, '--output', spec.extraFormats);
  const common = ownFormat ? { ...globals, output: undefined } : globals;
  const output = await resolveOutput(common, env, io);
  if (globals.jq !== undefined) {
    // Before anything is sent: a command without JSON output, or an expression jq cannot compile, is a usage error.
    if (spec.output.kind === 'none') throw new UsageError(`--jq: ${spec.path.join(' ')} prints no JSON`);
    await (await import('../output/jq.js')).checkJqExpression(globals.jq);
  }
  const values = await parseValues(spec, { positionals: o.positionals, options: o.options }, io);
  transformValues(spec, values);
  const ctx = createContext({ globals: common, io, env, signal: o.signal, output });
  if (ownFormat) ctx.globals = globals;
  // A command that runs others (assure run) does so through this runner: one way in, and no import circle.
  ctx.runCommand = (x) => runCommand({ ...x, env });
  try {
    // The declared checks see only which values are given, so they run before any name is looked up: input
    // refused with exit 2 sends nothing, not even a look-up (the chosen form's request, names unresolved).
    const given = formOf(spec, values);
    const givenRequest = buildRequest(given, values);
    checkInput(spec, values, givenRequest);
    // So does a handler's own check (its flags, files and settings: verify, restore-test).
    const own = spec.handler ? await handlerOf(spec, load) : undefined;
    const checked = own?.check ? await own.check({ spec: given, values, request: givenRequest }, ctx) : undefined;
    // Names given for ids are looked up first (sent even with --dry-run, which lists them on stderr).
    await resolveNames(values, () => ctx.client(), {
      signal: ctx.signal,
      onLookup: globals.dryRun ? (req) => io.stderr.write(`Looking up a name: ${req.method} /v1${req.path}${encodeQuery(req.query)}\n`) : undefined,
    });
    // "One id or --all": with --all, the command is its --all form (endpoint, question, message).
    const chosen = formOf(spec, values);
    const request = buildRequest(chosen, values);
    if (request?.body !== undefined) registerSecrets(request.body, redactBody(request.body));
    // Every check runs before --dry-run prints: a dry run refuses what the real run refuses.
    if (spec.validator) {
      const check = (await load()).checks?.[spec.validator];
      if (!check) throw new Error(`check ${spec.validator} missing in module ${spec.module}`);
      check({ spec: chosen, values, request });
    }
    if (globals.dryRun && request && !spec.local && !spec.dryRunInHandler) {
      const { printDryRun } = await import('../cli/dry-run.js');
      await printDryRun(ctx, request);
      return;
    }
    let question = chosen.confirm ? fillTemplate(chosen.confirm, values) : undefined;
    // A person will read it (a terminal, no --yes): name what goes (src/cli/prompt-words.ts).
    if (question && !globals.yes && io.stdinIsTTY) question = await (await import('../cli/prompt-words.js')).promptWords(question, values, await ctx.client(), ctx.signal);
    if (question && !(await ctx.confirm(question))) {
      throw new UsageError('Cancelled; nothing was sent.');
    }
    let handler: Handler;
    if (own) {
      handler = own;
    } else {
      // The generic runner sends first and loads the resource module (schemas, columns)
      // while the answer is on its way.
      handler = (input, c) => runEndpoint(input, c, load);
    }
    const result = await handler({ spec: chosen, values, request }, ctx, checked);
    const { render } = await import('../output/index.js');
    await render(result, output, io, { signal: ctx.signal });
  } finally {
    await ctx.dispose();
  }
}

/** The handler the spec names, from its module. */
async function handlerOf(spec: ManifestCommand, load: () => Promise<LoadedModule>): Promise<Handler> {
  const h = (await load()).handlers?.[spec.handler!];
  if (!h) throw new Error(`handler ${spec.handler} missing in module ${spec.module}`);
  return h;
}

/** "One id or --all": with --all the command is its --all form (endpoint, question, message), else its one-id form. */
function formOf(spec: ManifestCommand, values: Record<string, unknown>): ManifestCommand {
  const orAll = spec.checks?.orAll;
  const form = orAll && (values.all === true ? orAll.all : orAll.one);
  if (!form) return spec;
  return { ...spec, endpoint: form.endpoint ?? spec.endpoint, confirm: form.confirm ?? spec.confirm, output: { ...spec.output, done: form.done ?? spec.output.done } };
}

/**
 * Tells scrub() every value the request carries in a secret field (--secret,
 * --password, a --credentials-file, --secret-file, a job's *_password config),
 * as the redaction for --debug and --dry-run recognises them: a service that
 * echoes one in an error (a 422 repeating the input) must not get it printed.
 */
function registerSecrets(original: unknown, redacted: unknown): void {
  if (redacted === '****') {
    forEachLeaf(original, (v) => addSecret(String(v)));
    return;
  }
  if (original && redacted && typeof original === 'object' && typeof redacted === 'object') {
    for (const [k, v] of Object.entries(original as Record<string, unknown>)) {
      registerSecrets(v, (redacted as Record<string, unknown>)[k]);
    }
  }
}

function forEachLeaf(value: unknown, fn: (leaf: string | number) => void, depth = 0): void {
  if (typeof value === 'string' || typeof value === 'number') fn(value);
  else if (value && typeof value === 'object' && depth < 20) for (const v of Object.values(value)) forEachLeaf(v, fn, depth + 1);
}

async function resolveOutput(globals: Globals, env: NodeJS.ProcessEnv, io: IO): Promise<OutputOptions> {
  const { resolveOutputOptions } = await import('../output/index.js');
  let profileOutput: string | undefined;
  if (!globals.json && !globals.output && !env.BACKUPCTL_OUTPUT) {
    // The profile's output setting. A broken config is reported by whoever needs it, not here.
    try {
      const { configDir, openConfig } = await import('../config/index.js');
      const store = await openConfig(configDir(env, globals.configDir));
      const name = globals.profile ?? env.BACKUPCTL_PROFILE ?? store.currentProfile();
      profileOutput = store.profile(name).output;
    } catch {
      profileOutput = undefined;
    }
  }
  return resolveOutputOptions({ globals, env, io, profileOutput });
}
