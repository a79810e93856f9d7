// The token and every secret flag value stay out of stdout and stderr: on
// every error path, with --debug (flag and environment), with --dry-run, in
// auth status, and when a hostile service echoes the request (Authorization
// header, body fields) back in 401 and 422 answers. Known values go in; the
// test looks for any 8-character piece of them in what comes out. `auth token`
// is the one command whose job is to print the token, and is left out.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir, type CliResult } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { builtManifest } from '../helpers/manifest.js';
import { startEchoServer, type LocalServer, type EchoedRequest } from '../helpers/servers.js';
import { effectiveParams, flagName, apiName } from '../../src/cli/params.js';
import { redactBody } from '../../src/http/redact.js';
import type { Emulator, FaultRule } from '../../src/emulator/index.js';
import type { ManifestCommand, ParamSpec } from '../../src/contract/spec.js';

// Distinct words and hex, so that no 8 characters of one value appear in another (checked below).
const TOKEN = 'AlphaTok7f3a9c2e1b4d8a6f0e2c';
const WRONG_TOKEN = 'BravoTok0c9d8e7f6a5b4c3d2e1f';
/** What secret flags get: each command's secret params take these (and files hold them). */
const FLAG_SECRETS = {
  secret: 'CharlieSec91c3b7e5d2a4f6e8',
  password: 'DeltaPwd5e2d8f1a3c6b9d7e',
  credentialsKey: 'EchoKey33aa61f0c2d9e8b7',
  credentialsSecret: 'FoxtrotSec44bb72e1d3f0a9',
  secretFile: 'GolfFile55cc83f2e4a1b0c9',
  configPassword: 'HotelPwd66dd94a3f5b2c1d0',
};
const KNOWN = [TOKEN, WRONG_TOKEN, ...Object.values(FLAG_SECRETS)];

/** Any 8 characters in a row of a known value (auth status shows the last 4 of the token, by design). */
function leaksIn(text: string): string[] {
  const found: string[] = [];
  for (const secret of KNOWN) {
    for (let i = 0; i + 8 <= secret.length; i++) {
      if (text.includes(secret.slice(i, i + 8))) {
        found.push(secret);
        break;
      }
    }
  }
  return found;
}

it('the known values share no 8-character piece, so a finding names the one that leaked', () => {
  for (const a of KNOWN) for (const b of KNOWN) if (a !== b) for (let i = 0; i + 8 <= a.length; i++) expect(b).not.toContain(a.slice(i, i + 8));
});

let invocations = 0;
let leaks = 0;
function expectNothingLeaked(r: CliResult, what: string): void {
  invocations++;
  const found = leaksIn(r.stdout + r.stderr);
  leaks += found.length;
  expect(found, `${what} printed a secret:\n${r.stdout}\n${r.stderr}`).toEqual([]);
}

let files: string;
let credsFile: string;
let secretFile: string;
let jobFile: string;
/** A text file that holds nothing secret (a public key): sent as it is, and that is fine. */
let publicTextFile: string;

beforeAll(() => {
  files = mkdtempSync(path.join(tmpdir(), 'backupctl-secrets-'));
  credsFile = path.join(files, 'credentials.json');
  writeFileSync(credsFile, JSON.stringify({ key: FLAG_SECRETS.credentialsKey, secret: FLAG_SECRETS.credentialsSecret, region: 'eu-west-1' }));
  secretFile = path.join(files, 'secret.txt');
  writeFileSync(secretFile, `${FLAG_SECRETS.secretFile}\n`);
  jobFile = path.join(files, 'job.json');
  writeFileSync(jobFile, JSON.stringify({ name: 'from-file', config: { mysql_password: FLAG_SECRETS.configPassword } }));
  publicTextFile = path.join(files, 'public.pem');
  writeFileSync(publicTextFile, '-----BEGIN PUBLIC KEY-----\nnot-secret\n-----END PUBLIC KEY-----\n');
});

afterAll(() => {
  rmSync(files, { recursive: true, force: true });
  console.info(`secrets: ${invocations} invocations checked, ${leaks} secrets found in output`);
});

// ---------------------------------------------------------------------------
// Filling in any command from its spec

