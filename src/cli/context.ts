// The Context handed to every handler: settings, client, prompts, spinner and
// output options, each created on first use. Tests drive the built CLI, so
// this is the one place that knows how the real process is wired.
import type { Client, Context, Globals, IO, OutputOptions, Settings, Spinner } from './types.js';
import { ConfigError, InterruptedError, UsageError } from '../errors.js';
import { addSecret } from '../util/scrub.js';

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
        const { configDir, openConfig, resolveSettings } = await import('../config/index.js');
        const store = await openConfig(configDir(init.env, init.globals.configDir));
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
          throw new ConfigError(`no API token for profile "${s.profile}"`, [
            'Run `backupctl auth login` or set BACKUPCTL_TOKEN.',
          ]);
        }
        const { createClient } = await import('../http/client.js');
        return createClient({ baseUrl: s.baseUrl, token: s.token, timeoutMs: s.timeoutMs, debug: s.debug, stderr: init.io.stderr });
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
      const { confirm } = await import('@inquirer/prompts');
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
      if (!init.io.stderrIsTTY) return { update() {}, stop() {} };
      let real: Spinner | undefined;
      let stopped = false;
      let latest = text;
      void import('../output/index.js').then(async ({ createSpinner }) => {
        if (stopped) return;
        real = await createSpinner(latest, init.io);
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
      init.io.stderr.write(`warning: ${message}\n`);
    },
    async dispose() {
      if (clientP) await (await clientP.catch(() => undefined))?.close();
    },
  };
  return ctx;
}
