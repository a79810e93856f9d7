// How the built CLI starts (src/boot.cjs, src/scripts/build.mjs): the code
// cache is used when it belongs to this bundle and this node, never when it
// belongs to another build, and written to the user's cache folder when
// dist/ has none that fits; and a request leaves the built-ins the build
// keeps off the start-up path unloaded.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, runCli } from '../helpers/cli.js';
import { emulatorEnv, withEmulator } from '../helpers/emulator.js';
import { memoryIO } from '../helpers/fuzz.js';
import { builtManifest } from '../helpers/manifest.js';
import { buildProgram } from '../../src/cli/program.js';
import { manifestSource } from '../../src/cli/manifest.js';

/** Runs `node [preload] <bin> args` and returns the exit code, stdout and stderr. */
function node(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: cleanEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let work: string;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'backupctl-startup-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('code cache', () => {
  /** A copy of bin/, dist/ and package.json, to change dist/ without touching the real one. */
  function install(name: string): string {
    const dir = path.join(work, name);
    for (const part of ['bin', 'dist', 'package.json']) cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
    return dir;
  }
  /**
   * What boot.load() reports in that install (a preload-free probe: load() returns cacheUsed), for a
   * command line `argv` (by default one whose word has no cache of its own: main.cache).
   */
  async function probe(dir: string, env: Record<string, string | undefined> = {}, argv: string[] = ['status', '--json']): Promise<{ cacheUsed: boolean }> {
    const script = `const r = require(${JSON.stringify(path.join(dir, 'dist', 'boot.cjs'))}).load(undefined, { argv: ${JSON.stringify(argv)} }); process.stdout.write(JSON.stringify({ cacheUsed: r.cacheUsed }));`;
    const r = await node(['-e', script], env);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as { cacheUsed: boolean };
  }

  it('the build made one for this bundle, and it is used', async () => {
    const home = path.join(work, 'home-a');
    expect(await probe(path.join(ROOT), { XDG_CACHE_HOME: home })).toEqual({ cacheUsed: true });
    expect(existsSync(home)).toBe(false); // nothing written when dist/ has a cache that fits
  });

  it("a stack trace names the bundle as backupctl/dist/main.cjs, not the build's temporary folder, with the cache used", async () => {
    // An error thrown inside the bundle: the table cold.cjs asks main.cjs for modules, asked for none.
    const script = `const r = require(${JSON.stringify(path.join(ROOT, 'dist', 'boot.cjs'))}).load();
      let stack = '';
      try { r.exports.coreModules(null, null); } catch (e) { stack = String(e.stack); }
      process.stdout.write(JSON.stringify({ cacheUsed: r.cacheUsed, frame: stack.split('\\n').find((l) => l.includes('main.cjs')) ?? stack }));`;
    const r = await node(['-e', script], { XDG_CACHE_HOME: path.join(work, 'home-stack') });
    expect(r.code, r.stderr).toBe(0);
    const { cacheUsed, frame } = JSON.parse(r.stdout) as { cacheUsed: boolean; frame: string };
    expect(cacheUsed).toBe(true);
    expect(frame).toMatch(/\(backupctl\/dist\/main\.cjs:\d+:\d+\)/);
    expect(frame).not.toContain('.tmp');
  });

  it('a cache from another build is not used; the first run writes one to the cache folder, the next uses it', async () => {
    const dir = install('other-build');
    const cacheFile = path.join(dir, 'dist', 'main.cache');
    const data = readFileSync(cacheFile);
    // Same V8 data, another build id: boot must not hand it to V8.
    writeFileSync(cacheFile, Buffer.concat([Buffer.from('0123456789abcdef\n'), data.subarray(data.indexOf(10) + 1)]));
    const home = path.join(work, 'home-b');
    // A cache left by an earlier build is removed when the new one is written.
    const stale = path.join(home, 'backupctl', `code-fedcba9876543210-${process.version}-${process.arch}.cache`);
    cpSync(cacheFile, stale);
    expect(await probe(dir, { XDG_CACHE_HOME: home })).toEqual({ cacheUsed: false });
    expect(existsSync(stale)).toBe(false);
    const written = readdirSync(path.join(home, 'backupctl'));
    expect(written).toEqual([expect.stringMatching(new RegExp(`^code-[0-9a-f]{16}-${process.version}-${process.arch}\\.cache$`))]);
    expect(await probe(dir, { XDG_CACHE_HOME: home })).toEqual({ cacheUsed: true });
    // And the CLI works either way.
    const r = await node([path.join(dir, 'bin', 'backupctl.cjs'), '--help'], { XDG_CACHE_HOME: home });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: backupctl/);
  });

  it("a word the build made a cache for starts with it (dist/cache/<word>.cache), any other with main.cache", async () => {
    const dir = install('word-caches');
    // main.cache of another build: a start that reads it compiles from source.
    const cacheFile = path.join(dir, 'dist', 'main.cache');
    const data = readFileSync(cacheFile);
    writeFileSync(cacheFile, Buffer.concat([Buffer.from('0123456789abcdef\n'), data.subarray(data.indexOf(10) + 1)]));
    const env = { XDG_CACHE_HOME: path.join(work, 'home-words'), BACKUPCTL_NO_CODE_CACHE: '1' };
    expect(await probe(dir, env, ['--help'])).toEqual({ cacheUsed: true });
    expect(await probe(dir, env, ['servers', 'list', '--json'])).toEqual({ cacheUsed: true });
    expect(await probe(dir, env, ['jobs', 'list'])).toEqual({ cacheUsed: true });
    expect(await probe(dir, env, ['status', '--json'])).toEqual({ cacheUsed: false });
    // A word's cache of another build is not used either.
    rmSync(path.join(dir, 'dist', 'cache', 'top.cache'));
    writeFileSync(path.join(dir, 'dist', 'cache', 'top.cache'), Buffer.concat([Buffer.from('0123456789abcdef\n'), data.subarray(data.indexOf(10) + 1)]));
    expect(await probe(dir, env, ['--help'])).toEqual({ cacheUsed: false });
    // And the commands answer the same with their word's cache.
    for (const args of [['--help'], ['status', '--help']]) {
      const fresh = await node([path.join(dir, 'bin', 'backupctl.cjs'), ...args], env);
      const built = await node([BIN, ...args], env);
      expect(built.code).toBe(0);
      expect(built.stdout).toBe(fresh.stdout);
    }
  });

  it('BACKUPCTL_NO_CODE_CACHE=1 writes nothing', async () => {
    const dir = install('no-cache');
    rmSync(path.join(dir, 'dist', 'main.cache'));
    const home = path.join(work, 'home-c');
    expect(await probe(dir, { XDG_CACHE_HOME: home, BACKUPCTL_NO_CODE_CACHE: '1' })).toEqual({ cacheUsed: false });
    expect(existsSync(home)).toBe(false);
  });
});