/** Whether --debug and --dry-run mask this param's value (the same rule decides what scrub() learns). */
function isSecret(p: ParamSpec): boolean {
  const body: Record<string, unknown> = {};
  let cur = body;
  const parts = apiName(p).split('.');
  for (const part of parts.slice(0, -1)) cur = (cur[part] = {}) as Record<string, unknown>;
  cur[parts[parts.length - 1]!] = p.type === 'kv' ? { mysql_password: 'probe' } : 'probe';
  return p.in === 'body' && JSON.stringify(redactBody(body)).includes('****');
}

function valueFor(p: ParamSpec): string[] {
  const secret = isSecret(p);
  const leaf = apiName(p).split('.').pop()!;
  switch (p.type) {
    case 'string':
      // An id flag that also takes names (src/cli/resolve.ts) gets an id: a name would be looked up.
      if (p.names) return ['1'];
      // A frequency is h<hours> or m<minutes> (issue 30): any other text is refused before it is sent.
      if (!secret && leaf === 'frequency') return ['h24'];
      if (!secret) return ['plain-value'];
      return [/pass/i.test(leaf) ? FLAG_SECRETS.password : FLAG_SECRETS.secret];
    case 'integer':
    case 'number':
      return [String(Math.min(Math.max(p.min ?? 1, 1), p.max ?? Number.MAX_SAFE_INTEGER))];
    case 'enum':
    case 'sort':
      return [p.values![0]!];
    case 'uuid':
      return ['3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c'];
    case 'datetime':
      return ['2026-01-01T00:00:00Z'];
    case 'duration':
      return ['30s'];
    case 'cron':
      return ['0 2 * * *'];
    case 'timezone':
      return ['UTC'];
    case 'url':
      return ['https://s3.example.com'];
    case 'tags':
      return [(p.values ?? ['manual'])[0]!];
    case 'kv':
      return [`mysql_password=${FLAG_SECRETS.configPassword}`, 'root_path=/'];
    case 'storage':
      return ['1'];
    case 'json-file':
      return [secret ? credsFile : jobFile];
    case 'text-file':
      return [secret ? secretFile : publicTextFile];
    case 'boolean':
      return [];
  }
}

/**
 * argv for a command with every positional and every valued flag filled, secret ones with
 * known secrets. Two flags that feed one field (`--secret` and `--secret-file`) exclude each
 * other, so there is one variant per flag of such a pair.
 */
const HANDLER_ARGS: Record<string, string[]> = {
  'jobs create': ['--agent', '--cron', '0 2 * * *'],
  'jobs backup download': ['--latest'],
  // The job is checked by the handler (the request goes to /backups/{id}); one of <backup> and --all.
  'jobs backup get': ['3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c'],
  'jobs backup delete': ['--all'],
};

function argVariants(spec: ManifestCommand): Array<{ args: string[]; secrets: number }> {
  const params = effectiveParams(spec).filter((p) => p.type !== 'boolean' && p.in !== 'local');
  const byField = new Map<string, ParamSpec[]>();
  for (const p of params) byField.set(apiName(p), [...(byField.get(apiName(p)) ?? []), p]);
  const count = Math.max(...[...byField.values()].map((g) => g.length), 1);
  // And one with each secret file alone, so that what the file holds is what is sent.
  const files = params.filter((p) => p.type === 'json-file' && isSecret(p));
  const variants: Array<{ pick: number; without?: string }> = [
    ...Array.from({ length: count }, (_, pick) => ({ pick })),
    ...files.map((f) => ({ pick: 0, without: `${apiName(f)}.` })),
  ];
  return variants.map(({ pick, without }) => {
    const args = [...spec.path];
    // Flags a handler reads itself (not sent as such) that a valid call still needs.
    args.push(...(HANDLER_ARGS[spec.path.join(' ')] ?? []));
    for (const p of effectiveParams(spec)) if (p.in === 'local' && p.required && p.type === 'boolean') args.push(`--${flagName(p)}`);
    let secrets = 0;
    for (const p of params) {
      const group = byField.get(apiName(p))!;
      if (group[Math.min(pick, group.length - 1)] !== p) continue;
      if (without && apiName(p).startsWith(without)) continue;
      if (isSecret(p)) secrets++;
      const values = valueFor(p);
      if (p.positional) args.push(values[0]!);
      else for (const v of values) args.push(`--${flagName(p)}`, v);
    }
    return { args, secrets };
  });
}

