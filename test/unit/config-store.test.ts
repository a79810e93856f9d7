// The config file on disk: strict reading, broken files left alone, modes,
// atomic writes and the lock that lets parallel runs all land.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, ExitCode } from '../../src/errors.js';
import { openConfig, withFileLock } from '../../src/config/index.js';
import { handlers as configHandlers } from '../../src/commands/config.js';
import { fakeContext, makeTempDir, removeDir, writeConfig } from './config-helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

const setInput = (key: string, value: string) => ({ spec: undefined as never, values: { key, value }, request: undefined });

describe('reading', () => {
  it('a missing file reads as an empty config and creates nothing', async () => {
    const configDir = join(dir, 'not-yet');
    const store = await openConfig(configDir);
    expect(store.currentProfile()).toBe('default');
    expect(store.profileNames()).toEqual([]);
    expect(store.profile('default')).toEqual({});
    await expect(stat(configDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads profiles and the current one', async () => {
    await writeConfig(dir, {
      current_profile: 'work',
      profiles: { work: { base_url: 'https://a.example.com', timeout: 20 }, home: {} },
    });
    const store = await openConfig(dir);
    expect(store.currentProfile()).toBe('work');
    expect(store.profileNames()).toEqual(['home', 'work']);
    expect(store.profile('work')).toEqual({ base_url: 'https://a.example.com', timeout: 20 });
    expect(store.profile('toString')).toEqual({});
  });

  const broken: Array<[string, string, string]> = [
    ['not JSON', '{"profiles": {', 'not valid JSON'],
    ['empty', '', 'not valid JSON'],
    ['null', 'null', 'top level'],
    ['an array', '[]', 'top level'],
    ['an unknown key in a profile', '{"profiles":{"work":{"tokn":"x"}}}', 'tokn'],
    ['a wrong type', '{"profiles":{"work":{"base_url":42}}}', 'profiles.work.base_url'],
    ['an unknown output format', '{"profiles":{"work":{"output":"xml"}}}', 'profiles.work.output'],
    ['an unknown top-level key', '{"profiles":{},"colour":true}', 'colour'],
    ['a bad profile name', '{"profiles":{"a b":{}}}', 'profile name'],
  ];
  for (const [what, content, mentions] of broken) {
    it(`a file that is ${what} is a ConfigError naming the file and the problem`, async () => {
      const file = await writeConfig(dir, content);
      const err = await openConfig(dir).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).exitCode).toBe(ExitCode.config);
      expect((err as ConfigError).message).toContain(file);
      expect((err as ConfigError).message).toContain(mentions);
      expect(await readFile(file, 'utf8')).toBe(content);
    });
  }
});