describe('built-ins kept off the start-up path', () => {
  const emu = withEmulator({ seed: 'demo' });
  const configDir = () => path.join(work, 'config');

  /** The public built-in modules `args` loaded, from a preload that lists them at exit. */
  async function builtinsLoaded(args: string[]): Promise<{ r: { code: number | null; stdout: string; stderr: string }; loaded: string[] }> {
    const preload = path.join(work, 'loaded.cjs');
    writeFileSync(
      preload,
      "process.on('exit', () => require('node:fs').writeSync(2, 'LOADED ' + process.moduleLoadList.filter((m) => m.startsWith('NativeModule ') && !m.includes('internal/')).map((m) => m.slice(13)).join(' ') + '\\n'));\n",
    );
    const r = await node(['-r', preload, BIN, ...args], { ...emulatorEnv(emu), BACKUPCTL_CONFIG_DIR: configDir() });
    return { r, loaded: /LOADED (.*)/.exec(r.stderr)?.[1]?.split(' ') ?? [] };
  }
  const OFF_PATH = ['http', 'http2', 'assert', 'child_process', 'crypto', 'fs/promises'];

  it('a list request loads none of node:http, http2, assert, child_process, crypto, fs/promises', async () => {
    const { r, loaded } = await builtinsLoaded(['servers', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).length).toBeGreaterThan(0);
    expect(loaded).toContain('net');
    for (const name of OFF_PATH) expect(loaded).not.toContain(name);
  });

  it('nor does the long list of the bench (jobs backup list --all -o ndjson: the jobs module and what it imports)', async () => {
    const jobs = await runCli(['jobs', 'list', '--json'], { env: emulatorEnv(emu) });
    const job = (JSON.parse(jobs.stdout) as { id: string }[])[0]!;
    const { r, loaded } = await builtinsLoaded(['jobs', 'backup', 'list', job.id, '--all', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).length).toBeGreaterThan(0);
    for (const name of OFF_PATH) expect(loaded).not.toContain(name);
  });

  it('--help into a pipe makes no stream for stdout or stderr (written with fs.writeSync: no node:net, no tty)', async () => {
    const { r, loaded } = await builtinsLoaded(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: backupctl \[options\] \[command\]\n[^]*\nCommands:\n/);
    expect(loaded).toContain('fs');
    for (const name of ['net', 'tty']) expect(loaded).not.toContain(name);
    // An error's message still reaches stderr, and a list into a pipe still uses the stream.
    const wrong = await builtinsLoaded(['restore-tset']);
    expect(wrong.r.code).toBe(2);
    expect(wrong.r.stderr).toMatch(/^error: unknown command 'restore-tset'\n\(Did you mean restore-test\?\)/);
  });

  it('the same CLI still writes the config (crypto and fs.promises load when needed)', async () => {
    const r = await runCli(['config', 'set', 'output', 'json'], { env: { BACKUPCTL_CONFIG_DIR: configDir() } });
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(configDir(), 'config.json'), 'utf8')).profiles.default.output).toBe('json');
  });
});

