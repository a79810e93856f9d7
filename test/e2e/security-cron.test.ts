// Issue 18, finding 5: `--lock` must let exactly one of many concurrent runs
// through, whatever a stale lock holds; a lock whose pid was reused expires; a
// bare lock name lives in the per-user state folder, not /tmp; and a run turned
// away by the lock pings the healthcheck's /fail. The service is a small server
// on 127.0.0.1 that holds every start request until the test releases it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startCli, until, type RunningCli } from '../helpers/spawn.js';
import { startHostileServer, type HostileRequest, type LocalServer } from '../helpers/servers.js';
import type { ServerResponse } from 'node:http';

const JOB = '3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c';
let srv: LocalServer & { received: HostileRequest[] };
const held: ServerResponse[] = [];
let holding = true;
let cfg: ReturnType<typeof tempConfigDir>;
let dir: string;

const answer = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ backup_id: 'b-1', status: 'pending' }));
};

beforeAll(async () => {
  cfg = tempConfigDir();
  dir = mkdtempSync(path.join(tmpdir(), 'backupctl-lock-'));
  srv = await startHostileServer((req, res) => {
    if (req.url?.startsWith('/hc')) return void res.end('OK');
    if (holding) held.push(res);
    else answer(res);
  });
});
afterAll(async () => {
  for (const r of held.splice(0)) answer(r);
  await srv.close();
  cfg.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => ({
  BACKUPCTL_BASE_URL: srv.url,
  BACKUPCTL_TOKEN: 'tok-lock-test',
  BACKUPCTL_CONFIG_DIR: cfg.dir,
  HOME: dir,
  ...extra,
});
const posts = () => srv.received.filter((q) => q.method === 'POST' && q.url.includes('/backups/start'));

/** N runs at once; every start request is held until the others have ended. Returns the exit codes. */
async function race(n: number, lock: string): Promise<number[]> {
  srv.received.length = 0;
  holding = true;
  const runs: RunningCli[] = [];
  for (let i = 0; i < n; i++) runs.push(startCli(['jobs', 'backup', 'start', JOB, '--lock', lock], env(), 40_000));
  const ended = new Set<number>();
  runs.forEach((r, i) => void r.done.then(() => ended.add(i)));
  await until(() => ended.size + held.length >= n, 35_000);
  holding = false;
  for (const r of held.splice(0)) answer(r);
  const results = await Promise.all(runs.map((r) => r.done));
  return results.map((r) => r.code ?? -1);
}

describe('finding 5: one lock lets exactly one run through', () => {
  it('a stale lock {"pid":999999} left by an older version: 16 runs at once, one POST, the rest exit 10', async () => {
    const lock = path.join(dir, 'stale-json.lock');
    for (let round = 0; round < 2; round++) {
      writeFileSync(lock, JSON.stringify({ pid: 999999, started_at: '2026-01-01T00:00:00Z' }));
      const codes = await race(16, lock);
      expect(posts()).toHaveLength(1);
      expect(codes.filter((c) => c === 0)).toHaveLength(1);
      expect(codes.filter((c) => c === 10)).toHaveLength(15);
      expect(existsSync(lock)).toBe(false);
    }
  }, 90_000);

  it('an empty lock file left behind: one POST', async () => {
    const lock = path.join(dir, 'empty.lock');
    writeFileSync(lock, '');
    // A minute before the file's own time: the kernel dates files by the real clock, also under faketime.
    const old = new Date(statSync(lock).mtimeMs - 60_000);
    utimesSync(lock, old, old);
    const codes = await race(12, lock);
    expect(posts()).toHaveLength(1);
    expect(codes.filter((c) => c === 0)).toHaveLength(1);
  }, 60_000);

  it.skipIf(!existsSync('/proc/self/stat'))('a lock whose pid now belongs to another process (reused) is taken over', async () => {
    // A live process that is not the holder: the lock names its pid but another start time.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    try {
      const lock = path.join(dir, 'reused.lock');
      const stat = readFileSync(`/proc/${other.pid}/stat`, 'utf8');
      const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
      writeFileSync(lock, `${other.pid} ${ticks - 1000}\n`);
      holding = false;
      srv.received.length = 0;
      const r = await runCli(['jobs', 'backup', 'start', JOB, '--lock', lock], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      expect(posts()).toHaveLength(1);
      // The same pid with its real start time is a live holder: exit 10, nothing sent.
      writeFileSync(lock, `${other.pid} ${ticks}\n`);
      srv.received.length = 0;
      const busy = await runCli(['jobs', 'backup', 'start', JOB, '--lock', lock], { env: env() });
      expect(busy.code).toBe(10);
      expect(busy.stderr).toContain(`pid ${other.pid}`);
      expect(posts()).toHaveLength(0);
    } finally {
      other.kill();
    }
  }, 30_000);
});

describe('finding 5: where the lock lives, and the healthcheck on exit 10', () => {
  it('a bare name is a lock in $XDG_STATE_HOME/backupctl, else ~/.local/state/backupctl (0700)', async () => {
    holding = true;
    srv.received.length = 0;
    const state = path.join(dir, 'xdg-state');
    const first = startCli(['jobs', 'backup', 'start', JOB, '--lock', 'nightly'], env({ XDG_STATE_HOME: state }), 30_000);
    const lock = path.join(state, 'backupctl', 'nightly.lock');
    await until(() => held.length === 1, 20_000);
    expect(readFileSync(lock, 'utf8')).toMatch(/^\d+( \d+)?\n$/);
    expect(statSync(path.dirname(lock)).mode & 0o777).toBe(0o700);
    const second = await runCli(['jobs', 'backup', 'start', JOB, '--lock', 'nightly', '--healthcheck-url', `${srv.url}/hc/uuid`], {
      env: env({ XDG_STATE_HOME: state }),
    });
    expect(second.code).toBe(10);
    expect(second.stderr).toContain(lock);
    // The monitor hears that tonight's run did not happen.
    expect(srv.received.filter((q) => q.url.startsWith('/hc')).map((q) => q.url)).toEqual(['/hc/uuid/fail']);
    holding = false;
    for (const r of held.splice(0)) answer(r);
    expect((await first.done).code).toBe(0);
    expect(existsSync(lock)).toBe(false);
    // Without XDG_STATE_HOME: ~/.local/state/backupctl.
    const home = await runCli(['jobs', 'backup', 'start', JOB, '--lock', 'nightly', '--dry-run'], { env: { ...env(), XDG_STATE_HOME: undefined } });
    expect(home.code).toBe(0);
    const r = await runCli(['jobs', 'backup', 'start', JOB, '--lock', 'nightly'], { env: { ...env(), XDG_STATE_HOME: undefined } });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(dir, '.local', 'state', 'backupctl'))).toBe(true);
  }, 60_000);
});
