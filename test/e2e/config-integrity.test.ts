// The config file under stress: many processes writing at once, processes
// killed in the middle of a write, and broken files. The file must always be
// whole and valid (the old content or the new), never lose a change made under
// the lock, never be overwritten when broken, and stay private (0600 in 0700).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempConfigDir } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { loadConfigChecker } from '../../src/config/schema.js';
import type { Emulator } from '../../src/emulator/index.js';

const WRITERS = 20;
const KILLS = 20;
const PADDING = 150;

let cfg: ReturnType<typeof tempConfigDir>;
const configFile = () => path.join(cfg.dir, 'config.json');
const cli = (args: string[], extra: Record<string, string | undefined> = {}, input?: string) =>
  runCli(args, { env: { BACKUPCTL_CONFIG_DIR: cfg.dir, ...extra }, input, timeoutMs: 30_000 });

async function expectValidConfig(file: string): Promise<{ profiles: Record<string, Record<string, unknown>>; current_profile?: string }> {
  const text = readFileSync(file, 'utf8');
  const parsed = JSON.parse(text) as unknown;
  const check = await loadConfigChecker();
  const r = check(parsed);
  expect(r.ok, r.ok ? '' : r.problems.join('; ')).toBe(true);
  return parsed as { profiles: Record<string, Record<string, unknown>> };
}

describe('concurrent writers', () => {
  beforeAll(() => {
    cfg = tempConfigDir();
  });
  afterAll(() => cfg.cleanup());

  it(`${WRITERS} concurrent config set processes all land, in a whole file, with readers never seeing a torn one`, async () => {
    // Readers start with the writers: a reader that met a half-written file would exit 3.
    const writers = Array.from({ length: WRITERS }, (_, i) => cli(['--profile', `w${i}`, 'config', 'set', 'timeout', `${i + 1}s`]));
    const readers = Array.from({ length: 10 }, (_, i) => cli(['--profile', `w${i}`, 'config', 'list', '--json']));
    const results = await Promise.all([...writers, ...readers]);
    for (const r of results) expect({ code: r.code, stderr: r.stderr.replace(/^Set .*\n$/, '') }).toEqual({ code: 0, stderr: '' });

    const data = await expectValidConfig(configFile());
    // Each write re-read the file under the lock: not one change was lost.
    for (let i = 0; i < WRITERS; i++) expect(data.profiles[`w${i}`]).toEqual({ timeout: `${i + 1}s` });
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(statSync(cfg.dir).mode & 0o777).toBe(0o700);
    // Nothing left behind: no lock, no temp file.
    expect(readdirSync(cfg.dir).sort()).toEqual(['config.json']);
  });
});

