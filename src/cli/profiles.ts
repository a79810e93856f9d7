// --all-profiles and --profiles a,b: the ONE place that runs a command once
// per profile and merges what each printed. Each profile's run is the whole
// command as if `--profile <name> --json` had been given (its own settings,
// token, base URL, client and rate limits), run a few at a time; its JSON
// answer becomes rows of one table with a PROFILE column, or one element of
// `{"profiles": [...]}` with --json, or the command's own view (status and
// report: their single-profile view with a profile column). A profile that
// fails (401, unreachable, a --check that fails) never hides the others; the
// command then exits with the first failure's code. On a terminal one spinner
// counts the profiles done; their stderr lines come after it, in order.
import { Writable } from 'node:stream';
import type { ManifestCommand } from '../contract/spec.js';
import type { Globals, IO, OutputOptions, ProfileOutcome, Result } from '../contract/context.js';
import { CliError, UsageError } from '../errors.js';

/** Profiles run at once. */
export const PROFILE_CONCURRENCY = 4;


export interface PerProfileRun {
  spec: ManifestCommand;
  positionals: (string | undefined)[];
  options: Record<string, unknown>;
  globals: Globals;
  io: IO;
  env: NodeJS.ProcessEnv;
  /** The command's own view of the profiles' answers (status, report), when its module has one. */
  profileView?(outcomes: readonly ProfileOutcome[], output: OutputOptions, format?: string): Promise<Result | undefined>;
  /** Runs the command once, as the runner does, with this IO, globals and environment. */
  runOnce(o: { options: Record<string, unknown>; globals: Globals; io: IO; env: NodeJS.ProcessEnv }): Promise<void>;
}

