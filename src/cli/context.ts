// The Context handed to every handler: settings, client, prompts, spinner and
// output options, each created on first use. Tests drive the built CLI, so
// this is the one place that knows how the real process is wired.
import type { Client, Context, Globals, IO, OutputOptions, Settings, Spinner } from '../contract/context.js';
import { ApiError, ConfigError, InterruptedError, UsageError, noTokenError } from '../errors.js';
import { addSecret } from '../util/scrub.js';
import { writeServiceLine } from '../output/sanitize.js';
import type { RetryPolicy } from '../http/retry.js';
import type { ProviderNames } from '../util/providers.js';

export interface ContextInit {
  globals: Globals;
  io: IO;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  output: OutputOptions;
}

export function createContext(init: ContextInit): Context & { dispose(): Promise<void> } {
  let settingsP: Promise<Settings> | undefined;
  let clientP: Promise<Client> | undefined;
  const ctx: Context & { dispose(): Promise<void> } = {
    globals: init.globals,
    io: init.io,
    env: init.env,
    signal: init.signal,
    output: init.output,
    settings() {
      settingsP ??= (async () => {
        const [{ resolveSettings }, store] = await Promise.all([import('../config/index.js'), openContextConfig(ctx)]);
        const s = resolveSettings({ globals: init.globals, env: init.env, store });
        if (s.token) addSecret(s.token);
        return s;
      })();
      return settingsP;
    },
    client() {
      clientP ??= (async () => {
        const s = await ctx.settings();
        if (!s.token) {
          throw noTokenError(s.profile);
        }
        const [{ createClient }, retry, limits] = await Promise.all([
          import('../http/client.js'),
          retryPolicyFromEnv(init.env),
          clientLimitsFromEnv(init.env),
        ]);
        const client = createClient({
          baseUrl: s.baseUrl,
          token: s.token,
          timeoutMs: s.timeoutMs,
          debug: s.debug,
          stderr: init.io.stderr,
          retry,
          ...limits,
        });
        const { withDialect } = await import('./dialect.js');
        return withDialect(withTokenHint(client, tokenHint(s)), {
          mode: s.providerNames,
          source: s.providerNamesSource ?? 'profile',
          remember: (mode) => rememberDialect(ctx, s, mode),
          debug: s.debug ? (line) => ctx.note(`debug: ${line}`) : undefined,
        });
      })();
      return clientP;
    },
    async confirm(question: string) {
      if (init.globals.yes) return true;
      if (!init.io.stdinIsTTY) {
        throw new UsageError(`${question.replace(/\?$/, '')}: confirmation needed, and standard input is not a terminal`, [
          'Pass --yes to confirm in scripts. Nothing was sent.',
        ]);
      }
      const { confirm } = await import('../util/prompts.js');
      try {
        return await confirm(
          { message: question, default: false },
          { input: init.io.stdin as NodeJS.ReadableStream, output: init.io.stderr as NodeJS.WritableStream, signal: init.signal },
        );
      } catch (err) {
        if ((err as Error).name === 'ExitPromptError' || (err as Error).name === 'AbortPromptError') throw new InterruptedError();
        throw err;
      }
    },
    spinner(text: string): Spinner {
      const style = init.output.animation;
      if (!style || !init.io.stderrIsTTY) return { update() {}, stop() {} };
      let real: Spinner | undefined;
      let stopped = false;
      let latest = text;
      void import('../output/index.js').then(async ({ createSpinner }) => {
        if (stopped) return;
        real = await createSpinner(latest, init.io, style);
        if (stopped) real.stop();
      });
      return {
        update(t: string) {
          latest = t;
          real?.update(t);
        },
        stop() {
          stopped = true;
          real?.stop();
        },
      };
    },
    warn(message: string) {
      writeServiceLine(init.io.stderr, `warning: ${message}`);
    },
    note(message: string) {
      writeServiceLine(init.io.stderr, message);
    },
    async dispose() {
      // Every answer has been read by now. The keep-alive connections start closing but are
      // not waited for: the CLI exits next, and waiting cost 3-4 ms of every command; an
      // in-process caller (the build's training run) sees them close moments later.
      const client = clientP;
      if (client) setImmediate(() => void client.then((c) => c.close()).catch(() => undefined));
    },
  };
  return ctx;
}

/**
 * The config of this command's folder (--config-dir, BACKUPCTL_CONFIG_DIR, …), with a
 * warning on stderr when it holds a token other local users can reach (the one place
 * every command that reads the config goes through).
 */
export async function openContextConfig(ctx: Pick<Context, 'env' | 'globals' | 'warn'>): Promise<import('../config/index.js').ConfigStore> {
  const { configDir, exposureWarnings, openConfig } = await import('../config/index.js');
  const store = await openConfig(configDir(ctx.env, ctx.globals.configDir));
  for (const warning of exposureWarnings(store)) ctx.warn(warning);
  return store;
}

/**
 * The retry waits, from the environment: BACKUPCTL_RETRY_BASE is the first
 * backoff (default 500ms, doubling each retry), BACKUPCTL_RETRY_MAX_WAIT the
 * longest single wait between retries, Retry-After included (default 30s).
 * Read here and only here, so every request of a command waits the same way;
 * a bad value is a configuration error (exit 3) naming the variable.
 */
