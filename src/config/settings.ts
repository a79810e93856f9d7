// Settings resolved from flags, the environment and the profile, in that order.
import type { Globals, OutputFormat, Settings } from '../contract/context.js';
import { CliError, ConfigError, UsageError } from '../errors.js';
import { validateBaseUrl } from './base-url.js';
import { parseDuration } from './duration.js';
import { envValue } from './paths.js';
import { STATE_URL_ENV, checkStateUrl } from './state-url.js';
import type { ConfigStore } from './store.js';
import { OUTPUT_FORMATS } from './types.js';
import { DEFAULT_PROVIDER_NAMES, parseProviderNames, type ProviderNames } from '../util/providers.js';

export const DEFAULT_TIMEOUT_MS = 30_000;

export const NO_BASE_URL_MESSAGE =
  'no base URL: set one with `backupctl auth login --base-url <url>` or BACKUPCTL_BASE_URL';

export interface ResolveInput {
  globals: Globals;
  env: NodeJS.ProcessEnv;
  store: ConfigStore;
}

/** How a profile is named in messages, so the user knows which file to fix. */
export function profileSource(store: ConfigStore, profile: string): string {
  return `profile "${profile}" in ${store.file}`;
}

/** --profile, else $BACKUPCTL_PROFILE, else the profile marked current, else `default`. */
export function resolveProfileName(globals: Globals, env: NodeJS.ProcessEnv, store: ConfigStore): string {
  const flag = globals.profile?.trim();
  return flag || envValue(env, 'BACKUPCTL_PROFILE') || store.currentProfile();
}

export interface ResolvedBaseUrl {
  url: string;
  source: 'flag' | 'env' | 'profile';
}

/** The validated base URL, or undefined when none is set anywhere. */
export function resolveBaseUrl(input: ResolveInput, profile: string): ResolvedBaseUrl | undefined {
  const flag = input.globals.baseUrl;
  if (flag !== undefined && flag.trim() !== '') return { url: validateBaseUrl(flag, '--base-url'), source: 'flag' };
  const fromEnv = envValue(input.env, 'BACKUPCTL_BASE_URL');
  if (fromEnv) return { url: validateBaseUrl(fromEnv, 'BACKUPCTL_BASE_URL'), source: 'env' };
  const stored = input.store.profile(profile).base_url;
  if (stored !== undefined && stored.trim() !== '') {
    return { url: validateBaseUrl(stored, profileSource(input.store, profile)), source: 'profile' };
  }
  return undefined;
}

export interface ResolvedToken {
  token: string;
  source: 'env' | 'profile';
}

/** $BACKUPCTL_TOKEN, else the profile's token. There is no token flag: argv leaks into `ps` and history. */
export function resolveToken(env: NodeJS.ProcessEnv, store: ConfigStore, profile: string): ResolvedToken | undefined {
  const fromEnv = envValue(env, 'BACKUPCTL_TOKEN');
  if (fromEnv) return { token: fromEnv, source: 'env' };
  const stored = store.profile(profile).token?.trim();
  if (stored) return { token: stored, source: 'profile' };
  return undefined;
}

/** Re-raises a parse failure as the right error for where the value came from. */
function asConfigError(err: unknown, source: string): never {
  if (err instanceof CliError) throw new ConfigError(`${err.message} (from ${source})`, err.details);
  throw err;
}

/** --timeout (a bad value is a usage error), else $BACKUPCTL_TIMEOUT, else the profile, else 30 s. */
export function resolveTimeout(input: ResolveInput, profile: string): number {
  const flag = input.globals.timeout;
  if (flag !== undefined) {
    try {
      return parseDuration(flag);
    } catch (err) {
      if (err instanceof CliError) throw new UsageError(`${err.message} (from --timeout)`, err.details);
      throw err;
    }
  }
  const fromEnv = envValue(input.env, 'BACKUPCTL_TIMEOUT');
  if (fromEnv) {
    try {
      return parseDuration(fromEnv);
    } catch (err) {
      asConfigError(err, 'BACKUPCTL_TIMEOUT');
    }
  }
  const stored = input.store.profile(profile).timeout;
  if (stored !== undefined) {
    try {
      return parseDuration(String(stored));
    } catch (err) {
      asConfigError(err, `timeout of ${profileSource(input.store, profile)}`);
    }
  }
  return DEFAULT_TIMEOUT_MS;
}

