// The emulator in-process for vitest: quick ticks so started backups finish
// within a test, and helpers to read what reached it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions, type RecordedRequest } from '../../src/emulator/index.js';
import { runCli, tempConfigDir, type CliResult } from './cli.js';

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

type Env = Record<string, string | undefined>;
/** A job or backup record as the emulator's API answers it (the fields the tests read, and any other). */
type ApiRecord = { id: string; name: string; created_at: string; files: Array<{ name: string }>; [field: string]: any };

/** The records of the emulator's jobs (the seeds hold fewer than a page of 100). */
export async function jobsOf(emu: Emulator): Promise<ApiRecord[]> {
  return ((await (await apiFetch(emu, '/v1/jobs?page_size=100')).json()) as { data: ApiRecord[] }).data;
}

/** The id of the job named `name`. */
export async function jobIdOf(emu: Emulator, name: string): Promise<string> {
  const job = (await jobsOf(emu)).find((j) => j.name === name);
  if (!job) throw new Error(`no job named "${name}" in the emulator`);
  return job.id;
}

/**
 * Every backup of the job named `job`, page by page, in the API's order for `query`
 * (e.g. 'sort=created_at': oldest first; without it the service's own order).
 */
export async function backupsOf(emu: Emulator, job: string, query = ''): Promise<ApiRecord[]> {
  const id = await jobIdOf(emu, job);
  const out: ApiRecord[] = [];
  for (let page = 1; ; page++) {
    const res = await apiFetch(emu, `/v1/jobs/${id}/backups?page_size=100&page=${page}${query ? `&${query}` : ''}`);
    const data = ((await res.json()) as { data: ApiRecord[] }).data;
    out.push(...data);
    if (data.length < 100) return out;
  }
}

export interface SessionOptions extends EmulatorOptions {
  /** How long one `cli()` run may take before it is killed (default 40 s). */
  timeoutMs?: number;
  /** More environment for every run, read at each call (e.g. a TMPDIR the file makes in its own beforeAll). */
  env?: () => Env;
  /** A new config and state folder for each test (removed after it) instead of one for all of them. */
  foldersPerTest?: boolean;
}

/**
 * The set-up most e2e files share: an emulator (demo seed, 20 ms ticks unless told
 * otherwise), a config folder and a state folder of their own, started before the tests of the
 * enclosing describe block (or file) and closed and removed after them, and the built CLI
 * pointed at all three.
 *
 * `emu` stands for the emulator once started (it can be destructured at collection time);
 * `cfg` and `state` are getters, read them inside hooks and tests. `env(extra)` is the CLI's
 * environment (`extra` last; a value `undefined` removes a variable); `cli(args, extra, timeoutMs)`
 * runs the CLI with it. `jobs()` and `backupsOf(job)` read the emulator's API past the CLI.
 */
export function emulatorSession(options: SessionOptions = {}) {
  const { timeoutMs: defaultTimeout = 40_000, env: moreEnv, foldersPerTest = false, ...emulatorOptions } = options;
  const emu = withEmulator(emulatorOptions);
  let cfg: { dir: string; cleanup: () => void } | undefined;
  let state: string | undefined;
  const make = () => {
    cfg = tempConfigDir();
    state = mkdtempSync(path.join(tmpdir(), 'backupctl-state-'));
  };
  // Both folders go even when the emulator never started or a test failed.
  const remove = () => {
    try {
      cfg?.cleanup();
    } finally {
      if (state) rmSync(state, { recursive: true, force: true });
      cfg = undefined;
      state = undefined;
    }
  };
  if (foldersPerTest) {
    beforeEach(make);
    afterEach(remove);
  } else {
    beforeAll(make);
    afterAll(remove);
  }
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`emulatorSession: ${what} is used outside its tests (before the hook that makes it ran)`);
    return value;
  };
  const env = (extra: Env = {}): Env => ({
    BACKUPCTL_BASE_URL: emu.url,
    BACKUPCTL_TOKEN: emu.token,
    BACKUPCTL_CONFIG_DIR: ready(cfg, 'the config folder').dir,
    XDG_STATE_HOME: ready(state, 'the state folder'),
    ...moreEnv?.(),
    ...extra,
  });
  return {
    emu,
    /** The config folder (BACKUPCTL_CONFIG_DIR). */
    get cfg() {
      return ready(cfg, 'the config folder');
    },
    /** The state folder (XDG_STATE_HOME). */
    get state() {
      return ready(state, 'the state folder');
    },
    env,
    cli: (args: string[], extra: Env = {}, timeoutMs = defaultTimeout): Promise<CliResult> => runCli(args, { env: env(extra), timeoutMs }),
    jobs: () => jobsOf(emu),
    backupsOf: (job: string, query = '') => backupsOf(emu, job, query),
  };
}

/**
 * emulatorSession in the shape of the files that feed the CLI standard input: `cli(args, input)`
 * runs it (killed after 20 s unless `timeoutMs` says otherwise), `sent()` lists what the CLI sent
 * (the tests' own look-ups past the CLI left out), `env()` is its environment.
 */
export function withEmulatorCli(opts: SessionOptions = {}) {
  const session = emulatorSession(opts);
  const { emu, env } = session;
  return {
    emu,
    env,
    session,
    cli: (args: string[], input?: string) => runCli(args, { env: env(), input, timeoutMs: opts.timeoutMs ?? 20_000 }),
    sent: () => apiRequests(emu).filter((r) => String(r.headers['user-agent']).startsWith('backupctl/')),
  };
}

