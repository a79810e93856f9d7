// The local commands (auth, profiles, config) run as handlers against a temp
// config folder. What matters here: the token never shows, bad values are
// refused before anything is written, and login saves only a verified token.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, stat } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import type { CommandInput, Result } from '../../src/contract/context.js';
import { ExitCode } from '../../src/errors.js';
import { openConfig } from '../../src/config/index.js';
import { handlers as auth, module as authModule } from '../../src/commands/auth.js';
import { handlers as profiles, module as profilesModule } from '../../src/commands/profiles.js';
import { handlers as config, module as configModule } from '../../src/commands/config.js';
import { fakeContext, makeTempDir, removeDir, writeConfig } from './config-helpers.js';

const LONG_TOKEN = 'secret-token-abcdef-9876';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

const input = (values: Record<string, unknown> = {}): CommandInput => ({ spec: undefined as never, values, request: undefined });

async function failure(p: Promise<unknown>): Promise<{ exitCode: number; message: string; details: string[] }> {
  return p.then(
    () => {
      throw new Error('expected the command to fail');
    },
    (err: { exitCode: number; message: string; details: string[] }) => err,
  );
}

function recordOf(result: Result): Record<string, unknown> {
  if (result.kind !== 'record') throw new Error(`expected a record, got ${result.kind}`);
  return result.record as Record<string, unknown>;
}

describe('command specs', () => {
  it('every command is local (except auth login), has examples and a handler that exists', () => {
    const all = [
      [authModule, auth],
      [profilesModule, profiles],
      [configModule, config],
    ] as const;
    for (const [mod, handlers] of all) {
      for (const spec of mod.commands) {
        expect(spec.examples.length, spec.path.join(' ')).toBeGreaterThan(0);
        expect(handlers[spec.handler!], spec.path.join(' ')).toBeTypeOf('function');
        expect(spec.local === true, spec.path.join(' ')).toBe(spec.path.join(' ') !== 'auth login');
        for (const p of spec.params) if (p.positional) expect(p.in).toBe('local');
      }
    }
  });
});

describe('auth status / token / logout', () => {
  it('status shows the masked token only, and where things came from', async () => {
    await writeConfig(dir, { current_profile: 'work', profiles: { work: { base_url: 'https://api.example.com', token: LONG_TOKEN } } });
    const ctx = fakeContext({ configDir: dir });
    const result = await auth.status!(input(), ctx);
    const record = recordOf(result);
    expect(record).toMatchObject({
      profile: 'work',
      base_url: 'https://api.example.com',
      base_url_from: 'profile',
      token: '****9876',
      token_from: 'profile',
      config_file: join(dir, 'config.json'),
    });
    expect(JSON.stringify(result)).not.toContain(LONG_TOKEN);
  });

  it('status prefers BACKUPCTL_TOKEN and still masks it', async () => {
    const ctx = fakeContext({ configDir: dir, env: { BACKUPCTL_TOKEN: 'env-only-token-xyz1', BACKUPCTL_BASE_URL: 'http://127.0.0.1:9' } });
    const record = recordOf(await auth.status!(input(), ctx));
    expect(record).toMatchObject({ token: '****xyz1', token_from: 'env', base_url_from: 'env' });
  });

  it('status without a token is exit 3 and says how to log in', async () => {
    const ctx = fakeContext({ configDir: dir, env: { BACKUPCTL_BASE_URL: 'https://api.example.com' } });
    const err = await failure(auth.status!(input(), ctx));
    expect(err.exitCode).toBe(ExitCode.config);
    expect(err.message).toBe('no API token for profile "default"');
    expect(err.details[0]).toContain('backupctl auth login');
  });

  it('token prints the real token; logout removes it', async () => {
    await writeConfig(dir, { profiles: { default: { base_url: 'https://api.example.com', token: LONG_TOKEN } } });
    const ctx = fakeContext({ configDir: dir });
    expect(await auth.token!(input(), ctx)).toEqual({ kind: 'text', text: `${LONG_TOKEN}\n` });
    expect(await auth.logout!(input(), ctx)).toMatchObject({ kind: 'done', message: 'Removed the token of profile default.' });
    expect((await openConfig(dir)).profile('default')).toEqual({ base_url: 'https://api.example.com' });
    expect(await auth.logout!(input(), ctx)).toMatchObject({ message: 'No token stored for profile default.' });
    expect((await failure(auth.token!(input(), ctx))).exitCode).toBe(ExitCode.config);
  });
});

