// assure run (issue 44 §2, §4): the due tests run through verify itself, each a mark; runners as
// processes on one PostgreSQL state split the work by lease (four runners over 42 due jobs: the demo's
// and `emulator --fleet-jobs`), one killed mid-run, every due test done exactly once; --shard splits without a state; a random plan picks different backups and says which.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli } from '../helpers/cli.js';
import { withEmulator, jobsOf } from '../helpers/emulator.js';
import { startPgServer, type PgServer } from '../helpers/pg-server.js';
import { PgMarksStore } from '../../src/state/pg-marks.js';
import { serviceKey } from '../../src/state/marks.js';

let pg: PgServer;
let work: string;
beforeAll(async () => {
  pg = await startPgServer();
  pg.sql('CREATE DATABASE runners');
  work = mkdtempSync(path.join(tmpdir(), 'backupctl-assure-'));
}, 60_000);
afterAll(async () => {
  await pg?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const stateUrl = () => `postgres://postgres:superpw@/runners?host=${pg.dir}`;

describe('assure run', () => {
  // The demo's 8 jobs and 34 fleet jobs: 42 due tests for the runners.
  const emu = withEmulator({ fleetJobs: 34 });
  const env = (name: string, extra: Record<string, string> = {}) => {
    const home = path.join(work, name);
    mkdirSync(path.join(home, 'cfg'), { recursive: true });
    mkdirSync(path.join(home, 'state'), { recursive: true });
    return { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: path.join(home, 'cfg'), XDG_STATE_HOME: path.join(home, 'state'), ...extra };
  };
  const plan = (name: string, text: string) => {
    const p = path.join(work, name);
    writeFileSync(p, text);
    return p;
  };

  it('four runners as processes on one PostgreSQL state over 42 due jobs, one killed mid-run: every due test is done exactly once, no mark lost', async () => {
    const jobs = await jobsOf(emu);
    expect(jobs.length).toBeGreaterThanOrEqual(40);
    const file = plan('all.yaml', 'version: 1\nassurance:\n  "*":\n    verify_every: 1d\n');
    const lines: string[][] = [];
    const start = (i: number) => {
      const child = spawn(process.execPath, [BIN, 'assure', 'run', '-f', file, '--concurrency', '1', '--lease', '2s'], {
        env: cleanEnv(env(`runner-${i}`, { BACKUPCTL_STATE_URL: stateUrl() })),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const mine: string[] = [];
      lines[i] = mine;
      let buf = '';
      child.stderr.on('data', (d: Buffer) => {
        buf += d.toString();
        const parts = buf.split('\n');
        buf = parts.pop()!;
        mine.push(...parts);
      });
      child.stdout.resume();
      return { child, done: new Promise<number | null>((r) => child.on('close', (code) => r(code))) };
    };
    const runners = [0, 1, 2, 3].map(start);
    // The first runner dies (SIGKILL: no clean-up) as soon as it has finished one test: it holds its next one.
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (lines[0]!.some((l) => l.startsWith('assure: '))) {
          clearInterval(t);
          runners[0]!.child.kill('SIGKILL');
          resolve();
        }
      }, 20);
    });
    const codes = await Promise.all(runners.map((r) => r.done));
    expect(codes[0]).toBeNull();
    // git server's newest backup is the demo's corrupted one: a survivor that tested it exits 9.
    for (const c of codes.slice(1)) expect([0, 9]).toContain(c);
    const tested = lines.flat().filter((l) => l.startsWith('assure: verify ')).map((l) => /^assure: verify "([^"]+)"/.exec(l)![1]!);
    // Every job once: none twice, none left out.
    expect([...tested].sort()).toEqual(jobs.map((j) => String(j.name)).sort());
    // Every test left its mark in the shared state.
    const marks = await PgMarksStore.open(stateUrl(), serviceKey(emu.url, emu.token));
    for (const j of jobs) expect(marks.ofJob(String(j.id)).filter((b) => b.verify), String(j.name)).toHaveLength(1);
    // The killed runner's held test was taken over by a survivor.
    expect(lines[0]!.filter((l) => l.startsWith('assure: ')).length).toBeLessThan(jobs.length);
    // Run again: nothing is due within the window.
    const again = await runCli(['assure', 'run', '-f', file, '--json'], { env: env('runner-again', { BACKUPCTL_STATE_URL: stateUrl() }) });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ due: 0, results: [] });
    // assure status from another member of the team sees the same coverage.
    const st = await runCli(['assure', 'status', '-f', file, '--json'], { env: env('auditor', { BACKUPCTL_STATE_URL: stateUrl() }) });
    const rows = JSON.parse(st.stdout) as Array<{ job: string; state: string }>;
    expect(rows).toHaveLength(jobs.length);
    expect(rows.find((r) => r.job === 'git server')?.state).toBe('failing');
    expect(rows.find((r) => r.job === 'api postgres')?.state).toBe('covered');
    const check = await runCli(['assure', 'status', '-f', file, '--check', '-q'], { env: env('auditor', { BACKUPCTL_STATE_URL: stateUrl() }) });
    expect(check.code).toBe(9);
    const prom = await runCli(['assure', 'status', '-f', file, '-o', 'prometheus'], { env: env('auditor', { BACKUPCTL_STATE_URL: stateUrl() }) });
    expect(prom.stdout).toContain('backupctl_assurance_covered{job="api postgres",test="verify"} 1');
    expect(prom.stdout).toContain('backupctl_assurance_covered{job="git server",test="verify"} 0');
  }, 180_000);

  it('--shard i/n splits the due tests with no state: disjoint shares that cover them all', async () => {
    const file = plan('shard.yaml', 'version: 1\nassurance:\n  "*":\n    verify_every: 1d\n');
    const e = env('sharding');
    const all = await runCli(['assure', 'run', '-f', file, '--dry-run'], { env: e });
    expect(all.code, all.stderr).toBe(0);
    const shares = await Promise.all([1, 2, 3].map((i) => runCli(['assure', 'run', '-f', file, '--dry-run', '--shard', `${i}/3`], { env: e })));
    const lists = shares.map((s) => s.stdout.trim().split('\n').filter(Boolean));
    expect(lists.flat().sort()).toEqual(all.stdout.trim().split('\n').sort());
    expect(new Set(lists.flat()).size).toBe(lists.flat().length);
    expect((await runCli(['assure', 'run', '-f', file, '--shard', '4/3'], { env: e })).code).toBe(2);
  });

  it('a random plan over 30 days picks different backups across runs and records which', async () => {
    const file = plan('random.yaml', 'version: 1\nassurance:\n  "api postgres":\n    verify_every: 1d\n    backup: random\n    within: 30d\n');
    const picked: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await runCli(['assure', 'run', '-f', file, '--json'], { env: env(`random-${i}`) });
      expect(r.code, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout) as { results: Array<{ backup_id: string; state: string }> };
      expect(doc.results).toHaveLength(1);
      picked.push(doc.results[0]!.backup_id);
      // The mark is the chosen backup's.
      const st = await runCli(['assure', 'status', '-f', file, '--json'], { env: env(`random-${i}`) });
      expect(JSON.parse(st.stdout)[0]).toMatchObject({ backup_id: doc.results[0]!.backup_id, state: 'covered' });
    }
    expect(new Set(picked).size).toBeGreaterThan(1);
  }, 120_000);
});