export async function retryPolicyFromEnv(env: NodeJS.ProcessEnv): Promise<RetryPolicy> {
  const [{ defaultRetryPolicy }, { envValue, parseDuration }] = await Promise.all([
    import('../http/retry.js'),
    import('../config/index.js'),
  ]);
  const read = (name: string, fallback: number): number => {
    const text = envValue(env, name);
    if (text === undefined) return fallback;
    try {
      return parseDuration(text);
    } catch (err) {
      throw new ConfigError(`${(err as Error).message} (from ${name})`);
    }
  };
  return {
    ...defaultRetryPolicy,
    baseDelayMs: read('BACKUPCTL_RETRY_BASE', defaultRetryPolicy.baseDelayMs),
    maxDelayMs: read('BACKUPCTL_RETRY_MAX_WAIT', defaultRetryPolicy.maxDelayMs),
  };
}

/**
 * The client's bounds, from the environment: BACKUPCTL_MAX_ANSWER_SIZE, the largest answer
 * read (64MiB by default, at most 500MiB, below V8's longest string), and BACKUPCTL_MAX_PAGES, the
 * most pages one walk reads (10000). A bad value is a configuration error (exit 3).
 */
export async function clientLimitsFromEnv(env: NodeJS.ProcessEnv): Promise<{ maxAnswerBytes: number; maxPages: number }> {
  const [{ DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_PAGES, MAX_ANSWER_BYTES_LIMIT }, { envValue, parseSize }] = await Promise.all([
    import('../http/client.js'),
    import('../config/index.js'),
  ]);
  let maxAnswerBytes = DEFAULT_MAX_ANSWER_BYTES;
  const size = envValue(env, 'BACKUPCTL_MAX_ANSWER_SIZE');
  if (size !== undefined) {
    try {
      maxAnswerBytes = parseSize(size);
    } catch (err) {
      throw new ConfigError(`${(err as Error).message} (from BACKUPCTL_MAX_ANSWER_SIZE)`);
    }
    if (maxAnswerBytes > MAX_ANSWER_BYTES_LIMIT) {
      throw new ConfigError(`invalid size ${JSON.stringify(size)} (from BACKUPCTL_MAX_ANSWER_SIZE): at most 500MiB (Node.js cannot hold a longer text)`);
    }
  }
  let maxPages = DEFAULT_MAX_PAGES;
  const pages = envValue(env, 'BACKUPCTL_MAX_PAGES');
  if (pages !== undefined) {
    maxPages = /^\s*\d+\s*$/.test(pages) ? Number(pages) : NaN;
    if (!Number.isSafeInteger(maxPages) || maxPages < 1) {
      throw new ConfigError(`invalid number of pages ${JSON.stringify(pages)} (from BACKUPCTL_MAX_PAGES): use a whole number, 1 or more`);
    }
  }
  return { maxAnswerBytes, maxPages };
}

/** What to do about a refused token (401), by where the token came from. */
export function tokenHint(s: Pick<Settings, 'profile' | 'tokenSource' | 'configFile'>): string[] {
  if (s.tokenSource === 'env') {
    return [
      '  The token came from BACKUPCTL_TOKEN (the environment), and the service refused it.',
      '  Check its value, or unset it and run `backupctl auth login`.',
    ];
  }
  return [
    `  The token came from profile "${s.profile}" (${s.configFile}), and the service refused it.`,
    `  Log in again: backupctl auth login${s.profile === 'default' ? '' : ` --profile ${s.profile}`}`,
  ];
}

/**
 * Keeps the spelling a probe found in the profile, for this base URL (src/cli/dialect.ts), when
 * the profile is in the config file (an environment-only run has none to keep it in). The write
 * is conf's atomic one under the config lock, waiting a second at most: a config that cannot be
 * written (locked, read-only) is left as it was, and the command goes on (the next one probes again).
 */
async function rememberDialect(ctx: Context, s: Settings, mode: ProviderNames): Promise<void> {
  try {
    const store = await openContextConfig({ ...ctx, warn: () => undefined });
    if (!store.hasProfile(s.profile)) return;
    await store.update(
      (data) => {
        const p = Object.hasOwn(data.profiles, s.profile) ? data.profiles[s.profile] : undefined;
        if (p && !p.provider_names) p.detected_provider_names = { base_url: s.baseUrl, provider_names: mode };
      },
      { waitMs: 1000 },
    );
  } catch (err) {
    if (s.debug) ctx.note(`debug: could not remember the provider names in ${s.configFile}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The client, with `hint` added to every 401 it ends in (the single place that knows where the token came from). */
function withTokenHint(client: Client, hint: string[]): Client {
  const add = (err: unknown): never => {
    if (err instanceof ApiError && err.status === 401) err.details.push(...hint);
    throw err;
  };
  return {
    request: (req, opts) => client.request(req, opts).catch(add),
    async *pages(req, opts) {
      try {
        yield* client.pages(req, opts);
      } catch (err) {
        add(err);
      }
    },
    close: () => client.close(),
  };
}