describe('the command tree at start-up', () => {
  it('the top-level help lists every word as a program declared in full does', async () => {
    // The CLI reads dist/startup/: groups by name, commands that are words (status, api, ...)
    // by the term the build recorded, declared only when used.
    const io = memoryIO();
    const program = buildProgram(manifestSource(builtManifest()), io, async () => {});
    // The CLI's stdout is a pipe here (80 columns); this process's may be a terminal.
    program.configureHelp({ ...program.configureHelp(), helpWidth: 80 });
    program.outputHelp();
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(io.out());
    expect(r.stdout).toMatch(/^ {2}api \[options\] <path> +Send any request/m);
  });

  it('a word listed by its term gets its options when used', async () => {
    const r = await runCli(['status', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: backupctl status \[options\]/);
    expect(r.stdout).toContain('--max-age');
  });
});

describe('the two bundles (src/scripts/split-bundle.mjs)', () => {
  const emu = withEmulator({ seed: 'demo' });

  /** Which of dist/'s bundles `args` read, from a preload that watches fs.readFileSync. */
  async function bundlesRead(bin: string, args: string[]): Promise<{ r: { code: number | null; stdout: string; stderr: string }; read: string[] }> {
    const preload = path.join(work, 'bundles.cjs');
    writeFileSync(
      preload,
      [
        "const fs = require('node:fs'); const read = new Set(); const original = fs.readFileSync;",
        "fs.readFileSync = function (file, ...rest) { if (typeof file === 'string' && /[\\\\/]dist[\\\\/]\\w+\\.cjs$/.test(file)) read.add(file.replace(/.*[\\\\/]/, '')); return original.call(this, file, ...rest); };",
        "process.on('exit', () => process.stderr.write('READ ' + [...read].sort().join(' ') + '\\n'));",
      ].join('\n'),
    );
    const r = await node(['-r', preload, bin, ...args], { ...emulatorEnv(emu), BACKUPCTL_CONFIG_DIR: path.join(work, 'config-bundles') });
    return { r, read: /READ (.*)/.exec(r.stderr)?.[1]?.split(' ') ?? [] };
  }

  it('--help and servers list --json read dist/main.cjs alone', async () => {
    for (const args of [['--help'], ['servers', 'list', '--json']]) {
      const { r, read } = await bundlesRead(BIN, args);
      expect(r.code, r.stderr).toBe(0);
      expect(read).toEqual(['boot.cjs', 'main.cjs']);
    }
  });

  it('a command whose modules are in dist/cold.cjs reads it, and runs (status --json)', async () => {
    const { r, read } = await bundlesRead(BIN, ['status', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('summary');
    expect(read).toEqual(['boot.cjs', 'cold.cjs', 'main.cjs']);
  });

  it('a dist/cold.cjs of another build is refused with a message, never linked to this main.cjs', async () => {
    const dir = path.join(work, 'mixed');
    for (const part of ['bin', 'dist', 'package.json']) cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
    const coldFile = path.join(dir, 'dist', 'cold.cjs');
    writeFileSync(coldFile, readFileSync(coldFile, 'latin1').replace(/^(\/\/ backupctl build \S+ main )\S+/, '$10123456789abcdef'), 'latin1');
    const help = await bundlesRead(path.join(dir, 'bin', 'backupctl.cjs'), ['--help']);
    expect(help.r.code).toBe(0);
    const { r } = await bundlesRead(path.join(dir, 'bin', 'backupctl.cjs'), ['status', '--json']);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/cold\.cjs is not from the build of the running backupctl .*run the command again/);
  });
});