const endpointCommands = () => builtManifest().commands.filter((c) => c.method && c.endpoint && !c.local);
const secretCommands = () => endpointCommands().filter((c) => effectiveParams(c).some(isSecret));

// ---------------------------------------------------------------------------

interface Case {
  name: string;
  args: string[];
  code: number;
  env?: Record<string, string | undefined>;
  input?: string;
  faults?: FaultRule[];
  /** Point the CLI at a port where nothing listens. */
  refused?: boolean;
}

const RETRY_ENV = { BACKUPCTL_RETRY_BASE: '10ms', BACKUPCTL_RETRY_MAX_WAIT: '20ms' };

/** Every exit code a request command can end with, each plain and with --debug. */
const ERROR_PATHS: Case[] = [
  { name: 'success', args: ['ssh-keys', 'list'], code: 0 },
  { name: 'success, record', args: ['servers', 'list', '--json', '--all'], code: 0 },
  { name: '422 from the service', args: ['servers', 'add', '--name', 'x', '--host', '203.0.113.1', '--user', 'root', '--key', '999999'], code: 1 },
  { name: 'bad flag value', args: ['ssh-keys', 'list', '--page-size', '5'], code: 2 },
  { name: 'unknown flag', args: ['ssh-keys', 'list', '--nope'], code: 2 },
  { name: 'confirmation needed', args: ['ssh-keys', 'delete', '1'], code: 2 },
  { name: 'bad base URL', args: ['ssh-keys', 'list'], code: 3, env: { BACKUPCTL_BASE_URL: 'http://203.0.113.7' } },
  { name: 'bad timeout setting', args: ['ssh-keys', 'list'], code: 3, env: { BACKUPCTL_TIMEOUT: 'soon' } },
  { name: 'bad retry setting', args: ['ssh-keys', 'list'], code: 3, env: { BACKUPCTL_RETRY_MAX_WAIT: 'later' } },
  { name: '401, a wrong token', args: ['ssh-keys', 'list'], code: 4, env: { BACKUPCTL_TOKEN: WRONG_TOKEN } },
  { name: '404', args: ['ssh-keys', 'rename', '999999', 'x'], code: 5 },
  { name: '503 to the end', args: ['ssh-keys', 'list'], code: 6, faults: [{ fault: '503' }] },
  { name: 'connection refused', args: ['ssh-keys', 'list'], code: 6, refused: true },
  { name: 'timeout', args: ['ssh-keys', 'list', '--timeout', '200ms'], code: 6, faults: [{ fault: 'timeout' }] },
  { name: 'POST may have arrived', args: ['ssh-keys', 'create', '--name', 'k'], code: 7, faults: [{ fault: '500', method: 'POST' }] },
  { name: 'POST cut off', args: ['ssh-keys', 'create', '--name', 'k'], code: 7, faults: [{ fault: 'truncated', method: 'POST' }] },
  { name: 'nothing matched', args: ['servers', 'list', '--name', 'no-such-server-anywhere', '--fail-if-empty'], code: 9 },
];

async function runCase(c: Case, debug: 'none' | 'flag' | 'env'): Promise<void> {
  const emu = await startTestEmulator({ token: TOKEN, ...(c.faults ? { faults: c.faults } : {}) });
  const cfg = tempConfigDir();
  try {
    let base = emu.url;
    if (c.refused) {
      const gone = await startTestEmulator({ seed: 'empty' });
      base = gone.url;
      await gone.close();
    }
    const args = debug === 'flag' ? [...c.args, '--debug'] : c.args;
    const r = await runCli(args, {
      env: {
        BACKUPCTL_BASE_URL: base,
        BACKUPCTL_TOKEN: TOKEN,
        BACKUPCTL_CONFIG_DIR: cfg.dir,
        ...RETRY_ENV,
        ...(debug === 'env' ? { BACKUPCTL_DEBUG: '1' } : {}),
        ...c.env,
      },
      input: c.input,
    });
    expect(r.code, r.stderr).toBe(c.code);
    if (debug !== 'none' && c.code !== 2 && c.code !== 3) expect(r.stderr).toContain('[debug] > ');
    expectNothingLeaked(r, `${c.name} (${debug})`);
  } finally {
    await emu.close();
    cfg.cleanup();
  }
}