function checkOutput(raw: string, fail: (message: string) => Error): OutputFormat {
  const value = raw.trim().toLowerCase();
  if ((OUTPUT_FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  throw fail(`invalid output format ${JSON.stringify(raw)}: use one of ${OUTPUT_FORMATS.join(', ')}`);
}

/**
 * --json / -o, else $BACKUPCTL_OUTPUT, else the profile's `output`; undefined
 * leaves the choice to the output layer (table on a terminal, tsv when piped).
 */
export function resolveOutput(input: ResolveInput, profile: string): OutputFormat | undefined {
  if (input.globals.json) return 'json';
  const flag = input.globals.output;
  if (flag !== undefined) return checkOutput(flag, (m) => new UsageError(`${m} (from --output)`));
  const fromEnv = envValue(input.env, 'BACKUPCTL_OUTPUT');
  if (fromEnv) return checkOutput(fromEnv, (m) => new ConfigError(`${m} (from BACKUPCTL_OUTPUT)`));
  const stored = input.store.profile(profile).output;
  if (stored !== undefined) {
    return checkOutput(stored, (m) => new ConfigError(`${m} (from ${profileSource(input.store, profile)})`));
  }
  return undefined;
}

/** $BACKUPCTL_PROVIDER_NAMES, else the profile's `provider_names`, else neutral (the interface document's tokens). */
export function resolveProviderNames(input: Pick<ResolveInput, 'env' | 'store'>, profile: string): ProviderNames {
  return providerNamesOf(input, profile).mode;
}

/**
 * The provider names and where they come from: $BACKUPCTL_PROVIDER_NAMES, the profile's
 * `provider_names` (both override), else what was detected for this base URL and remembered in
 * the profile, else the default (the client probes the service when first needed: src/cli/dialect.ts).
 */
export function providerNamesOf(
  input: Pick<ResolveInput, 'env' | 'store'>,
  profile: string,
  baseUrl?: string,
): { mode: ProviderNames; source: 'env' | 'profile' | 'detected' | 'default' } {
  const fromEnv = envValue(input.env, 'BACKUPCTL_PROVIDER_NAMES');
  if (fromEnv) {
    const mode = parseProviderNames(fromEnv);
    if (!mode) throw new ConfigError(`invalid provider names ${JSON.stringify(fromEnv)} (from BACKUPCTL_PROVIDER_NAMES): use neutral or published`);
    return { mode, source: 'env' };
  }
  const stored = input.store.profile(profile);
  if (stored.provider_names) return { mode: stored.provider_names, source: 'profile' };
  const detected = stored.detected_provider_names;
  if (detected && baseUrl !== undefined && detected.base_url === baseUrl) return { mode: detected.provider_names, source: 'detected' };
  return { mode: DEFAULT_PROVIDER_NAMES, source: 'default' };
}

/** $BACKUPCTL_STATE_URL, else the profile's `state_url`, else none (the state folder). */
export function resolveStateUrl(input: Pick<ResolveInput, 'env' | 'store'>, profile: string): { url: string; source: 'env' | 'profile' } | undefined {
  const fromEnv = envValue(input.env, STATE_URL_ENV);
  if (fromEnv) return { url: checkStateUrl(fromEnv, STATE_URL_ENV), source: 'env' };
  const stored = input.store.profile(profile).state_url?.trim();
  if (stored) return { url: checkStateUrl(stored, `state_url of ${profileSource(input.store, profile)}`), source: 'profile' };
  return undefined;
}

export function resolveDebug(globals: Globals, env: NodeJS.ProcessEnv): boolean {
  const v = envValue(env, 'BACKUPCTL_DEBUG')?.toLowerCase();
  return globals.debug === true || v === '1' || v === 'true';
}

/**
 * Flag > environment > profile > default for every setting. Throws
 * ConfigError (exit 3) when no base URL is set or a value from the
 * environment or the profile is bad, UsageError (exit 2) for a bad flag value
 * (except --base-url, which is a configuration error like any bad base URL).
 * A missing token is not an error here: commands that need one ask the client.
 */
export function resolveSettings(input: ResolveInput): Settings {
  const profile = resolveProfileName(input.globals, input.env, input.store);
  const base = resolveBaseUrl(input, profile);
  if (!base) {
    const details = input.store.hasProfile(profile)
      ? []
      : [`  Profile "${profile}" does not exist in ${input.store.file}.`];
    throw new ConfigError(NO_BASE_URL_MESSAGE, details);
  }
  const token = resolveToken(input.env, input.store, profile);
  const names = providerNamesOf(input, profile, base.url);
  const state = resolveStateUrl(input, profile);
  return {
    profile,
    baseUrl: base.url,
    baseUrlSource: base.source,
    token: token?.token,
    tokenSource: token?.source,
    output: resolveOutput(input, profile),
    timeoutMs: resolveTimeout(input, profile),
    debug: resolveDebug(input.globals, input.env),
    configFile: input.store.file,
    providerNames: names.mode,
    providerNamesSource: names.source,
    ...(state ? { stateUrl: state.url, stateUrlSource: state.source } : {}),
  };
}
