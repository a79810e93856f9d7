// auth, profiles and config through the built CLI: what is saved, what is
// shown, and that the token never is.
import { beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { emulatorSession } from '../helpers/emulator.js';

// A config folder (and a state folder) of their own for each test.
const session = emulatorSession({ seed: 'demo', foldersPerTest: true });
const { emu } = session;
const cli = (args: string[], extra: Record<string, string | undefined> = {}, input?: string) =>
  runCli(args, { env: { BACKUPCTL_CONFIG_DIR: session.cfg.dir, ...extra }, input });

beforeEach(() => {
  emu.requests.length = 0;
});

describe('auth', () => {
  it('login --with-token verifies with one GET, saves the profile 0600, and status masks the token', async () => {
    const login = await cli(['auth', 'login', '--base-url', emu.url, '--with-token'], {}, `${emu.token}\n`);
    expect(login.code).toBe(0);
    expect(login.stdout).toBe('');
    const v1 = emu.requests.filter((r) => r.path.startsWith('/v1'));
    expect(v1).toHaveLength(1);
    expect(v1[0]).toMatchObject({ method: 'GET', path: '/v1/ssh-keys' });

    const file = path.join(session.cfg.dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(session.cfg.dir).mode & 0o777).toBe(0o700);

    const status = await cli(['auth', 'status', '--json']);
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain(emu.token);
    expect(status.stdout).toContain(emu.token.slice(-4));

    const list = await cli(['ssh-keys', 'list', '-q']);
    expect(list.code).toBe(0);
    expect(list.stdout, 'one id a line, at least one').toMatch(/^(\d+\n)+$/);

    const token = await cli(['auth', 'token']);
    expect(token.stdout).toBe(`${emu.token}\n`);

    const out = await cli(['auth', 'logout']);
    expect(out.code).toBe(0);
    const after = await cli(['ssh-keys', 'list']);
    expect(after.code).toBe(3);
  });

  it('a rejected token is not saved (exit 4)', async () => {
    const r = await cli(['auth', 'login', '--base-url', emu.url, '--with-token'], {}, 'not-the-token-9999\n');
    expect(r.code).toBe(4);
    expect(r.stderr).not.toContain('not-the-token-9999');
    const t = await cli(['auth', 'token']);
    expect(t.code).toBe(3);
    expect(t.stdout).toBe('');
  });

  it('without a terminal and without --with-token, login explains and exits 2', async () => {
    const r = await cli(['auth', 'login', '--base-url', emu.url]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--with-token');
  });
});

describe('profiles and precedence', () => {
  it('flag > env > profile for the base URL', async () => {
    await cli(['auth', 'login', '--profile', 'p1', '--base-url', emu.url, '--with-token'], {}, emu.token);
    // profile only
    expect((await cli(['--profile', 'p1', 'ssh-keys', 'list', '-q'])).code).toBe(0);
    // env beats profile: a bad env URL fails
    expect((await cli(['--profile', 'p1', 'ssh-keys', 'list'], { BACKUPCTL_BASE_URL: 'http://example.com' })).code).toBe(3);
    // flag beats env
    expect((await cli(['--profile', 'p1', '--base-url', emu.url, 'ssh-keys', 'list', '-q'], { BACKUPCTL_BASE_URL: 'http://example.com' })).code).toBe(0);
  });

  it('lists, switches and removes profiles', async () => {
    await cli(['auth', 'login', '--profile', 'a', '--base-url', emu.url, '--with-token'], {}, emu.token);
    await cli(['auth', 'login', '--profile', 'b', '--base-url', emu.url, '--with-token'], {}, emu.token);
    const l = await cli(['profiles', 'list', '-q']);
    expect(l.stdout.split('\n').filter(Boolean).sort()).toEqual(['a', 'b']);
    expect((await cli(['profiles', 'use', 'b'])).code).toBe(0);
    const s = await cli(['auth', 'status', '--json']);
    expect(JSON.parse(s.stdout)).toMatchObject({ profile: 'b' });
    expect((await cli(['profiles', 'use', 'nope'])).code).toBe(2);
    expect((await cli(['profiles', 'remove', 'a', '--yes'])).code).toBe(0);
    expect((await cli(['profiles', 'list', '-q'])).stdout.trim()).toBe('b');
  });

  it('config set/get/list/path, strictly checked', async () => {
    expect((await cli(['config', 'set', 'output', 'json'])).code).toBe(0);
    // config get prints the raw value even when the profile says json (issue 16 §2.11); --json asks for JSON.
    expect((await cli(['config', 'get', 'output'])).stdout).toBe('json\n');
    expect((await cli(['config', 'get', 'output', '--json'])).stdout).toBe('"json"\n');
    expect((await cli(['config', 'get', 'output', '-o', 'tsv'])).stdout).toBe('json\n');
    const bad = await cli(['config', 'set', 'output', 'yaml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('table, json, ndjson, tsv');
    const tok = await cli(['config', 'set', 'token', 'abc']);
    expect(tok.code).toBe(2);
    expect((await cli(['config', 'path'])).stdout).toBe(`${path.join(session.cfg.dir, 'config.json')}\n`);
    const t = await cli(['config', 'set', 'timeout', '45s']);
    expect(t.code).toBe(0);
    expect((await cli(['config', 'list', '--json'])).stdout).toContain('45s');
  });

  it('the profile output setting applies, and a flag overrides it', async () => {
    await cli(['auth', 'login', '--base-url', emu.url, '--with-token'], {}, emu.token);
    await cli(['config', 'set', 'output', 'json']);
    const r = await cli(['ssh-keys', 'list']);
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
    const t = await cli(['ssh-keys', 'list', '-o', 'tsv']);
    expect(t.stdout.split('\n')[0]).toContain('\t');
  });

  it('a corrupt config file: exit 3 naming it, and its bytes are left as they were', async () => {
    const file = path.join(session.cfg.dir, 'config.json');
    writeFileSync(file, '{"profiles": {', { mode: 0o600 });
    for (const args of [['ssh-keys', 'list'], ['config', 'set', 'output', 'json'], ['profiles', 'list']]) {
      const r = await cli(args, { BACKUPCTL_TOKEN: emu.token, BACKUPCTL_BASE_URL: emu.url });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(file);
      expect(readFileSync(file, 'utf8')).toBe('{"profiles": {');
    }
  });
});
