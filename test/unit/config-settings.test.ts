// Where each setting comes from (flag > env > profile > default), and the
// rules a base URL and a duration must follow.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Globals } from '../../src/contract/context.js';
import { ConfigError, ExitCode, UsageError } from '../../src/errors.js';
import {
  configDir,
  maskToken,
  openConfig,
  parseDuration,
  resolveSettings,
  validateBaseUrl,
  type ConfigStore,
} from '../../src/config/index.js';
import { makeTempDir, removeDir, writeConfig } from './config-helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

async function storeWith(profile: Record<string, unknown> | undefined): Promise<ConfigStore> {
  if (profile) await writeConfig(dir, { current_profile: 'work', profiles: { work: profile } });
  return openConfig(dir);
}

const FULL_PROFILE = { base_url: 'https://profile.example.com', token: 'profile-token-0000', output: 'tsv', timeout: '2m' };
const FULL_ENV = {
  BACKUPCTL_BASE_URL: 'https://env.example.com',
  BACKUPCTL_TOKEN: 'env-token-1111',
  BACKUPCTL_OUTPUT: 'ndjson',
  BACKUPCTL_TIMEOUT: '45s',
};
const FULL_FLAGS: Globals = { baseUrl: 'https://flag.example.com', output: 'json', timeout: '500ms' };

describe('precedence: flag > env > profile > default', () => {
  const cases: Array<{
    name: string;
    flags: Globals;
    env: NodeJS.ProcessEnv;
    profile: Record<string, unknown> | undefined;
    want: { baseUrl: string; baseUrlSource: string; token: string | undefined; tokenSource: string | undefined; output: string | undefined; timeoutMs: number };
  }> = [
    {
      name: 'flags win over everything',
      flags: FULL_FLAGS,
      env: FULL_ENV,
      profile: FULL_PROFILE,
      want: { baseUrl: 'https://flag.example.com', baseUrlSource: 'flag', token: 'env-token-1111', tokenSource: 'env', output: 'json', timeoutMs: 500 },
    },
    {
      name: 'env wins over the profile',
      flags: {},
      env: FULL_ENV,
      profile: FULL_PROFILE,
      want: { baseUrl: 'https://env.example.com', baseUrlSource: 'env', token: 'env-token-1111', tokenSource: 'env', output: 'ndjson', timeoutMs: 45_000 },
    },
    {
      name: 'the profile is used when nothing else is set',
      flags: {},
      env: {},
      profile: FULL_PROFILE,
      want: { baseUrl: 'https://profile.example.com', baseUrlSource: 'profile', token: 'profile-token-0000', tokenSource: 'profile', output: 'tsv', timeoutMs: 120_000 },
    },
    {
      name: 'defaults: no token, no output, 30 s',
      flags: {},
      env: { BACKUPCTL_BASE_URL: 'https://env.example.com' },
      profile: undefined,
      want: { baseUrl: 'https://env.example.com', baseUrlSource: 'env', token: undefined, tokenSource: undefined, output: undefined, timeoutMs: 30_000 },
    },
    {
      name: 'empty environment variables count as unset',
      flags: {},
      env: { BACKUPCTL_BASE_URL: '', BACKUPCTL_TOKEN: '', BACKUPCTL_OUTPUT: '', BACKUPCTL_TIMEOUT: '' },
      profile: FULL_PROFILE,
      want: { baseUrl: 'https://profile.example.com', baseUrlSource: 'profile', token: 'profile-token-0000', tokenSource: 'profile', output: 'tsv', timeoutMs: 120_000 },
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const store = await storeWith(c.profile);
      const s = resolveSettings({ globals: c.flags, env: c.env, store });
      expect({
        baseUrl: s.baseUrl,
        baseUrlSource: s.baseUrlSource,
        token: s.token,
        tokenSource: s.tokenSource,
        output: s.output,
        timeoutMs: s.timeoutMs,
      }).toEqual(c.want);
      expect(s.configFile).toBe(join(dir, 'config.json'));
    });
  }

  it('--json means json output whatever else is set', async () => {
    const store = await storeWith(FULL_PROFILE);
    expect(resolveSettings({ globals: { json: true, output: 'tsv' }, env: FULL_ENV, store }).output).toBe('json');
  });

  it('picks the profile from --profile, then BACKUPCTL_PROFILE, then the current one, then default', async () => {
    await writeConfig(dir, {
      current_profile: 'work',
      profiles: {
        work: { base_url: 'https://work.example.com' },
        home: { base_url: 'https://home.example.com' },
        ci: { base_url: 'https://ci.example.com' },
      },
    });
    const store = await openConfig(dir);
    const pick = (globals: Globals, env: NodeJS.ProcessEnv) => resolveSettings({ globals, env, store });
    expect(pick({ profile: 'home' }, { BACKUPCTL_PROFILE: 'ci' })).toMatchObject({ profile: 'home', baseUrl: 'https://home.example.com' });
    expect(pick({}, { BACKUPCTL_PROFILE: 'ci' })).toMatchObject({ profile: 'ci', baseUrl: 'https://ci.example.com' });
    expect(pick({}, {})).toMatchObject({ profile: 'work', baseUrl: 'https://work.example.com' });

    await writeConfig(dir, { profiles: { default: { base_url: 'https://default.example.com' } } });
    const unmarked = await openConfig(dir);
    expect(resolveSettings({ globals: {}, env: {}, store: unmarked })).toMatchObject({ profile: 'default' });
  });

  it('debug comes from --debug or BACKUPCTL_DEBUG=1', async () => {
    const store = await storeWith(FULL_PROFILE);
    expect(resolveSettings({ globals: {}, env: {}, store }).debug).toBe(false);
    expect(resolveSettings({ globals: { debug: true }, env: {}, store }).debug).toBe(true);
    expect(resolveSettings({ globals: {}, env: { BACKUPCTL_DEBUG: '1' }, store }).debug).toBe(true);
    expect(resolveSettings({ globals: {}, env: { BACKUPCTL_DEBUG: '0' }, store }).debug).toBe(false);
  });

  it('without any base URL it is a configuration error that says how to set one', async () => {
    const store = await storeWith(undefined);
    const err = catchError(() => resolveSettings({ globals: {}, env: { BACKUPCTL_TOKEN: 'x' }, store }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.exitCode).toBe(ExitCode.config);
    expect(err.message).toContain('auth login --base-url');
    expect(err.message).toContain('BACKUPCTL_BASE_URL');
  });
});

