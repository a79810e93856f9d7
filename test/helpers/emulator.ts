// The emulator in-process for vitest: quick ticks so started backups finish
// within a test, and helpers to read what reached it.
import { afterAll, beforeAll } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions, type RecordedRequest } from '../../src/emulator/index.js';
import { runCli, tempConfigDir } from './cli.js';

/** Steps of started backups and manual snapshots in tests. */
export const TEST_TICK_MS = 20;

/** Starts an emulator (demo seed, 20 ms ticks unless told otherwise); the caller closes it. */
export function startTestEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ seed: 'demo', tickMs: TEST_TICK_MS, ...opts });
}

/**
 * Starts an emulator before the tests of the enclosing describe block and closes it
 * after them. The object returned stands for it once started.
 */
export function withEmulator(opts: EmulatorOptions = {}): Emulator {
  let current: Emulator | undefined;
  beforeAll(async () => {
    current = await startTestEmulator(opts);
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  const started = (): Emulator => {
    if (!current) throw new Error('withEmulator: the emulator is used outside its tests (before beforeAll ran)');
    return current;
  };
  return {
    get url() {
      return started().url;
    },
    get filesUrl() {
      return started().filesUrl;
    },
    get token() {
      return started().token;
    },
    get requests() {
      return started().requests;
    },
    setFaults: (rules) => started().setFaults(rules),
    clearRequests: () => started().clearRequests(),
    close: () => started().close(),
  };
}

/** Requests whose path starts with `pathPrefix`, optionally of one method. */
export function requestsTo(emu: Emulator, pathPrefix: string, method?: string): RecordedRequest[] {
  return emu.requests.filter((r) => r.path.startsWith(pathPrefix) && (method === undefined || r.method === method.toUpperCase()));
}

/** Requests that reached the API under /v1 (not the files server). */
export function apiRequests(emu: Emulator): RecordedRequest[] {
  return emu.requests.filter((r) => r.server === 'api' && r.path.startsWith('/v1'));
}

/** Requests that reached the files server. */
export function fileRequests(emu: Emulator): RecordedRequest[] {
  return emu.requests.filter((r) => r.server === 'files');
}

/** The environment that points the CLI at the emulator. */
export function emulatorEnv(emu: Emulator): { BACKUPCTL_BASE_URL: string; BACKUPCTL_TOKEN: string } {
  return { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token };
}

/** fetch() against the emulator's API with its token; `path` starts with /v1. */
export function apiFetch(emu: Emulator, path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const { json, headers, ...rest } = init;
  return fetch(`${emu.url}${path}`, {
    ...rest,
    headers: {
      Accept: 'application/json',
      Authorization: `Bearer ${emu.token}`,
      ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(headers as Record<string, string> | undefined),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
}

/**
 * An emulator for the enclosing describe block (or file), a config folder of its
 * own, and the built CLI pointed at both: `cli(args)` runs it, `sent()` lists what
 * the CLI sent (the tests' own look-ups past the CLI left out), `env()` is its environment.
 */
export function withEmulatorCli(opts: EmulatorOptions = {}) {
  const emu = withEmulator(opts);
  let cfg: { dir: string; cleanup: () => void } | undefined;
  beforeAll(() => {
    cfg = tempConfigDir();
  });
  afterAll(() => cfg?.cleanup());
  const env = () => ({ BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg!.dir });
  return {
    emu,
    env,
    cli: (args: string[], input?: string) => runCli(args, { env: env(), input }),
    sent: () => apiRequests(emu).filter((r) => String(r.headers['user-agent']).startsWith('backupctl/')),
  };
}