describe.concurrent('every error path, with and without --debug', () => {
  for (const c of ERROR_PATHS) {
    it(`${c.name}: exit ${c.code}`, () => runCase(c, 'none'));
    it(`${c.name}: exit ${c.code}, --debug`, () => runCase(c, 'flag'));
  }
  it('BACKUPCTL_DEBUG=1 on a 401', () => runCase(ERROR_PATHS.find((c) => c.code === 4)!, 'env'));
  it('BACKUPCTL_DEBUG=1 on a POST that may have arrived', () => runCase(ERROR_PATHS.find((c) => c.code === 7)!, 'env'));
});

describe('a hostile service that echoes the request in 401 and 422 answers', () => {
  let echo: LocalServer & { received: EchoedRequest[] };
  let cfg: ReturnType<typeof tempConfigDir>;
  beforeAll(async () => {
    // GETs and DELETEs are refused as unauthenticated, the rest as invalid: both quote everything sent.
    echo = await startEchoServer((method) => (method === 'GET' || method === 'DELETE' ? 401 : 422));
    cfg = tempConfigDir();
  });
  afterAll(async () => {
    await echo.close();
    cfg.cleanup();
  });
  const cli = (args: string[], extra: Record<string, string> = {}, input?: string) =>
    runCli(args, { env: { BACKUPCTL_BASE_URL: echo.url, BACKUPCTL_TOKEN: TOKEN, BACKUPCTL_CONFIG_DIR: cfg.dir, ...extra }, input });

  const requests: Array<{ name: string; args: string[]; code: number }> = [
    { name: 'list, 401 quoting the Authorization header', args: ['ssh-keys', 'list'], code: 4 },
    { name: 'list as JSON', args: ['ssh-keys', 'list', '--json'], code: 4 },
    { name: 'servers code', args: ['servers', 'code', '--key', '1'], code: 4 },
    { name: 'delete', args: ['ssh-keys', 'delete', '3', '--yes'], code: 4 },
    { name: 'create, 422 quoting the body', args: ['ssh-keys', 'create', '--name', 'k'], code: 1 },
    { name: 'servers add', args: ['servers', 'add', '--name', 'x', '--host', 'h', '--user', 'u', '--key', '1'], code: 1 },
    { name: 'rename', args: ['ssh-keys', 'rename', '3', 'new-name'], code: 1 },
  ];
  for (const r of requests) {
    for (const debug of [false, true]) {
      it(`${r.name}${debug ? ', --debug' : ''}: exit ${r.code}`, async () => {
        const before = echo.received.length;
        const out = await cli(debug ? [...r.args, '--debug'] : r.args);
        expect(out.code, out.stderr).toBe(r.code);
        // The service did get the token, and quoted it back.
        expect(echo.received.length).toBeGreaterThan(before);
        expect(echo.received[echo.received.length - 1]!.authorization).toBe(`Bearer ${TOKEN}`);
        expect(out.stderr).toContain('****');
        expectNothingLeaked(out, r.name);
      });
    }
  }

  it('auth login --with-token, refused with the token quoted back, plain and --debug', async () => {
    for (const extra of [[], ['--debug']]) {
      const out = await runCli(['auth', 'login', '--with-token', '--base-url', echo.url, ...extra], {
        env: { BACKUPCTL_CONFIG_DIR: cfg.dir },
        input: `${TOKEN}\n`,
      });
      expect(out.code, out.stderr).toBe(4);
      expect(echo.received[echo.received.length - 1]!.authorization).toBe(`Bearer ${TOKEN}`);
      expectNothingLeaked(out, 'auth login against an echoing service');
    }
  });

  it('secret flags of every command that has them, answered with a 422 quoting each field', async () => {
    const commands = secretCommands();
    const runs = commands.flatMap((spec) => argVariants(spec).flatMap((v) => [[], ['--debug']].map((extra) => ({ spec, ...v, extra }))));
    for (const { spec, args, secrets, extra } of runs) {
      expect(secrets).toBeGreaterThan(0);
      const before = echo.received.length;
      const out = await cli([...args, ...extra, '--yes']);
      // The request was sent, carrying the secrets; the service quoted them back.
      expect(echo.received.length, `${spec.path.join(' ')}: ${out.stderr}`).toBeGreaterThan(before);
      // (A 422 that quotes a provider field makes backupctl probe the dialect once: the secrets are in the request
      // before that probe, not in the last one.)
      expect(echo.received.slice(before).some((r) => KNOWN.some((k) => r.body.includes(k)))).toBe(true);
      expect([1, 4]).toContain(out.code);
      expectNothingLeaked(out, `${args.join(' ')} ${extra.join(' ')}`);
    }
    console.info(
      `secrets: secret flags checked on ${commands.length} commands, ${runs.length} runs (${commands.map((c) => c.path.join(' ')).join(', ') || 'none yet'})`,
    );
  });
});

