// Shell completion as a user meets it: the committed scripts are the ones the
// registry generates, bash (and zsh and fish where installed) complete
// commands, flags and enum values, and ids come from the service through a
// short-lived cache.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BIN, ROOT, runCli, tempConfigDir } from '../helpers/cli.js';
import { apiRequests, startTestEmulator } from '../helpers/emulator.js';
import { COMPLETION_FILES, SHELLS, completionFiles } from '../../src/commands/completion.js';
import type { Manifest } from '../../src/resources/types.js';
import type { Emulator } from '../../src/emulator/index.js';

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'manifest.json'), 'utf8')) as Manifest;
const visible = manifest.commands.filter((c) => !c.hidden);
/** The words that follow `words` in some visible command, in registry order, each followed by its aliases (add after create). */
const subcommandsOf = (words: string[]) => [
  ...new Set(
    visible
      .filter((c) => c.path.length > words.length && words.every((w, i) => c.path[i] === w))
      .flatMap((c) => (c.path.length === words.length + 1 ? [c.path[words.length]!, ...(c.aliases ?? [])] : [c.path[words.length]!])),
  ),
];
const hasShell = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

let emu: Emulator;
let cfg: ReturnType<typeof tempConfigDir>;
/** A folder with a `backupctl` launcher, so the scripts can call the built CLI by name. */
let binDir: string;
const env = () => ({ BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir });
const shellEnv = () => ({ ...process.env, ...env(), PATH: `${binDir}:${process.env.PATH}` });

/** Runs the committed bash script's completion function on a command line; the last word is completed. */
function bashComplete(words: string[]): string[] {
  const script = `source completions/backupctl.bash; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _backupctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync('bash', ['-c', script, 'bash', ...words], { cwd: ROOT, env: shellEnv(), encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

const execFileAsync = promisify(execFile);

async function bashCompleteAsync(words: string[]): Promise<string[]> {
  const script = `source completions/backupctl.bash; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _backupctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await execFileAsync('bash', ['-c', script, 'bash', ...words], { cwd: ROOT, env: shellEnv(), encoding: 'utf8' });
  return stdout.split('\n').filter(Boolean);
}