describe('a broken file is never rewritten', () => {
  it('`config set` on a corrupt file fails with exit 3 and leaves its bytes as they were', async () => {
    const content = '{"current_profile": "work", "profiles": {"work": {"token": "abc",}}}';
    const file = await writeConfig(dir, content);
    const before = await readFile(file);
    const ctx = fakeContext({ configDir: dir });
    const err = await configHandlers.set!(setInput('output', 'json'), ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).exitCode).toBe(3);
    expect((err as ConfigError).message).toContain(file);
    expect(await readFile(file)).toEqual(before);
  });

  it('a file that breaks after it was opened is not overwritten by an update', async () => {
    const file = await writeConfig(dir, { profiles: { work: { output: 'json' } } });
    const store = await openConfig(dir);
    await writeFile(file, '{"profiles": {"work": {"output": "yaml"}}}');
    const before = await readFile(file);
    await expect(store.setValue('work', 'timeout', '5s')).rejects.toBeInstanceOf(ConfigError);
    expect(await readFile(file)).toEqual(before);
    expect(await readdir(dir)).toEqual(['config.json']);
  });

  it('a mutator that throws writes nothing and releases the lock', async () => {
    const file = await writeConfig(dir, { profiles: { work: {} } });
    const before = await readFile(file);
    const store = await openConfig(dir);
    await expect(
      store.update(() => {
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await readFile(file)).toEqual(before);
    await store.setValue('work', 'output', 'tsv');
    expect(JSON.parse(await readFile(file, 'utf8')).profiles.work.output).toBe('tsv');
  });
});

describe('writing', () => {
  it('creates the folder 0700 and the file 0600', async () => {
    const configDir = join(dir, 'nested', 'backupctl');
    const store = await openConfig(configDir);
    await store.setValue('default', 'base_url', 'https://api.example.com');
    expect((await stat(configDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(configDir, 'config.json'))).mode & 0o777).toBe(0o600);
  });

  it('fixes the mode of an existing file that others could read', async () => {
    const file = await writeConfig(dir, { profiles: {} });
    await chmod(file, 0o644);
    const store = await openConfig(dir);
    await store.setValue('default', 'output', 'json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('writes through a temp file that is renamed: no temp or lock file remains', async () => {
    const store = await openConfig(dir);
    for (let i = 0; i < 5; i++) await store.setValue(`p${i}`, 'timeout', `${i + 1}s`);
    expect(await readdir(dir)).toEqual(['config.json']);
    const data = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
    expect(Object.keys(data.profiles)).toHaveLength(5);
  });

  it('keeps changes made by another process since the store was opened', async () => {
    const mine = await openConfig(dir);
    const theirs = await openConfig(dir);
    await theirs.setValue('home', 'output', 'json');
    await mine.setValue('work', 'output', 'tsv');
    const after = await openConfig(dir);
    expect(after.profileNames()).toEqual(['home', 'work']);
    expect(mine.profileNames()).toEqual(['home', 'work']);
  });

  it('removing the current profile makes `default` current again', async () => {
    await writeConfig(dir, { current_profile: 'work', profiles: { work: { token: 't' }, home: {} } });
    const store = await openConfig(dir);
    await store.removeProfile('work');
    expect(store.currentProfile()).toBe('default');
    expect(store.profileNames()).toEqual(['home']);
    await store.setCurrent('home');
    expect((await openConfig(dir)).currentProfile()).toBe('home');
  });

  it('refuses profile names that are not plain words', async () => {
    const store = await openConfig(dir);
    await expect(store.setValue('../etc', 'output', 'json')).rejects.toMatchObject({ exitCode: ExitCode.usage });
    await expect(store.setCurrent('__proto__')).rejects.toMatchObject({ exitCode: ExitCode.usage });
  });
});

describe('the lock', () => {
  it('takes over a lock left by a process that is gone', async () => {
    const deadPid = await pidOfFinishedProcess();
    await writeFile(join(dir, 'config.json.lock'), `${deadPid}\n`);
    const store = await openConfig(dir);
    await store.setValue('default', 'output', 'json');
    expect(store.profile('default')).toEqual({ output: 'json' });
    expect(await readdir(dir)).toEqual(['config.json']);
  });

  it('gives up with a ConfigError while a live process holds the lock', async () => {
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'config.json');
    await writeFile(`${file}.lock`, `${process.ppid}\n`);
    const err = await withFileLock(file, () => 'never', { waitMs: 100 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toContain(`pid ${process.ppid}`);
  });
});

describe('20 processes updating at once', () => {
  let bundleDir: string;
  let script: string;

  beforeAll(async () => {
    bundleDir = await makeTempDir();
    const entry = join(bundleDir, 'entry.ts');
    const configIndex = fileURLToPath(new URL('../../src/config/index.ts', import.meta.url));
    await writeFile(
      entry,
      [
        `import { openConfig } from ${JSON.stringify(configIndex)};`,
        'const [dir, name] = process.argv.slice(2);',
        'const store = await openConfig(dir);',
        'await store.update((data) => {',
        '  data.profiles[name] = { base_url: `https://${name}.example.com`, timeout: name.slice(1) + "s" };',
        '});',
      ].join('\n'),
    );
    script = join(bundleDir, 'update.mjs');
    const { build } = await import('esbuild');
    await build({
      entryPoints: [entry],
      outfile: script,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
      // CommonJS dependencies (ajv) call require(); give the ESM bundle one.
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    });
  }, 60_000);

  afterAll(async () => {
    await removeDir(bundleDir);
  });

  it('every change lands and the file stays valid JSON', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `p${i + 1}`);
    const runs = await Promise.all(names.map((name) => runNode([script, dir, name])));
    for (const run of runs) expect(run).toEqual({ code: 0, stderr: '' });
    const data = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
    expect(Object.keys(data.profiles).sort()).toEqual([...names].sort());
    for (const name of names) {
      expect(data.profiles[name]).toEqual({ base_url: `https://${name}.example.com`, timeout: `${name.slice(1)}s` });
    }
    expect(await readdir(dir)).toEqual(['config.json']);
    expect((await stat(join(dir, 'config.json'))).mode & 0o777).toBe(0o600);
  }, 60_000);
});

function runNode(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += String(c)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

async function pidOfFinishedProcess(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  const pid = child.pid!;
  await new Promise((resolve) => child.on('close', resolve));
  return pid;
}