describe('--dry-run of every command that sends a request', () => {
  it('prints the request with the token as $BACKUPCTL_TOKEN and secret fields masked', async () => {
    const cfg = tempConfigDir();
    try {
      const commands = endpointCommands();
      expect(commands.length).toBeGreaterThan(5);
      const results = await Promise.all(
        commands.flatMap((spec) =>
          argVariants(spec).map(async ({ args }) => {
            const out = await runCli(['--dry-run', ...args], {
              env: { BACKUPCTL_BASE_URL: 'https://api.example.com', BACKUPCTL_TOKEN: TOKEN, BACKUPCTL_CONFIG_DIR: cfg.dir },
            });
            return { spec, out };
          }),
        ),
      );
      for (const { spec, out } of results) {
        expect(out.code, `${spec.path.join(' ')}: ${out.stderr}`).toBe(0);
        expect(out.stdout).toContain('$BACKUPCTL_TOKEN');
        expectNothingLeaked(out, `${spec.path.join(' ')} --dry-run`);
      }
    } finally {
      cfg.cleanup();
    }
  });
});

describe('auth status, config and profiles', () => {
  let emu: Emulator;
  let cfg: ReturnType<typeof tempConfigDir>;
  beforeAll(async () => {
    emu = await startTestEmulator({ token: TOKEN });
    cfg = tempConfigDir();
  });
  afterAll(async () => {
    await emu.close();
    cfg.cleanup();
  });
  const cli = (args: string[], extra: Record<string, string | undefined> = {}, input?: string) =>
    runCli(args, { env: { BACKUPCTL_CONFIG_DIR: cfg.dir, ...extra }, input });

  it('with the token in the environment', async () => {
    for (const args of [['auth', 'status'], ['auth', 'status', '--json'], ['auth', 'status', '-o', 'tsv'], ['auth', 'status', '--debug']]) {
      const out = await cli(args, { BACKUPCTL_TOKEN: TOKEN, BACKUPCTL_BASE_URL: emu.url });
      expect(out.code).toBe(0);
      expectNothingLeaked(out, args.join(' '));
    }
  });

  it('with the token saved by auth login, plain and --debug', async () => {
    const login = await cli(['auth', 'login', '--with-token', '--base-url', emu.url, '--debug'], {}, `${TOKEN}\n`);
    expect(login.code, login.stderr).toBe(0);
    expectNothingLeaked(login, 'auth login --debug');
    for (const args of [
      ['auth', 'status'],
      ['auth', 'status', '--json'],
      ['config', 'list'],
      ['config', 'list', '--json'],
      ['profiles', 'list', '--json'],
      ['ssh-keys', 'list', '--debug'],
      ['config', 'get', 'token'],
      ['config', 'set', 'token', WRONG_TOKEN],
    ]) {
      const out = await cli(args);
      expectNothingLeaked(out, args.join(' '));
    }
  });

  it('the token is never accepted as a flag, and the refusal does not repeat it', async () => {
    const before = emu.requests.length;
    for (const args of [
      ['--token', TOKEN, 'ssh-keys', 'list'],
      ['ssh-keys', 'list', '--token', TOKEN],
      ['ssh-keys', 'list', `--token=${TOKEN}`],
      ['auth', 'login', '--token', TOKEN, '--base-url', emu.url],
      ['--api-token', TOKEN, 'auth', 'status'],
    ]) {
      const out = await cli(args, { BACKUPCTL_BASE_URL: emu.url });
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/unknown option/);
      expectNothingLeaked(out, args.join(' '));
    }
    // Refused before anything was sent.
    expect(emu.requests.length).toBe(before);
  });
});

describe('totals', () => {
  it('at least 50 invocations were checked, with no secret in any output', () => {
    expect(invocations).toBeGreaterThanOrEqual(50);
    expect(leaks).toBe(0);
  });
});