describe('auth login', () => {
  let server: Server;
  let baseUrl: string;
  const seen: Array<{ url: string | undefined; auth: string | undefined }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url, auth: req.headers.authorization });
      const ok = req.headers.authorization === `Bearer ${LONG_TOKEN}`;
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { data: [], links: {}, meta: {} } : { message: 'Unauthenticated.' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
  });

  it('--with-token checks the token with one GET and saves it with the base URL', async () => {
    const ctx = fakeContext({ configDir: dir, globals: { baseUrl: `${baseUrl}/v1/` }, stdin: `${LONG_TOKEN}\n` });
    const result = await auth.login!(input({ with_token: true }), ctx);
    expect(result).toEqual({ kind: 'done', message: `Logged in to ${baseUrl} as profile default.`, id: 'default' });
    expect(seen).toEqual([{ url: '/v1/ssh-keys?page_size=15', auth: `Bearer ${LONG_TOKEN}` }]);
    const store = await openConfig(dir);
    expect(store.profile('default')).toEqual({ base_url: baseUrl, token: LONG_TOKEN });
    expect(store.currentProfile()).toBe('default');
    expect((await stat(join(dir, 'config.json'))).mode & 0o777).toBe(0o600);
  });

  it('a refused token is exit 4 and nothing is saved', async () => {
    const ctx = fakeContext({ configDir: dir, globals: { baseUrl, profile: 'work' }, stdin: 'wrong-token-000000' });
    const err = await failure(auth.login!(input({ with_token: true }), ctx));
    expect(err.exitCode).toBe(ExitCode.auth);
    expect(err.message).not.toContain('wrong-token');
    await expect(stat(join(dir, 'config.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('on a terminal it asks with a hidden prompt on stderr', async () => {
    const ctx = fakeContext({ configDir: dir, globals: { baseUrl }, stdinIsTTY: true });
    const keyboard = new PassThrough();
    ctx.io.stdin = keyboard;
    keyboard.write(`${LONG_TOKEN}\n`);
    expect(await auth.login!(input(), ctx)).toMatchObject({ kind: 'done' });
    expect(ctx.stderrText()).toContain('API token');
    expect(ctx.stderrText()).not.toContain(LONG_TOKEN);
    expect(ctx.stdoutText()).toBe('');
    expect((await openConfig(dir)).profile('default').token).toBe(LONG_TOKEN);
  });

  it('logs in to a named profile without taking over the current one', async () => {
    await writeConfig(dir, { current_profile: 'home', profiles: { home: {} } });
    const ctx = fakeContext({ configDir: dir, globals: { baseUrl, profile: 'work' }, stdin: LONG_TOKEN });
    await auth.login!(input({ with_token: true }), ctx);
    const store = await openConfig(dir);
    expect(store.currentProfile()).toBe('home');
    expect(store.profile('work').token).toBe(LONG_TOKEN);
  });

  it('without a terminal and without --with-token it is a usage error naming --with-token', async () => {
    const ctx = fakeContext({ configDir: dir, globals: { baseUrl } });
    const err = await failure(auth.login!(input(), ctx));
    expect(err.exitCode).toBe(ExitCode.usage);
    expect(err.message).toContain('--with-token');
    expect(seen).toEqual([]);
  });

  it('an empty standard input is a usage error', async () => {
    const ctx = fakeContext({ configDir: dir, globals: { baseUrl }, stdin: '  \n' });
    expect((await failure(auth.login!(input({ with_token: true }), ctx))).exitCode).toBe(ExitCode.usage);
  });

  it('a plain-http base URL that is not loopback is refused before anything is sent', async () => {
    const ctx = fakeContext({ configDir: dir, globals: { baseUrl: 'http://example.com' }, stdin: LONG_TOKEN });
    const err = await failure(auth.login!(input({ with_token: true }), ctx));
    expect(err.exitCode).toBe(ExitCode.config);
    expect(err.message).toContain('--base-url');
  });
});

describe('profiles', () => {
  beforeEach(async () => {
    await writeConfig(dir, {
      current_profile: 'work',
      profiles: { work: { base_url: 'https://w.example.com', token: LONG_TOKEN }, home: {} },
    });
  });

  it('list shows names, the current one and whether a token is set, never the token', async () => {
    const result = await profiles.list!(input(), fakeContext({ configDir: dir }));
    if (result.kind !== 'list') throw new Error('expected a list');
    const records: unknown[] = [];
    for await (const page of result.pages) records.push(...page);
    expect(records).toEqual([
      { name: 'home', current: false, base_url: null, token_set: false },
      { name: 'work', current: true, base_url: 'https://w.example.com', token_set: true },
    ]);
    expect(JSON.stringify(records)).not.toContain(LONG_TOKEN);
  });

  it('use switches to an existing profile, or default; anything else lists the profiles', async () => {
    const ctx = fakeContext({ configDir: dir });
    await profiles.use!(input({ name: 'home' }), ctx);
    expect((await openConfig(dir)).currentProfile()).toBe('home');
    await profiles.use!(input({ name: 'default' }), ctx);
    expect((await openConfig(dir)).currentProfile()).toBe('default');
    const err = await failure(profiles.use!(input({ name: 'nope' }), ctx));
    expect(err.exitCode).toBe(ExitCode.usage);
    expect(err.details.join('\n')).toContain('home, work');
  });

  it('remove of the current profile makes default current', async () => {
    const result = await profiles.remove!(input({ name: 'work' }), fakeContext({ configDir: dir, globals: { yes: true } }));
    expect(result).toMatchObject({ kind: 'done' });
    const store = await openConfig(dir);
    expect(store.profileNames()).toEqual(['home']);
    expect(store.currentProfile()).toBe('default');
  });
});

describe('config get / set / list / path', () => {
  it('set validates and stores; get reads it back', async () => {
    const ctx = fakeContext({ configDir: dir });
    await config.set!(input({ key: 'base_url', value: 'https://api.example.com/v1/' }), ctx);
    await config.set!(input({ key: 'output', value: 'JSON' }), ctx);
    await config.set!(input({ key: 'timeout', value: '90s' }), ctx);
    expect((await openConfig(dir)).profile('default')).toEqual({ base_url: 'https://api.example.com', output: 'json', timeout: '90s' });
    expect(await config.get!(input({ key: 'base_url' }), ctx)).toMatchObject({ kind: 'text', text: 'https://api.example.com\n' });
  });

  it.each([
    ['output', 'xml', 'table, json, ndjson, tsv'],
    ['timeout', 'soon', 'timeout'],
    ['base_url', 'http://example.com', 'base_url'],
  ])('set %s %s is refused with exit 2 and nothing is written', async (key, value, mentions) => {
    const err = await failure(config.set!(input({ key, value }), fakeContext({ configDir: dir })));
    expect(err.exitCode).toBe(ExitCode.usage);
    expect(err.message).toContain(mentions);
    await expect(stat(join(dir, 'config.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('set token is refused and points to auth login --with-token', async () => {
    const err = await failure(config.set!(input({ key: 'token', value: LONG_TOKEN }), fakeContext({ configDir: dir })));
    expect(err.exitCode).toBe(ExitCode.usage);
    expect([err.message, ...err.details].join('\n')).toContain('auth login --with-token');
    expect(err.message).not.toContain(LONG_TOKEN);
  });

  it('list masks the token', async () => {
    await writeConfig(dir, { profiles: { default: { token: LONG_TOKEN, output: 'tsv' } } });
    const result = await config.list!(input(), fakeContext({ configDir: dir }));
    expect(recordOf(result)).toEqual({ profile: 'default', base_url: null, output: 'tsv', timeout: null, provider_names: null, token: '****9876' });
    expect(JSON.stringify(result)).not.toContain(LONG_TOKEN);
  });

  it('path prints the file even when the file is broken', async () => {
    const file = await writeConfig(dir, '{ broken');
    expect(await config.path!(input(), fakeContext({ configDir: dir }))).toEqual({ kind: 'text', text: `${file}\n` });
    expect(await readFile(file, 'utf8')).toBe('{ broken');
  });
});
