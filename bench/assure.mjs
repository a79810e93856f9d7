// The assure section of `npm run bench` (issue 44): the built CLI against `backupctl emulator
// --fleet-jobs 1000`.
// - Scheduling and state overhead per assured test, with a local PostgreSQL state: one `assure run
//   --concurrency 1` over N due verify tests; its wall time, less the time the tests themselves ran
//   (each result's `seconds`: the verify, backup chosen) and less the same run's `--dry-run` (start-up,
//   the plan, the 1,000 jobs and the marks read once), over N. What is left is per test: claiming and
//   finishing its lease, re-reading the marks after it, its line of output. Goal: <= 50 ms. The same
//   with the fixed start spread over the N tests (wall less `node -e ''`) is shown beside it.
// - `assure status` over 1,000 jobs against `status` over the same 1,000 jobs, each job's newest backup
//   verified (its mark in the state folder). Goal: <= 2x.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { account, privateDir, sh, startServer } from './restore.mjs';

const FLEET = 1000;
/** Due tests per overhead round: the jobs "fleet 0001" to "fleet 0049". */
const GLOB = 'fleet 00[0-4]?';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Runs a command, its wall time and stdout; exit codes in `ok` are fine. */
function timed(cmd, argv, env, ok = [0]) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (!ok.includes(code)) reject(new Error(`${argv.join(' ')} exited ${code}: ${err.slice(0, 500)}`));
      else resolve({ ms, out });
    });
  });
}

async function getJson(emu, p) {
  const res = await fetch(`${emu.url}${p}`, { headers: { authorization: `Bearer ${emu.token}`, accept: 'application/json' } });
  if (!res.ok) throw new Error(`GET ${p}: ${res.status}`);
  return res.json();
}

/** A marks.json (src/state/marks.ts) with a passed verify of each job's newest backup, an hour ago. */
async function writeMarks(emu, stateHome) {
  const jobs = [];
  for (let page = 1; ; page++) {
    const { data } = await getJson(emu, `/v1/jobs?page_size=100&page=${page}`);
    jobs.push(...data);
    if (data.length < 100) break;
  }
  const at = new Date(Date.now() - 3_600_000).toISOString();
  const mark = { at, state: 'passed', reason: null, exit_code: 0 };
  const backups = {};
  for (const j of jobs) {
    const { data } = await getJson(emu, `/v1/jobs/${j.id}/backups?page_size=15`);
    const newest = data.filter((b) => b.status === 'completed').sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)))[0];
    if (newest) backups[newest.id] = { job_id: j.id, created_at: newest.created_at, verify: { last: mark, conclusive: mark } };
  }
  const service = `${emu.url.trim().replace(/\/+$/, '')} account:${createHash('sha256').update(emu.token).digest('hex').slice(0, 16)}`;
  mkdirSync(path.join(stateHome, 'backupctl'), { recursive: true });
  writeFileSync(path.join(stateHome, 'backupctl', 'marks.json'), JSON.stringify({ version: 1, services: { [service]: { backups } } }));
  return jobs.length;
}