describe('bad values name where they came from', () => {
  it('a bad --timeout is a usage error (exit 2) naming --timeout', async () => {
    const store = await storeWith(FULL_PROFILE);
    const err = catchError(() => resolveSettings({ globals: { timeout: 'soon' }, env: {}, store }));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.exitCode).toBe(ExitCode.usage);
    expect(err.message).toContain('--timeout');
  });

  it('a bad BACKUPCTL_TIMEOUT is a configuration error (exit 3) naming the variable', async () => {
    const store = await storeWith(FULL_PROFILE);
    const err = catchError(() => resolveSettings({ globals: {}, env: { BACKUPCTL_TIMEOUT: '-3' }, store }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('BACKUPCTL_TIMEOUT');
  });

  it("a bad profile timeout is a configuration error naming the profile and the file", async () => {
    const store = await storeWith({ ...FULL_PROFILE, timeout: 'forever' });
    const err = catchError(() => resolveSettings({ globals: {}, env: {}, store }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('profile "work"');
    expect(err.message).toContain(join(dir, 'config.json'));
  });

  it('a bad base URL names its source: flag, env or profile (all exit 3)', async () => {
    const store = await storeWith({ base_url: 'http://profile.example.com' });
    const fromFlag = catchError(() => resolveSettings({ globals: { baseUrl: 'http://flag.example.com' }, env: {}, store }));
    const fromEnv = catchError(() => resolveSettings({ globals: {}, env: { BACKUPCTL_BASE_URL: 'ftp://env.example.com' }, store }));
    const fromProfile = catchError(() => resolveSettings({ globals: {}, env: {}, store }));
    for (const err of [fromFlag, fromEnv, fromProfile]) expect(err.exitCode).toBe(ExitCode.config);
    expect(fromFlag.message).toContain('--base-url');
    expect(fromEnv.message).toContain('BACKUPCTL_BASE_URL');
    expect(fromProfile.message).toContain('profile "work"');
  });

  it('a bad output format from the environment or the profile is a configuration error', async () => {
    const store = await storeWith(FULL_PROFILE);
    const err = catchError(() => resolveSettings({ globals: {}, env: { BACKUPCTL_OUTPUT: 'xml' }, store }));
    expect(err.exitCode).toBe(ExitCode.config);
    expect(err.message).toContain('BACKUPCTL_OUTPUT');
  });
});

describe('validateBaseUrl', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com'],
    ['https://api.example.com/', 'https://api.example.com'],
    ['https://api.example.com/v1', 'https://api.example.com'],
    ['https://api.example.com/v1/', 'https://api.example.com'],
    ['https://api.example.com/backup/v1', 'https://api.example.com/backup'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://127.3.4.5/', 'http://127.3.4.5'],
    ['http://[::1]:9000/v1', 'http://[::1]:9000'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['HTTPS://API.Example.COM', 'https://api.example.com'],
  ])('accepts %s as %s', (input, want) => {
    expect(validateBaseUrl(input, 'test')).toBe(want);
  });

  it.each([
    'http://example.com',
    'http://10.0.0.1',
    'http://127.0.0.1.example.com',
    'ftp://example.com',
    'example.com',
    'not a url',
    'https://user:secret@example.com',
    'https://example.com/?x=1',
  ])('rejects %s with exit 3, naming the source', (input) => {
    const err = catchError(() => validateBaseUrl(input, 'BACKUPCTL_BASE_URL'));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.exitCode).toBe(ExitCode.config);
    expect(err.message).toContain('BACKUPCTL_BASE_URL');
  });

  it('never repeats a password given in the URL', () => {
    const err = catchError(() => validateBaseUrl('http://user:hunter2@example.com', 'test'));
    expect(err.message).not.toContain('hunter2');
  });
});

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['45', 45_000],
    ['1.5s', 1_500],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'soon', '0', '0s', '-5s', '10x', '99999999h'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(UsageError);
  });
});

