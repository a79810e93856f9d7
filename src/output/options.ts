// Decides, once per run, how results are printed: format, colour, columns.
import type { Globals, IO, OutputFormat, OutputOptions } from '../contract/context.js';
import { ConfigError, UsageError } from '../errors.js';

export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson', 'tsv'];

/** `extra`: the formats a command renders itself (report's md and html), named too when `raw` is none of them. */
export function parseFormat(raw: string, source: string, extra: readonly string[] = []): OutputFormat {
  const value = raw.trim().toLowerCase();
  if ((OUTPUT_FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  const message = `unknown output format "${raw}" from ${source}; allowed: ${[...OUTPUT_FORMATS, ...extra].join(', ')}`;
  // A bad flag is a usage error (exit 2); a bad environment or profile setting is configuration (exit 3).
  throw source === '--output' ? new UsageError(message) : new ConfigError(message);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value : undefined;
}

/** `--json` > `-o/--output` > BACKUPCTL_OUTPUT > profile `output` > table on a terminal, tsv when piped. */
function resolveFormat(globals: Globals, env: NodeJS.ProcessEnv, io: IO, profileOutput: string | undefined): OutputFormat {
  if (globals.json || globals.jq !== undefined) return 'json';
  const flag = globals.output;
  if (flag !== undefined) return parseFormat(flag, '--output');
  const fromEnv = nonEmpty(env.BACKUPCTL_OUTPUT);
  if (fromEnv !== undefined) return parseFormat(fromEnv, 'BACKUPCTL_OUTPUT');
  const fromProfile = nonEmpty(profileOutput);
  if (fromProfile !== undefined) return parseFormat(fromProfile, 'the profile setting "output"');
  return io.stdoutIsTTY ? 'table' : 'tsv';
}

/**
 * Whether the user and the terminal type allow colour on a terminal: --no-color,
 * a non-empty NO_COLOR and FORCE_COLOR=0/false turn it off; TERM=dumb too, unless
 * FORCE_COLOR asks for it. Colour never goes where no terminal is, whatever
 * FORCE_COLOR says (docs/scripting.md, Colour): escape codes in a pipe or file corrupt what
 * scripts read.
 */
function colorAllowed(globals: Globals, env: NodeJS.ProcessEnv): boolean {
  if (globals.color === false) return false;
  if (nonEmpty(env.NO_COLOR) !== undefined) return false;
  const force = env.FORCE_COLOR?.trim().toLowerCase();
  if (force === '0' || force === 'false') return false;
  if (force) return true;
  return !dumbTerminal(env);
}

/** TERM=dumb: a terminal that cannot move the cursor or show colour (Emacs shell, some CI consoles). */
function dumbTerminal(env: NodeJS.ProcessEnv): boolean {
  return env.TERM?.trim().toLowerCase() === 'dumb';
}

function parseColumns(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  return raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

export function resolveOutputOptions(opts: {
  globals: Globals;
  env: NodeJS.ProcessEnv;
  io: IO;
  profileOutput?: string;
}): OutputOptions {
  const { globals, env, io } = opts;
  const columns = parseColumns(globals.columns);
  const options: OutputOptions = {
    format: resolveFormat(globals, env, io, opts.profileOutput),
    quiet: globals.quiet === true,
    noHeaders: globals.headers === false,
    color: io.stdoutIsTTY && colorAllowed(globals, env),
    pretty: io.stdoutIsTTY,
  };
  // A spinner or progress bar redraws its line: a terminal on stderr that can move the cursor.
  if (io.stderrIsTTY && !dumbTerminal(env)) options.animation = { color: colorAllowed(globals, env) };
  if (columns !== undefined) options.columns = columns;
  if (globals.trunc === false) options.noTrunc = true;
  else if (io.stdoutIsTTY) options.shortIds = true;
  if (globals.jq !== undefined) {
    // jq prints the whole JSON: ids alone (-q) or table columns do not apply.
    options.jq = globals.jq;
    options.quiet = false;
    delete options.columns;
  }
  return options;
}