export async function assureRows({ row, startEmulator, env, bin, runs = 5, rounds = 3 }) {
  const node = process.execPath;
  const emu = await startEmulator(['--seed', 'empty', '--fleet-jobs', String(FLEET)]);
  const work = mkdtempSync(path.join(tmpdir(), 'backupctl-bench-assure-'));
  try {
    const emuEnv = { ...env, BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token };

    // 1. Scheduling and state overhead per test, with a local PostgreSQL state (a new database each round: every test due).
    const who = account('postgres');
    const dir = privateDir(who);
    const pgBin = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)).map((v) => `/usr/lib/postgresql/${v}/bin`)[0];
    sh(path.join(pgBin, 'initdb'), ['-D', path.join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '-N'], who ?? {});
    const server = await startServer(path.join(pgBin, 'postgres'), ['-D', path.join(dir, 'data'), '-k', dir, '-c', 'listen_addresses=', '-F'], who, /ready to accept connections/);
    try {
      const plan = path.join(work, 'plan.yaml');
      writeFileSync(plan, `version: 1\nassurance:\n  "${GLOB}":\n    verify_every: 1d\n`);
      const per = [];
      const perAll = [];
      let dryMs = 0;
      let n = 0;
      let testMs = 0;
      let wallMs = 0;
      process.stderr.write(`assure: ${rounds} rounds of assure run over the due tests of ${GLOB}, PostgreSQL state...\n`);
      for (let i = 0; i < rounds; i++) {
        sh('psql', ['-X', '-q', '-h', dir, '-U', 'postgres', '-d', 'postgres', '-c', `CREATE DATABASE round${i}`]);
        const base = median(await Promise.all([0, 1, 2].map(() => timed(node, ['-e', ''], env))).then((rs) => rs.map((r) => r.ms)));
        const stateEnv = { ...emuEnv, BACKUPCTL_STATE_URL: `postgres://postgres@/round${i}?host=${dir}`, XDG_STATE_HOME: path.join(work, `state-${i}`) };
        const dry = await timed(node, [bin, 'assure', 'run', '-f', plan, '--dry-run'], stateEnv);
        dryMs = dry.ms;
        const r = await timed(node, [bin, 'assure', 'run', '-f', plan, '--concurrency', '1', '--json'], stateEnv);
        const doc = JSON.parse(r.out);
        if (!doc.results.length || doc.results.some((t) => t.state !== 'passed')) throw new Error(`assure run: ${doc.results.length} results, not all passed`);
        const tests = doc.results.reduce((sum, t) => sum + t.seconds * 1000, 0);
        n = doc.results.length;
        testMs = tests;
        wallMs = r.ms;
        per.push((r.ms - dry.ms - tests) / n);
        perAll.push((r.ms - base - tests) / n);
      }
      const overhead = median(per);
      row(
        `\`assure run --concurrency 1\`, ${n} due verify tests of 1,000 jobs, local PostgreSQL state: scheduling and state overhead per test (wall - its --dry-run - the tests' own time, / tests)`,
        `${overhead.toFixed(1)} ms (median of ${rounds} rounds; last round: ${(wallMs / 1000).toFixed(1)} s wall, ${(dryMs / 1000).toFixed(1)} s --dry-run, ${(testMs / 1000).toFixed(1)} s in the tests)`,
        '<= 50 ms',
        overhead <= 50,
      );
      row(
        '  the same with the fixed start (start-up, plan, 1,000 jobs, marks) spread over the tests (wall - `node -e \'\'` - the tests\' own time, / tests)',
        `${median(perAll).toFixed(1)} ms`,
        '(info)',
        null,
      );
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.on('exit', r));
      rmSync(dir, { recursive: true, force: true });
    }

    // 2. assure status against status, the same 1,000 jobs, each with a verify mark.
    const stateHome = path.join(work, 'status-state');
    const jobs = await writeMarks(emu, stateHome);
    const plan = path.join(work, 'all.yaml');
    writeFileSync(plan, 'version: 1\nassurance:\n  "fleet *":\n    verify_every: 1d\n');
    const e = { ...emuEnv, XDG_STATE_HOME: stateHome };
    process.stderr.write(`assure: status vs assure status over ${jobs} jobs, ${runs} runs each, alternated...\n`);
    const ms = { status: [], assure: [] };
    for (let i = 0; i < runs + 1; i++) {
      const s = await timed(node, [bin, 'status', '--json'], e);
      const a = await timed(node, [bin, 'assure', 'status', '-f', plan, '--json'], e);
      if (i === 0) {
        // One warm-up round; both read the marks: every job covered, every job's verify shown.
        const rows = JSON.parse(a.out);
        if (rows.length !== jobs || rows.some((r) => r.state !== 'covered')) throw new Error('assure status: not every job covered');
        continue;
      }
      ms.status.push(s.ms);
      ms.assure.push(a.ms);
    }
    const ratio = median(ms.assure) / median(ms.status);
    row(
      `\`assure status\` over ${jobs.toLocaleString('en')} jobs (one plan, every job verified) vs \`status\` over the same jobs`,
      `${ratio.toFixed(2)}x (${median(ms.assure).toFixed(0)} ms vs ${median(ms.status).toFixed(0)} ms, medians of ${runs})`,
      '<= 2x',
      ratio <= 2,
    );
  } finally {
    emu.child.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}
