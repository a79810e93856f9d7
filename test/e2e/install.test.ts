// Install as a user does (issue 14): `npm pack` in a copy of the sources (the
// package's `prepare` builds dist/ there), then `npm install -g --prefix <tmp>`
// of the tarball, offline (the package has no run-time dependencies: the
// bundle holds them), and the installed `backupctl` run from a folder outside
// the sources, with only that prefix's bin/ and node's folder on PATH.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, cleanEnv, runProgram } from '../helpers/cli.js';
import { emulatorEnv, requestsTo, withEmulator } from '../helpers/emulator.js';
import { bytesUnder, packAndInstall, withoutNpmVars } from '../../src/scripts/pack-install.mjs';
import { COMPLETION_FILES } from '../../src/completion/index.js';
import type { ManifestCommand, StartupIndex } from '../../src/contract/spec.js';

/** The largest installed package the issue allows: 3 MB (decimal, the stricter reading). */
const MAX_INSTALLED_BYTES = 3_000_000;

let work: string;
let prefix: string;
let outside: string;
let packOutput: string;
let installed: string;
let sources: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'backupctl-install-'));
  // A fresh clone's files (no dist/), with the dependencies `npm ci` would have installed.
  sources = path.join(work, 'clone');
  for (const part of ['package.json', 'package-lock.json', 'LICENSE', 'README.md', 'docs', 'tsconfig.json', 'bin', 'src', 'completions']) {
    cpSync(path.join(ROOT, part), path.join(sources, part), { recursive: true });
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(sources, 'node_modules'), 'dir');
  outside = path.join(work, 'elsewhere');
  mkdirSync(outside);
  ({ packOutput, prefix, installed } = await packAndInstall({ sources, work, env: cleanEnv() }));
}, 360_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm pack, then npm install -g of the tarball', () => {
  const emu = withEmulator();
  /** The installed command, run from a folder outside the sources, found on PATH like a user's. */
  const backupctl = (args: string[], extra: Record<string, string | undefined> = {}, input?: string) =>
    runProgram('backupctl', args, {
      cwd: outside,
      input,
      env: withoutNpmVars(cleanEnv({ PATH: [path.join(prefix, 'bin'), path.dirname(process.execPath)].join(path.delimiter), BACKUPCTL_CONFIG_DIR: path.join(work, 'config'), ...extra })),
    });

  it('packs the built dist/ (and the LICENSE) and installs no dependencies, within 3 MB', () => {
    expect(packOutput).toMatch(/dist\/main\.cjs/);
    expect(packOutput).not.toMatch(/dist\/(main|cold)\.cache/);
    expect(packOutput).toMatch(/LICENSE/);
    // No completions/: `backupctl completion <shell>` prints the same scripts (and the 3 MB are tight).
    // No docs/ either (140 kB): `--help`, `backupctl help <topic>` and the man page carry what a user needs;
    // the pages live with the source.
    expect(readdirSync(installed).sort()).toEqual(['LICENSE', 'README.md', 'bin', 'dist', 'package.json']);
    // No dist/manifest.json either: the same tree is in dist/startup/ (94 kB saved); the man page gzipped (55 kB saved).
    // No dist/main.cache nor dist/cold.cache (1.3 MB): an installed backupctl writes the V8 code cache of each bundle
    // on its first use, in ~/.cache/backupctl (src/boot.cjs).
    expect(readdirSync(path.join(installed, 'dist')).sort()).toEqual(['backupctl.1.gz', 'boot.cjs', 'cold.cjs', 'jq.wasm.gz', 'main.cjs', 'sqlite.wasm.gz', 'startup']);
    // npm links the page where man finds it: <prefix>/share/man/man1.
    expect(readdirSync(path.join(prefix, 'share', 'man', 'man1'))).toEqual(['backupctl.1.gz']);
    if (spawnSync('man', ['--version'], { stdio: 'ignore' }).status === 0) {
      const man = spawnSync('man', ['-l', path.join(prefix, 'share', 'man', 'man1', 'backupctl.1.gz')], {
        encoding: 'utf8',
        // MAN_DISABLE_SECCOMP: as in manpage.test.ts, for a suite run under faketime.
        env: { ...process.env, MANPAGER: 'cat', PAGER: 'cat', LANG: 'C.UTF-8', MAN_DISABLE_SECCOMP: '1' },
        timeout: 30_000,
      });
      expect(man.stdout).toMatch(/^BACKUPCTL\(1\)/);
    }
    expect(bytesUnder(installed)).toBeLessThanOrEqual(MAX_INSTALLED_BYTES);
  });

  it('the bundle leaves only node built-ins outside it (the metafile esbuild wrote for that build)', () => {
    const meta = JSON.parse(readFileSync(path.join(sources, '.tmp', 'meta.json'), 'utf8')) as {
      outputs: Record<string, { imports: { path: string; external?: boolean }[] }>;
    };
    const external = Object.values(meta.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
    expect(external.length).toBeGreaterThan(0);
    // node:sqlite (undici's optional cache store, required only when used) is newer than node 20: a node: name is never a package.
    expect(external.filter((p) => !p.startsWith('node:') && !isBuiltin(p))).toEqual([]);
  });

  it('the bundle leaves out what conf imports for options backupctl does not use (ajv, ajv-formats, fast-uri, semver)', () => {
    const meta = JSON.parse(readFileSync(path.join(sources, '.tmp', 'meta.json'), 'utf8')) as { inputs: Record<string, unknown> };
    const inputs = Object.keys(meta.inputs);
    expect(inputs.some((f) => f.includes('node_modules/conf/'))).toBe(true);
    expect(inputs.filter((f) => /node_modules\/(ajv|ajv-formats|fast-uri|semver)\//.test(f))).toEqual([]);
  });

  it('runs --help, servers list against the emulator and completion bash', async () => {
    const help = await backupctl(['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: backupctl /);
    expect(help.stdout).toContain('servers');

    emu.clearRequests();
    const list = await backupctl(['servers', 'list', '--json'], emulatorEnv(emu));
    expect(list.code, list.stderr).toBe(0);
    const servers = JSON.parse(list.stdout) as { id: number; name: string }[];
    expect(servers.length).toBeGreaterThan(0);
    // Configuration lists are read whole (issue 29), in pages of 100: the demo's 20 servers are one page.
    expect(requestsTo(emu, '/v1/servers', 'GET').map((r) => r.query)).toEqual([{ page_size: '100' }]);

    // The whole command tree read from dist/startup/: the same script as the one generated from dist/manifest.json.
    const completion = await backupctl(['completion', 'bash']);
    expect(completion.code, completion.stderr).toBe(0);
    expect(completion.stdout).toContain('complete -F');
    expect(completion.stdout).toBe(readFileSync(path.join(ROOT, COMPLETION_FILES.bash), 'utf8'));
  });

  it('schema reads the command tree without dist/manifest.json', async () => {
    const schema = await backupctl(['schema', 'servers', 'list']);
    expect(schema.code, schema.stderr).toBe(0);
    expect(JSON.parse(schema.stdout)).toMatchObject({ title: 'backupctl servers list --json', type: 'array' });
  });

  it('logs a profile in (the config writes load conf from the bundle) and lists with it', async () => {
    const login = await backupctl(['auth', 'login', '--base-url', emu.url, '--with-token'], {}, `${emu.token}\n`);
    expect(login.code, login.stderr).toBe(0);
    emu.clearRequests();
    const list = await backupctl(['servers', 'list', '-q']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^\d+\n/);
    // Configuration lists are read whole (issue 29), in pages of 100: the demo's 20 servers are one page.
    expect(requestsTo(emu, '/v1/servers', 'GET').map((r) => r.query)).toEqual([{ page_size: '100' }]);
  });
});

describe('dist/startup/', () => {
  it('holds the whole command tree: the same commands in the same order as dist/manifest.json', () => {
    const read = (name: string): unknown => JSON.parse(readFileSync(path.join(ROOT, 'dist', 'startup', name), 'utf8'));
    const index = read('index.json') as StartupIndex;
    const commands = index.tops.flatMap((top) => read(`${top}.json`) as ManifestCommand[]);
    expect({ version: index.version, groups: index.groups, commands }).toEqual(JSON.parse(readFileSync(path.join(ROOT, 'dist', 'manifest.json'), 'utf8')));
  });
});
