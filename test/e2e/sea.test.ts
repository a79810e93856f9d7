// The single executable (issue 14, `npm run package`): built once for this
// file from the current dist/ into a temporary folder, then run the way cron
// runs it on a server without Node.js: a minimal environment whose PATH has no
// `node`, from a folder of its own.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, runProgram } from '../helpers/cli.js';
import { emulatorEnv, requestsTo, withEmulator } from '../helpers/emulator.js';
import { COMPLETION_FILES } from '../../src/completion/index.js';

let work: string;
let exe: string;
let home: string;
let emptyBin: string;
let buildStderr: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'backupctl-sea-'));
  ({ stderr: buildStderr } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'src', 'scripts', 'sea.mjs'), '--out', path.join(work, 'out')], { cwd: ROOT }));
  exe = path.join(work, 'out', `backupctl-${process.platform}-${process.arch}`);
  home = path.join(work, 'home');
  emptyBin = path.join(work, 'bin');
  mkdirSync(home);
  mkdirSync(emptyBin);
}, 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The executable with a cron-like environment: PATH without node, HOME, and what the test adds. */
function sea(args: string[], extra: Record<string, string> = {}) {
  return runProgram(exe, args, { cwd: home, env: { ...fakedClock(), PATH: emptyBin, HOME: home, BACKUPCTL_CONFIG_DIR: path.join(work, 'config'), ...extra } });
}

/** A suite run under faketime keeps its clock in the executable too (else the two CLIs compare different hours). */
function fakedClock(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => /^(FAKETIME|LD_PRELOAD$|DONT_FAKE_MONOTONIC$)/.test(e[0]) && e[1] !== undefined));
}

describe('the single executable, with no node on PATH', () => {
  const emu = withEmulator();

  it('builds without the harmless ".note.100" warnings of postject (issue 25 §12), and says what it built', () => {
    expect(buildStderr).not.toContain("Can't find string offset");
    expect(buildStderr).toMatch(/^built .*backupctl-/m);
  });

  it('is a standalone file, and PATH really has no node', () => {
    expect(statSync(exe).mode & 0o111).not.toBe(0);
    expect(existsSync(path.join(emptyBin, 'node'))).toBe(false);
  });

  it('--version prints the package version', async () => {
    const r = await sea(['--version']);
    expect(r).toMatchObject({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });

  it('servers list --json sends one request and prints what the node CLI prints', async () => {
    emu.clearRequests();
    const r = await sea(['servers', 'list', '--json'], emulatorEnv(emu));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    // Configuration lists are read whole (issue 29), in pages of 100: the demo's 20 servers are one page.
    const sent = requestsTo(emu, '/v1/servers', 'GET');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.query).toEqual({ page_size: '100' });
    const viaNode = await runCli(['servers', 'list', '--json'], { env: emulatorEnv(emu) });
    expect(viaNode.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(viaNode.stdout));
    expect(JSON.parse(r.stdout).length).toBeGreaterThan(0);
  });

  it('status --check exits as the node CLI does, with the same lines', async () => {
    const r = await sea(['status', '--check', '-q'], emulatorEnv(emu));
    const viaNode = await runCli(['status', '--check', '-q'], { env: emulatorEnv(emu) });
    // The demo seed has a failing and an overdue job: exit 9.
    expect(viaNode.code).toBe(9);
    expect(r.code, r.stderr).toBe(9);
    expect(r.stdout).toBe(viaNode.stdout);
    // Ages are printed to the minute, and the two runs may straddle one.
    const ages = (text: string) => text.replace(/\d+h\d+m/g, '<age>');
    expect(ages(r.stderr)).toBe(ages(viaNode.stderr));
    expect(r.stderr).toMatch(/^error: status --check: \d+ failing, \d+ stale of \d+ jobs/m);
  });

  it('completion bash prints the committed script (the command tree from the startup/ assets)', async () => {
    const r = await sea(['completion', 'bash']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(readFileSync(path.join(ROOT, COMPLETION_FILES.bash), 'utf8'));
  });

  it('uses the code cache from its blob (it wrote none of its own under HOME)', () => {
    expect(existsSync(path.join(home, '.cache', 'backupctl'))).toBe(false);
  });
});