describe('configDir', () => {
  it('--config-dir, then BACKUPCTL_CONFIG_DIR, then XDG_CONFIG_HOME/backupctl, then ~/.config/backupctl', () => {
    const env = { BACKUPCTL_CONFIG_DIR: '/env/dir', XDG_CONFIG_HOME: '/xdg', HOME: '/home/u' };
    expect(configDir(env, '/flag/dir')).toBe('/flag/dir');
    expect(configDir(env)).toBe('/env/dir');
    expect(configDir({ XDG_CONFIG_HOME: '/xdg', HOME: '/home/u' })).toBe('/xdg/backupctl');
    expect(configDir({ HOME: '/home/u' })).toBe('/home/u/.config/backupctl');
    // A relative XDG_CONFIG_HOME is invalid by the XDG spec and ignored.
    expect(configDir({ XDG_CONFIG_HOME: 'rel', HOME: '/home/u' })).toBe('/home/u/.config/backupctl');
  });
});

describe('maskToken', () => {
  it('shows at most the last 4 characters, none for short tokens', () => {
    expect(maskToken('abcdefghijklmnopqrstuvwxyz')).toBe('****wxyz');
    expect(maskToken('abcdefghijkl')).toBe('****ijkl');
    expect(maskToken('abcdefghijk')).toBe('****');
    expect(maskToken('abc')).toBe('****');
    expect(maskToken(undefined)).toBe('(none)');
  });
});

function catchError(fn: () => unknown): ConfigError | UsageError {
  try {
    fn();
  } catch (err) {
    return err as ConfigError;
  }
  throw new Error('expected an error');
}
