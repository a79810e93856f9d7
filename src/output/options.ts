// Decides, once per run, how results are printed: format, colour, columns.
import type { Globals, IO, OutputFormat, OutputOptions } from '../cli/types.js';
import { ConfigError, UsageError } from '../errors.js';

export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson', 'tsv'];

function parseFormat(raw: string, source: string): OutputFormat {
  const value = raw.trim().toLowerCase();
  if ((OUTPUT_FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  const message = `unknown output format "${raw}" from ${source}; allowed: ${OUTPUT_FORMATS.join(', ')}`;
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
 * Colour only on a terminal, whatever FORCE_COLOR says: escape codes in a
 * pipe or file corrupt what scripts read. On a terminal, --no-color and a
 * non-empty NO_COLOR turn it off, and so does FORCE_COLOR=0/false.
 */
function resolveColor(globals: Globals, env: NodeJS.ProcessEnv, io: IO): boolean {
  if (!io.stdoutIsTTY) return false;
  if (globals.color === false) return false;
  if (nonEmpty(env.NO_COLOR) !== undefined) return false;
  const force = env.FORCE_COLOR?.trim().toLowerCase();
  if (force === '0' || force === 'false') return false;
  return true;
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
    color: resolveColor(globals, env, io),
    pretty: io.stdoutIsTTY,
  };
  if (columns !== undefined) options.columns = columns;
  if (globals.jq !== undefined) {
    // jq prints the whole JSON: ids alone (-q) or table columns do not apply.
    options.jq = globals.jq;
    options.quiet = false;
    delete options.columns;
  }
  return options;
}