describe('a writer killed with SIGKILL', () => {
  let writer: string;

  beforeAll(async () => {
    cfg = tempConfigDir();
    writer = path.join(cfg.dir, '..', `${path.basename(cfg.dir)}-writer.mjs`);
    await build({
      entryPoints: [path.join(ROOT, 'test/helpers/config-writer.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      outfile: writer,
      banner: { js: 'import { createRequire as __r } from "node:module"; const require = __r(import.meta.url);' },
      logLevel: 'warning',
    });
  });
  afterAll(() => {
    cfg.cleanup();
    rmSync(writer, { force: true });
  });

  /** Starts the writer; resolves once it printed `ready`, with what it printed so far. */
  function startWriter(): Promise<{ child: ChildProcess; lines: string[]; done: Promise<number | null> }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [writer, path.join(cfg.dir, 'store'), String(PADDING)], { stdio: ['ignore', 'pipe', 'pipe'] });
      const lines: string[] = [];
      let stderr = '';
      let buffer = '';
      let ready = false;
      const done = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        buffer += d;
        const parts = buffer.split('\n');
        buffer = parts.pop()!;
        lines.push(...parts);
        if (!ready && lines.some((l) => l.startsWith('ready'))) {
          ready = true;
          resolve({ child, lines, done });
        }
      });
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      void done.then((code) => {
        if (!ready) reject(new Error(`writer ended before it was ready (exit ${code}): ${stderr}`));
      });
    });
  }

  it(`${KILLS} kills at random moments leave the old file or the new one, never a torn one`, async () => {
    const file = path.join(cfg.dir, 'store', 'config.json');
    // The counter on disk; undefined while no run has completed a write of it. (It was 0 here, and the
    // check at the end then expected `config list` to show "0s" where it rightly shows null: on a loaded
    // machine all 20 kills can land before the first write of the counter completes.)
    let before: number | undefined;
    let midWrite = 0;
    let confirmed = 0;
    for (let k = 0; k < KILLS; k++) {
      const { child, lines, done } = await startWriter();
      const readyWord = lines.find((l) => l.startsWith('ready'))!.split(' ')[1]!;
      const startedFrom = readyWord === 'none' ? undefined : Number(readyWord);
      // Only the counters this run wrote can be on disk: its start, or any it went on to.
      if (k > 0) expect(startedFrom).toBe(before);
      // On a loaded machine every kill can land before a write completes; from half-way on, a run waits for
      // its first confirmed write before its random delay, so the kills also meet a counter on disk.
      if (confirmed === 0 && k >= KILLS / 2) {
        for (const until = Date.now() + 20_000; !lines.some((l) => l.startsWith('wrote ')) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 5));
      }
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 120));
      child.kill('SIGKILL');
      await done;
      const written = lines.filter((l) => l.startsWith('wrote ')).map((l) => Number(l.slice(6)));
      confirmed += written.length;
      const lastConfirmed = written.length ? written[written.length - 1]! : startedFrom;

      const data = await expectValidConfig(file);
      const counter = data.profiles.counter?.timeout;
      const onDisk = counter === undefined ? undefined : Number(/^(\d+)s$/.exec(String(counter))![1]);
      // The old content (the last write it confirmed, or no counter yet) or the new (the one it was making).
      expect([lastConfirmed, (lastConfirmed ?? 0) + 1]).toContain(onDisk);
      if (onDisk !== lastConfirmed) midWrite++;
      for (let i = 0; i < PADDING; i += 37) expect(data.profiles[`pad-${i}`]?.timeout).toBe(`${i + 1}s`);
      before = onDisk;
      // A lock a killed writer left is whole (its pid in it), so the next one can take it over.
      const lock = path.join(cfg.dir, 'store', 'config.json.lock');
      if (existsSync(lock)) expect(readFileSync(lock, 'utf8')).toMatch(/^\d+( \d+)?\n$/);
    }
    // Left over by killed writers: the lock (a dead pid; the next writer takes it over), the
    // private file a lock is made from, the breaker of a stale lock (gone after 10 s), and atomically's temp files (config.json.tmp-*). No
    // reader opens any of them.
    const leftovers = readdirSync(path.join(cfg.dir, 'store')).filter((f) => f !== 'config.json');
    for (const f of leftovers) expect(f).toMatch(/^config\.json\.(lock|tmp-\w+|lock\.\d+-[0-9a-f]+|lock\.break)$/);
    const kinds = leftovers.map((f) =>
      f === 'config.json.lock' ? 'lock' : f.includes('.tmp-') ? 'atomically temp file' : f.endsWith('.break') ? 'lock breaker' : 'lock source',
    );
    const summary = [...new Set(kinds)].map((k) => `${kinds.filter((x) => x === k).length} ${k}`).join(', ');
    expect(confirmed).toBeGreaterThan(0);
    console.info(`config-integrity: ${KILLS} kills, ${confirmed} writes confirmed, ${midWrite} caught a write on disk but unconfirmed; left over: ${summary || 'nothing'}`);

    // The real CLI reads and writes the same folder afterwards, leftovers or not.
    const dir = path.join(cfg.dir, 'store');
    const set = await runCli(['--profile', 'counter', 'config', 'set', 'output', 'json'], { env: { BACKUPCTL_CONFIG_DIR: dir } });
    expect(set.code, set.stderr).toBe(0);
    const list = await runCli(['--profile', 'counter', 'config', 'list', '--json'], { env: { BACKUPCTL_CONFIG_DIR: dir } });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject({ profile: 'counter', output: 'json', timeout: before === undefined ? null : `${before}s` });
    expect(statSync(path.join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  }, 120_000);
});