beforeAll(async () => {
  emu = await startTestEmulator();
  cfg = tempConfigDir();
  binDir = path.join(cfg.dir, 'bin');
  mkdirSync(binDir);
  writeFileSync(path.join(binDir, 'backupctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(path.join(binDir, 'backupctl'), 0o755);
});
afterAll(async () => {
  await emu.close();
  cfg.cleanup();
});
beforeEach(() => emu.clearRequests());

describe('completion scripts', () => {
  it('the committed scripts are current (npm run docs rewrites them)', () => {
    for (const [file, text] of Object.entries(completionFiles(manifest))) {
      expect(readFileSync(path.join(ROOT, file), 'utf8'), `${file} is stale: run npm run docs`).toBe(text);
    }
  });

  it('backupctl completion <shell> prints the committed script', async () => {
    for (const shell of SHELLS) {
      const r = await runCli(['completion', shell]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(readFileSync(path.join(ROOT, COMPLETION_FILES[shell]), 'utf8'));
    }
  });

  it('refuses an unknown shell with exit 2', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('keeps the hidden __complete out of help and out of the scripts\' command lists', async () => {
    const r = await runCli(['--help']);
    expect(r.stdout).not.toContain('__complete');
    expect(bashComplete(['backupctl', '_'])).toEqual([]);
  });
});

describe('bash completion', () => {
  it('completes the top-level commands and a group\'s subcommands', () => {
    const top = bashComplete(['backupctl', '']);
    for (const group of subcommandsOf([])) expect(top).toContain(group);
    expect(top).toContain('help');
    expect(bashComplete(['backupctl', 'servers', ''])).toEqual(subcommandsOf(['servers']));
    expect(bashComplete(['backupctl', 'ser'])).toEqual(['servers']);
  });

  it.skipIf(!subcommandsOf(['jobs']).length)('completes the jobs subcommands', () => {
    expect(bashComplete(['backupctl', 'jobs', ''])).toEqual(subcommandsOf(['jobs']));
  });

  it('completes enum values of flags and positionals, sort fields both ways, and output formats', () => {
    const withEnum = visible.flatMap((c) => c.params.filter((p) => p.type === 'enum' && !p.positional && !p.hidden).map((p) => ({ c, p })))[0]!;
    const flag = `--${withEnum.p.flag ?? withEnum.p.name.replace(/[._]/g, '-')}`;
    expect(bashComplete(['backupctl', ...withEnum.c.path, flag, ''])).toEqual([...withEnum.p.values!]);
    expect(bashComplete(['backupctl', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(bashComplete(['backupctl', 'servers', 'list', '--sort', '-la'])).toEqual(['-last_used_at']);
    expect(bashComplete(['backupctl', 'servers', 'list', '-o', ''])).toEqual(['table', 'json', 'ndjson', 'tsv']);
    expect(bashComplete(['backupctl', '--output', '=', 'nd'])).toEqual(['ndjson']);
    expect(bashComplete(['backupctl', 'help', 'exit'])).toEqual(['exit-codes']);
  });

  it('completes flags, the global ones too, and skips flag values when finding the command', () => {
    const flags = bashComplete(['backupctl', 'servers', 'list', '--']);
    expect(flags).toEqual(expect.arrayContaining(['--name', '--sort', '--all', '--page-size', '--profile', '--output', '--json', '--help']));
    expect(flags).not.toContain('--version');
    expect(bashComplete(['backupctl', '--profile', 'servers', 'servers', ''])).toEqual(subcommandsOf(['servers']));
    expect(bashComplete(['backupctl', '--ver'])).toEqual(['--version']);
  });

  it.skipIf(!visible.some((c) => c.path.join(' ') === 'jobs get'))('completes job ids from the service', async () => {
    // Asynchronously: the emulator runs in this process and must stay free to answer.
    const ids = await bashCompleteAsync(['backupctl', 'jobs', 'get', '']);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe.skipIf(!hasShell('fish'))('fish completion', () => {
  const fishCompleteAsync = async (line: string): Promise<string[]> =>
    (await execFileAsync('fish', ['-c', `source completions/backupctl.fish; complete -C ${JSON.stringify(line)}`], { cwd: ROOT, env: shellEnv(), encoding: 'utf8' })).stdout
      .split('\n')
      .filter(Boolean);
  const fishComplete = (line: string): string[] =>
    execFileSync('fish', ['-c', `source completions/backupctl.fish; complete -C ${JSON.stringify(line)}`], { cwd: ROOT, env: shellEnv(), encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);

  it('completes subcommands with their summaries, flag values and --flag=value', () => {
    const servers = fishComplete('backupctl servers ');
    expect(servers.map((l) => l.split('\t')[0]).sort()).toEqual(subcommandsOf(['servers']).sort());
    expect(servers.find((l) => l.startsWith('list\t'))).toBe(`list\t${visible.find((c) => c.path.join(' ') === 'servers list')!.summary}`);
    expect(fishComplete('backupctl completion ').sort()).toEqual(['bash', 'fish', 'zsh']);
    expect(fishComplete('backupctl servers list --output=n')).toEqual(['--output=ndjson']);
  });

  it('offers names from the service with each id as the description', async () => {
    const jobs = JSON.parse((await runCli(['api', '/jobs', '-X', 'GET', '-F', 'page_size=100'], { env: env() })).stdout).data as Array<{ id: string; name: string }>;
    const lines = await fishCompleteAsync('backupctl jobs get ');
    expect(lines.sort()).toEqual(jobs.map((j) => `${j.name}\t${j.id}`).sort());
    const keys = await fishCompleteAsync('backupctl servers code --key ');
    expect(keys).toEqual(expect.arrayContaining([expect.stringMatching(/^ci-runner\t\d+$/)]));
  });
});

describe.skipIf(!hasShell('zsh'))('zsh completion', () => {
  // zsh's completion system needs a terminal; stand-ins for its builtins print what the script offers.
  const stubs = [
    'compdef() { }',
    'compset() { return 0 }',
    'compadd() { if [[ $1 == -a ]]; then print -rl -- ${(P)2}; else print -rl -- "$@"; fi }',
    '_describe() { print -rl -- ${(P)${@[-1]}} }',
    '_values() { shift 3; print -rl -- "$@" }',
    '_files() { print -r -- "(files)" }',
  ].join('\n');
  const zshComplete = (words: string[]): string[] =>
    execFileSync('zsh', ['-c', `${stubs}\nsource completions/_backupctl\nwords=("$@"); CURRENT=$#words; _backupctl`, 'zsh', ...words], {
      cwd: ROOT,
      env: shellEnv(),
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean);

  it('offers subcommands as name:description and enum values', () => {
    const servers = zshComplete(['backupctl', 'servers', '']);
    expect(servers.map((l) => l.split(':')[0])).toEqual(subcommandsOf(['servers']));
    expect(servers[0]).toContain(':');
    expect(zshComplete(['backupctl', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(zshComplete(['backupctl', 'api', '--input', ''])).toEqual(['(files)']);
    expect(zshComplete(['backupctl', 'servers', 'list', '--output=j'])).toEqual(['table', 'json', 'ndjson', 'tsv']);
  });

  it('offers names from the service as name:id (the id is the description)', async () => {
    const storage = JSON.parse((await runCli(['api', '/storage', '-X', 'GET'], { env: env() })).stdout).data as Array<{ id: number; name: string }>;
    const { stdout } = await execFileAsync('zsh', ['-c', `${stubs}\nsource completions/_backupctl\nwords=("$@"); CURRENT=$#words; _backupctl`, 'zsh', 'backupctl', 'storage', 'delete', ''], {
      cwd: ROOT,
      env: shellEnv(),
      encoding: 'utf8',
    });
    expect(stdout.split('\n').filter(Boolean).sort()).toEqual(storage.map((s) => `${s.name}:${s.id}`).sort());
  });
});

describe('backupctl __complete names', () => {
  it('prints name<TAB>id lines, from the same cache as ids', async () => {
    const r = await runCli(['__complete', 'names', 'ssh-keys'], { env: env() });
    expect(r.code).toBe(0);
    const keys = JSON.parse((await runCli(['api', '/ssh-keys', '-X', 'GET'], { env: env() })).stdout).data as Array<{ id: number; name: string }>;
    expect(r.stdout).toBe(keys.map((k) => `${k.name}\t${k.id}\n`).join(''));
    emu.clearRequests();
    const ids = await runCli(['__complete', 'ids', 'ssh-keys'], { env: env() });
    expect(ids.stdout).toBe(keys.map((k) => `${k.id}\t${k.name}\n`).join(''));
    expect(apiRequests(emu)).toHaveLength(0);
  });
});

describe('backupctl __complete ids', () => {
  it('prints the ids and names of jobs from the service, and a second call within a minute asks nothing', async () => {
    // Start without the cache an earlier test (bash completion of job ids) may have left.
    rmSync(path.join(cfg.dir, 'cache'), { recursive: true, force: true });
    const first = await runCli(['__complete', 'ids', 'jobs'], { env: env() });
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    const sentFirst = apiRequests(emu);
    expect(sentFirst).toHaveLength(1);
    expect(sentFirst[0]).toMatchObject({ method: 'GET', path: '/v1/jobs', query: { page_size: '100' } });

    const jobs = JSON.parse((await runCli(['api', '/jobs', '-X', 'GET', '-F', 'page_size=100'], { env: env() })).stdout).data as Array<{ id: string; name: string }>;
    expect(first.stdout).toBe(jobs.map((j) => `${j.id}\t${j.name}\n`).join(''));

    const cache = path.join(cfg.dir, 'cache', 'completion-jobs.json');
    expect(statSync(cache).mode & 0o777).toBe(0o600);

    emu.clearRequests();
    const second = await runCli(['__complete', 'ids', 'jobs'], { env: env() });
    expect(second.stdout).toBe(first.stdout);
    expect(apiRequests(emu)).toHaveLength(0);
  });

  it('lists servers from GET /v1/servers', async () => {
    const r = await runCli(['__complete', 'ids', 'servers'], { env: env() });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^\d+\t/);
  });

  it('asks again for another profile or service, not from the cache of the first', async () => {
    await runCli(['__complete', 'ids', 'servers'], { env: env() });
    emu.clearRequests();
    const r = await runCli(['--profile', 'other', '__complete', 'ids', 'servers'], { env: env() });
    expect(r.code).toBe(0);
    expect(apiRequests(emu)).toHaveLength(1);
  });

  it('is silent and exits 0 on any error: no token, unreachable service, unknown resource', async () => {
    const dir = tempConfigDir();
    try {
      const noToken = await runCli(['__complete', 'ids', 'jobs'], { env: { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_CONFIG_DIR: dir.dir } });
      expect(noToken).toMatchObject({ code: 0, stdout: '', stderr: '' });
      const down = await runCli(['__complete', 'ids', 'jobs'], {
        env: { BACKUPCTL_BASE_URL: 'http://127.0.0.1:9', BACKUPCTL_TOKEN: 'x', BACKUPCTL_CONFIG_DIR: dir.dir },
      });
      expect(down).toMatchObject({ code: 0, stdout: '', stderr: '' });
      const unknown = await runCli(['__complete', 'ids', 'passwords'], { env: { ...env(), BACKUPCTL_CONFIG_DIR: dir.dir } });
      expect(unknown).toMatchObject({ code: 0, stdout: '', stderr: '' });
    } finally {
      dir.cleanup();
    }
  });
});