function capture(): { stream: Writable; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** Which profiles: --all-profiles (every one in the config) or --profiles a,b (each must exist). */
async function chooseProfiles(r: PerProfileRun): Promise<Array<{ name: string; baseUrl: string | null }>> {
  const all = r.options.allProfiles === true;
  const list = typeof r.options.profiles === 'string' ? r.options.profiles : undefined;
  if (all && list !== undefined) throw new UsageError('--all-profiles and --profiles name the profiles twice: give one');
  if (r.globals.profile !== undefined) throw new UsageError('--profile names one profile; with --all-profiles or --profiles leave it out');
  if (r.globals.baseUrl !== undefined) throw new UsageError('--base-url would send every profile\'s token to one address: each profile uses its own base URL');
  for (const name of ['BACKUPCTL_TOKEN', 'BACKUPCTL_BASE_URL']) {
    if (r.env[name]) throw new UsageError(`${name} is set: it would apply to every profile (one token sent to every base URL); unset it to run for several profiles`);
  }
  const { configDir, openConfig } = await import('../config/index.js');
  const store = await openConfig(configDir(r.env, r.globals.configDir));
  const known = store.profileNames();
  let names: string[];
  if (all) names = known;
  else {
    names = [...new Set(list!.split(',').map((s) => s.trim()).filter(Boolean))];
    if (!names.length) throw new UsageError('invalid value for --profiles: give profile names, comma-separated');
    const unknown = names.filter((n) => !known.includes(n));
    if (unknown.length) throw new UsageError(`--profiles: no profile ${unknown.map((n) => `"${n}"`).join(', ')}`, [`Profiles: ${known.join(', ') || 'none'}.`]);
  }
  if (!names.length) throw new UsageError('--all-profiles: the config has no profile', ['Log in first: backupctl auth login --profile <name>']);
  return names.map((name) => ({ name, baseUrl: store.profile(name).base_url ?? null }));
}

/** The command's own format given with -o (report's md), if any. */
function ownFormat(r: PerProfileRun): string | undefined {
  const own = r.globals.output?.trim().toLowerCase();
  return own !== undefined && r.spec.extraFormats?.includes(own) ? own : undefined;
}

export async function runPerProfile(r: PerProfileRun): Promise<void> {
  const view = r.spec.perProfile!;
  const extra = ownFormat(r);
  // Refused before anything is sent: a format that shows one profile only.
  if (extra !== undefined && !view.formats?.includes(extra)) {
    throw new UsageError(`-o ${extra} shows one profile: run it with --profile <name> for each, or use table, tsv or --json with --all-profiles`);
  }
  const profiles = await chooseProfiles(r);
  const { allProfiles: _a, profiles: _p, ...options } = r.options;
  // Each run prints JSON into its own buffer; the merged output is formatted here.
  const globals: Globals = { ...r.globals, json: true, output: undefined, quiet: undefined, jq: undefined, columns: undefined };
  const env = { ...r.env };
  delete env.BACKUPCTL_PROFILE;
  delete env.BACKUPCTL_OUTPUT;
  const outcomes: ProfileOutcome[] = new Array(profiles.length);
  // Each run's own spinner draws into its buffer: one spinner on the terminal says how far the profiles got.
  const { createSpinner, resolveOutputOptions } = await import('../output/index.js');
  const animation = resolveOutputOptions({ globals: { ...r.globals, profile: undefined, output: undefined }, env: r.env, io: r.io, profileOutput: undefined }).animation;
  const spinner = animation ? createSpinner(`Reading ${profiles.length} profile${profiles.length === 1 ? '' : 's'}: 0 done…`, r.io, animation) : undefined;
  let done = 0;
  let next = 0;
  // Each profile's warnings and errors, written once every run has ended, in the profiles' order (never under the spinner).
  const said: string[][] = profiles.map(() => []);
  const worker = async () => {
    while (next < profiles.length) {
      const i = next++;
      const p = profiles[i]!;
      const out = capture();
      const err = capture();
      const io: IO = { ...r.io, stdout: out.stream, stderr: err.stream, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: Infinity };
      let failure: CliError | Error | undefined;
      try {
        await r.runOnce({ options, globals: { ...globals, profile: p.name }, io, env });
      } catch (e) {
        failure = e as Error;
      }
      const text = out.text().trim();
      let result: unknown = null;
      try {
        result = text ? JSON.parse(text) : null;
      } catch {
        result = null;
      }
      spinner?.update(`Reading ${profiles.length} profile${profiles.length === 1 ? '' : 's'}: ${++done} done…`);
      const exit = failure ? (failure instanceof CliError ? failure.exitCode : 1) : 0;
      outcomes[i] = { profile: p.name, base_url: p.baseUrl, ok: !failure, exit_code: exit, error: failure ? failure.message || 'failed' : null, result };
      // Its warnings and errors, each line marked with the profile.
      const lines = err.text().split('\n').filter(Boolean);
      if (failure instanceof CliError && failure.message) lines.push(`error: ${failure.message}`, ...failure.details);
      said[i] = lines.map((line) => `[${p.name}] ${line}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(PROFILE_CONCURRENCY, profiles.length) }, worker));
  } finally {
    spinner?.stop();
    const { writeServiceLine } = await import('../output/sanitize.js');
    for (const line of said.flat()) writeServiceLine(r.io.stderr, line);
  }

  await printMerged(r, view, outcomes);
  const failed = outcomes.filter((o) => !o.ok);
  if (failed.length) {
    throw new CliError(
      `${failed.length} of ${outcomes.length} profile${outcomes.length === 1 ? '' : 's'} failed: ${failed.map((f) => `${f.profile} (exit ${f.exit_code})`).join(', ')}`,
      failed[0]!.exit_code,
    );
  }
}

function at(value: unknown, dotted: string): unknown {
  if (!dotted) return value;
  let v = value;
  for (const k of dotted.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

function rowsOf(result: unknown, path: string): unknown[] {
  const v = at(result, path);
  if (Array.isArray(v)) return v;
  return v === undefined || v === null ? [] : [v];
}

async function printMerged(r: PerProfileRun, view: NonNullable<ManifestCommand['perProfile']>, outcomes: ProfileOutcome[]): Promise<void> {
  const { resolveOutputOptions, render } = await import('../output/index.js');
  // A format of the command's own (report -o md): the output options as without -o; the view renders it.
  const extra = ownFormat(r);
  const output = resolveOutputOptions({ globals: { ...r.globals, profile: undefined, ...(extra ? { output: undefined } : {}) }, env: r.env, io: r.io, profileOutput: undefined });
  if (output.format === 'json' || output.format === 'ndjson') {
    await render({ kind: 'object', value: { profiles: outcomes } }, output, r.io);
    return;
  }
  // The command's own view (status, report): the single-profile view with a profile column.
  const viewed = await r.profileView?.(outcomes, output, extra);
  if (viewed) {
    await render(viewed, output, r.io);
    return;
  }
  const rows = outcomes.flatMap((o) => {
    const own = rowsOf(o.result, view.rows).map((row) => ({ profile: o.profile, ...Object.fromEntries(view.columns.map((c) => [c, at(row, c)])), error: '' }));
    const error = o.ok ? [] : [{ profile: o.profile, error: `${o.error ?? 'failed'} (exit ${o.exit_code})` }];
    return [...own, ...error];
  });
  const header = (c: string) => c.replace(/[._]/g, ' ').toUpperCase();
  const columns = [
    { key: 'profile', header: 'PROFILE' },
    ...view.columns.map((c) => ({ key: c, header: header(c), get: (row: Record<string, unknown>) => row[c] })),
    { key: 'error', header: 'ERROR' },
  ];
  const { onePageOf } = { onePageOf: async function* (x: unknown[]) { yield x; } };
  await render({ kind: 'list', pages: onePageOf(rows), columns, idField: 'profile' }, output, r.io);
}