describe('a broken config file', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(async () => {
    await emu.close();
  });

  const BROKEN: Record<string, string | Buffer> = {
    'cut-off JSON': '{"profiles": {"default": {"base_url": "https://api.example.com"',
    'null': 'null',
    'an array': '[]',
    'a string': '"profiles"',
    'an unknown output format': '{"profiles": {"default": {"output": "xml"}}}',
    'profiles of the wrong type': '{"profiles": 5}',
    'an unknown key': '{"profiles": {}, "tokens": "abc"}',
    'binary garbage': Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22, 0x01]),
    'empty': '',
  };

  for (const [what, content] of Object.entries(BROKEN)) {
    it(`${what}: exit 3 naming the file, and the file is never rewritten`, async () => {
      const local = tempConfigDir();
      try {
        const file = path.join(local.dir, 'config.json');
        writeFileSync(file, content);
        chmodSync(file, 0o600);
        const mtime = statSync(file).mtimeMs;
        const env = { BACKUPCTL_CONFIG_DIR: local.dir };
        const runs = await Promise.all([
          runCli(['config', 'set', 'output', 'json'], { env }),
          runCli(['config', 'list'], { env }),
          runCli(['profiles', 'use', 'other'], { env }),
          runCli(['auth', 'login', '--with-token', '--base-url', emu.url], { env, input: `${emu.token}\n` }),
          runCli(['auth', 'logout'], { env }),
          runCli(['ssh-keys', 'list'], { env: { ...env, BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token } }),
        ]);
        for (const r of runs) {
          expect(r.code, r.stderr).toBe(3);
          expect(r.stderr).toContain(file);
          expect(r.stderr).toMatch(/^error: /);
          expect(r.stdout).toBe('');
        }
        expect(readFileSync(file)).toEqual(Buffer.isBuffer(content) ? content : Buffer.from(content));
        expect(statSync(file).mtimeMs).toBe(mtime);
        expect(readdirSync(local.dir)).toEqual(['config.json']);
      } finally {
        local.cleanup();
      }
    });
  }
});

describe('file and folder modes', () => {
  it('a config folder the CLI creates is 0700 and the file 0600, even when nested and new', async () => {
    const local = tempConfigDir();
    try {
      const dir = path.join(local.dir, 'a', 'b', 'backupctl');
      const r = await runCli(['config', 'set', 'output', 'json'], { env: { BACKUPCTL_CONFIG_DIR: dir } });
      expect(r.code).toBe(0);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    } finally {
      local.cleanup();
    }
  });

  it('a file loosened to 0644 by hand is 0600 again after the next write', async () => {
    const local = tempConfigDir();
    try {
      mkdirSync(local.dir, { recursive: true });
      const file = path.join(local.dir, 'config.json');
      writeFileSync(file, '{"profiles": {}}\n');
      chmodSync(file, 0o644);
      const r = await runCli(['config', 'set', 'timeout', '45s'], { env: { BACKUPCTL_CONFIG_DIR: local.dir } });
      expect(r.code).toBe(0);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: { default: { timeout: '45s' } } });
    } finally {
      local.cleanup();
    }
  });

  it('reading never creates the folder or the file', async () => {
    const local = tempConfigDir();
    try {
      const dir = path.join(local.dir, 'not-yet');
      const r = await runCli(['config', 'list'], { env: { BACKUPCTL_CONFIG_DIR: dir } });
      expect(r.code).toBe(0);
      expect(existsSync(dir)).toBe(false);
    } finally {
      local.cleanup();
    }
  });
});
