// backupctl retention through the built CLI against the emulator, its clock
// set (--now) so every date below is fixed: nothing depends on the hour the
// test runs. The "retention ..." jobs (--retention-jobs, src/emulator/
// retention.ts) run at 03:00 UTC daily; their backups are made at the due runs
// before NOW, 10 s after 03:00.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiRequests, emulatorSession } from '../helpers/emulator.js';
import { serviceKey } from '../../src/state/marks.js';

// A Tuesday. 2026-03-01 is a Sunday and the 1st; 2026-03-08 and 2026-03-15 are Sundays.
const NOW = '2026-03-10T12:00:00Z';

interface Row {
  id: string;
  created_at: string;
  tags: string[];
  action: string;
  rules: string[];
  reason: string;
  expires_at: string | null;
  expires_run: number | null;
}
interface Doc {
  inputs: { counts: Record<string, number>; counts_from: string; service_counts: Record<string, number>; schedules: Array<{ cron: string; timezone: string }>; tags_used: string[] };
  backups: Row[];
  keep: string[];
  expire: string[];
  reasons: Array<{ id: string; matches: string[] }>;
  next_run: { at: string; expiring: string[] } | null;
}

const session = emulatorSession({ now: Date.parse(NOW), retentionJobs: true, timeoutMs: 60_000 });
const { emu, cli } = session;
/** A row's day of creation, which is how the comments below name the backups. */
const day = (r: Row) => r.created_at.slice(0, 10);
async function forecastOf(job: string, ...more: string[]): Promise<Doc> {
  const r = await cli(['retention', job, '--now', NOW, '--json', ...more]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Doc[])[0]!;
}

describe('retention forecast', () => {
  it('daily 7 over 10 daily backups: which go at the next run and at each run after, with the reasons', async () => {
    // By hand (docs/retention.md, A1-A6). Backups at 03:00 on 03-01 .. 03-10, all daily; counts daily 7
    // (weekly 0, monthly 0, so the Sunday / 1st tags keep nothing). Newest first they are daily #1 (03-10)
    // .. #7 (03-04); 03-03, 03-02, 03-01 are #8-#10, beyond the count: they go at the next run (03-11
    // 03:00), when the service next applies retention. That run's own backup counts (A4): it becomes
    // daily #1, so 03-04 (#7 now) is pushed out by it too: 4 go at the next run. Then one per run: 03-05
    // at run 2 (03-12), 03-06 at run 3, ... 03-10 at run 7 (03-17).
    const doc = await forecastOf('retention lowered');
    expect(doc.inputs).toMatchObject({ counts: { hourly: 0, daily: 7, weekly: 0, monthly: 0 }, counts_from: 'service', schedules: [{ cron: '0 3 * * *', timezone: 'UTC' }], tags_used: ['daily'] });
    const rows = doc.backups;
    expect(rows.map(day)).toEqual(['2026-03-10', '2026-03-09', '2026-03-08', '2026-03-07', '2026-03-06', '2026-03-05', '2026-03-04', '2026-03-03', '2026-03-02', '2026-03-01']);
    expect(rows.map((r) => r.action)).toEqual([...Array(7).fill('keep'), 'expire', 'expire', 'expire']);
    expect(rows.map((r) => r.rules.join(','))).toEqual(['daily #1', 'daily #2', 'daily #3', 'daily #4', 'daily #5', 'daily #6', 'daily #7', '', '', '']);
    expect(rows.map((r) => r.expires_run)).toEqual([7, 6, 5, 4, 3, 2, 1, 1, 1, 1]);
    expect(rows.map((r) => r.expires_at)).toEqual([
      '2026-03-17T03:00:00.000Z', '2026-03-16T03:00:00.000Z', '2026-03-15T03:00:00.000Z', '2026-03-14T03:00:00.000Z',
      '2026-03-13T03:00:00.000Z', '2026-03-12T03:00:00.000Z', '2026-03-11T03:00:00.000Z', '2026-03-11T03:00:00.000Z',
      '2026-03-11T03:00:00.000Z', '2026-03-11T03:00:00.000Z',
    ]);
    expect(rows[7]!.reason).toBe('beyond daily 7 (#8): goes at the next run');
    expect(rows[6]!.reason).toBe('kept by daily #7; pushed out of daily by run 1');
    expect(doc.next_run).toEqual({ at: '2026-03-11T03:00:00.000Z', tags: ['daily'], expiring: rows.slice(6).map((r) => r.id) });
    // restic's shape: keep, expire (restic's remove) and the rules that match each kept one.
    expect(doc.keep).toEqual(rows.slice(0, 7).map((r) => r.id));
    expect(doc.expire).toEqual(rows.slice(7).map((r) => r.id));
    expect(doc.reasons[0]).toEqual({ id: rows[0]!.id, matches: ['daily #1'] });
  });

  it('GFS: daily 4, weekly 2, monthly 1 over 60 days of daily backups', async () => {
    // By hand: backups at 03:00 from 01-10 to 03-10 (60). Sundays: 01-11, 01-18, 01-25, 02-01, 02-08,
    // 02-15, 02-22, 03-01, 03-08; the 1st: 02-01, 03-01. Kept now: daily #1-#4 = 03-10, 03-09, 03-08,
    // 03-07; weekly #1-#2 = 03-08, 03-01; monthly #1 = 03-01. So 5 are kept, 55 go at the next run (03-11).
    // When the kept go: 03-07 (daily #4) at run 1 (03-11); 03-09 (daily #2) at run 3 (03-13); 03-10
    // (daily #1) at run 4 (03-14); 03-08 (daily #3, weekly #1): daily lets go at run 2, weekly once two
    // newer Sundays run, 03-15 and 03-22: run 12 (03-22); 03-01 (weekly #2, monthly #1): weekly lets go at
    // 03-15, monthly at the next 1st, 04-01: run 22.
    const doc = await forecastOf('retention gfs');
    expect(doc.backups).toHaveLength(60);
    const kept = doc.backups.filter((r) => r.action === 'keep').map((r) => [day(r), r.rules.join(', '), r.expires_at, r.expires_run]);
    expect(kept).toEqual([
      ['2026-03-10', 'daily #1', '2026-03-14T03:00:00.000Z', 4],
      ['2026-03-09', 'daily #2', '2026-03-13T03:00:00.000Z', 3],
      ['2026-03-08', 'daily #3, weekly #1', '2026-03-22T03:00:00.000Z', 12],
      ['2026-03-07', 'daily #4', '2026-03-11T03:00:00.000Z', 1],
      ['2026-03-01', 'weekly #2, monthly #1', '2026-04-01T03:00:00.000Z', 22],
    ]);
    const gone = doc.backups.filter((r) => r.action === 'expire');
    expect(gone).toHaveLength(55);
    expect(new Set(gone.map((r) => r.expires_run))).toEqual(new Set([1]));
    // 02-01 (a Sunday and the 1st): 10 days of March and 28 of February newer or equal make it daily #38;
    // Sundays 03-08, 03-01, 02-22, 02-15, 02-08 before it make it weekly #6; 03-01 makes it monthly #2.
    expect(gone.find((r) => day(r) === '2026-02-01')).toMatchObject({ tags: ['daily', 'weekly', 'monthly'], reason: 'beyond daily 4 (#38), beyond weekly 2 (#6), beyond monthly 1 (#2): goes at the next run' });
  });

  it('--what-if forecasts with other counts and sends nothing but reads', async () => {
    emu.clearRequests();
    const doc = await forecastOf('retention lowered', '--what-if', 'daily=3,weekly=1');
    expect(doc.inputs).toMatchObject({ counts: { daily: 3, weekly: 1 }, counts_from: 'what-if', service_counts: { daily: 7, weekly: 0 } });
    // daily 3 keeps 03-10, 03-09, 03-08; weekly 1 keeps 03-08 (a Sunday) too.
    expect(doc.backups.filter((r) => r.action === 'keep').map((r) => [day(r), r.rules.join(', ')])).toEqual([
      ['2026-03-10', 'daily #1'],
      ['2026-03-09', 'daily #2'],
      ['2026-03-08', 'daily #3, weekly #1'],
    ]);
    const sent = apiRequests(emu);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((r) => r.method !== 'GET')).toEqual([]);
    const bad = await cli(['retention', 'retention lowered', '--what-if', 'yearly=2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('error: invalid value "yearly=2" for --what-if: "yearly" is not a period (one of: hourly, daily, weekly, monthly)\n');
  });

  it('a table and Markdown echo the inputs first, then one row per backup', async () => {
    const table = await cli(['retention', 'retention lowered', '--now', NOW, '-o', 'table']);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines.slice(1, 6)).toEqual([
      'counts:     d7',
      'schedule:   0 3 * * * UTC',
      'tags read:  daily; manual backups are not counted',
      expect.stringMatching(/^forecast:   \d+ runs, until \S+ \S+; assumptions A1, A2, A3, A4, A5, A6, A7 \(docs\/retention\.md\)$/),
      'next run:   2026-03-11 03:00Z (daily): 4 expire',
    ]);
    expect(lines[7]).toMatch(/^BACKUP\s+CREATED\s+TAGS\s+ACTION\s+RULE\s+EXPIRES\s+REASON$/);
    expect(lines[8]).toMatch(/^[0-9a-f-]{36}\s+2026-03-10 03:00Z\s+daily\s+keep\s+daily #1\s+2026-03-17 03:00Z \(run 7\)\s+kept by daily #1; pushed out of daily by run 7$/);
    const md = await cli(['retention', 'retention lowered', '--now', NOW, '-o', 'md']);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/^## job retention lowered \([0-9a-f-]{36}\)\n\n- counts:     d7\n/);
    expect(md.stdout).toContain('| keep | daily #7 | 2026-03-11 03:00Z (run 1) | kept by daily #7; pushed out of daily by run 1 |');
  });

  it('--simulate lists what goes each day and what exists at the end', async () => {
    const r = await cli(['retention', 'retention lowered', '--now', NOW, '--simulate', '3d', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = (JSON.parse(r.stdout) as Array<Doc & { simulation: { days: Array<{ date: string; runs: Array<{ expiring: string[] }> }>; remaining: string[] } }>)[0]!;
    expect(doc.simulation.days.map((d) => [d.date, d.runs[0]!.expiring.length])).toEqual([['2026-03-11', 4], ['2026-03-12', 1], ['2026-03-13', 1]]);
    // 10 - 6 gone + 3 new runs = 7: the count, kept.
    expect(doc.simulation.remaining).toHaveLength(7);
  });
});

describe('retention guard and audit', () => {
  function proveByRestoreTest(jobId: string, backupId: string): void {
    const dir = path.join(session.state, 'backupctl');
    mkdirSync(dir, { recursive: true });
    // A passed restore-test mark of that backup, for this service (src/state/marks.ts).
    const mark = { at: NOW, state: 'passed', reason: null, exit_code: 0, total_seconds: 2, rows: 10, tables: 1, engine: null };
    const backups = { [backupId]: { job_id: jobId, created_at: null, restore_test: { last: mark, conclusive: mark } } };
    writeFileSync(path.join(dir, 'marks.json'), JSON.stringify({ version: 1, services: { [serviceKey(emu.url, emu.token)]: { backups } } }));
  }

  it('--check fails (exit 16) when the only passed backup is the oldest kept, naming it and the date', async () => {
    const jobs = JSON.parse((await cli(['jobs', 'list', '--json'])).stdout) as Array<{ id: string; name: string }>;
    const job = jobs.find((j) => j.name === 'retention lowered')!;
    const doc = await forecastOf(job.id);
    const oldestKept = doc.backups.filter((r) => r.action === 'keep').at(-1)!;
    proveByRestoreTest(job.id, oldestKept.id);
    const r = await cli(['retention', job.id, '--now', NOW, '--check', '-q']);
    expect(r.code, r.stderr).toBe(16);
    expect(r.stderr).toContain(`the newest backup that passed restore-test, ${oldestKept.id}`);
    expect(r.stderr).toContain('is predicted to expire at 2026-03-11T03:00:00.000Z (run 1)');
    expect(r.stderr).toContain(`and the newer ${doc.backups[0]!.id}`);
    // The newest one proven instead: it goes at run 7 (03-17), beyond the 3 days: the guard holds.
    proveByRestoreTest(job.id, doc.backups[0]!.id);
    const ok = await cli(['retention', job.id, '--now', NOW, '--check', '-q']);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('status --check warns of the guard as a kind of its own; report shows what expires next per job', async () => {
    const jobs = JSON.parse((await cli(['jobs', 'list', '--json'])).stdout) as Array<{ id: string; name: string }>;
    const job = jobs.find((j) => j.name === 'retention lowered')!;
    // status and report forecast from the real clock; the emulator's backups are all older, so the
    // ranks (and which backup goes first) are the same at any hour.
    const rows = (await forecastOf(job.id)).backups;
    proveByRestoreTest(job.id, rows[6]!.id); // daily #7: goes at the next run
    const status = await cli(['status', '--check', '--job', job.id]);
    expect(status.stderr).toContain(`warning: retention guard: retention lowered (${job.id}): the newest backup that passed restore-test, ${rows[6]!.id}`);
    const report = await cli(['report', '-o', 'table', '--job', job.id]);
    expect(report.code, report.stderr).toBe(0);
    // The oldest of the four that go at the next run, named first.
    expect(report.stdout).toMatch(new RegExp(`Expires next .*\\n  retention lowered  ${rows[9]!.id} \\(created ${rows[9]!.created_at.slice(0, 10)}\\) at .*, with 3 more at the next run\\n`));
  });

  it('status --check\'s guard window is 3 days: it warns of a proven backup expiring in about 2 days, not in about 4', async () => {
    // status forecasts from the real clock: the next run (run 1) is 0 to 24 h away, so daily #6 (it goes at run 2)
    // goes in 24 to 48 h and daily #4 (run 4) in 72 to 96 h, at any hour.
    const jobs = JSON.parse((await cli(['jobs', 'list', '--json'])).stdout) as Array<{ id: string; name: string }>;
    const job = jobs.find((j) => j.name === 'retention lowered')!;
    const rows = (await forecastOf(job.id)).backups;
    expect([rows[5]!.expires_run, rows[3]!.expires_run]).toEqual([2, 4]);
    proveByRestoreTest(job.id, rows[5]!.id); // daily #6
    const soon = await cli(['status', '--check', '--job', job.id]);
    expect(soon.stderr).toContain(`warning: retention guard: retention lowered (${job.id}): the newest backup that passed restore-test, ${rows[5]!.id}`);
    expect(soon.stderr).toMatch(/is predicted to expire at \S+ \(run 2\)/);
    proveByRestoreTest(job.id, rows[3]!.id); // daily #4
    const later = await cli(['status', '--check', '--job', job.id]);
    expect(later.stderr).not.toContain('retention guard');
  });

  it('the guard\'s story of the emulator: verify "retention guard" --latest proves a backup two runs from expiring', async () => {
    const verify = await cli(['verify', 'retention guard', '--latest', '-q']);
    expect(verify.code, verify.stderr).toBe(0);
    // daily 2 and two backups: the newest is daily #1; run 1 makes daily #1 of its own, run 2 pushes it out.
    const r = await cli(['retention', 'retention guard', '--now', NOW, '--check', '--json']);
    expect(r.code, r.stderr).toBe(16);
    const [doc] = JSON.parse(r.stdout) as Array<{ guard: { fails: boolean; proven: { by: string; expires_run: number; expires_at: string } } }>;
    expect(doc!.guard).toMatchObject({ fails: true, proven: { by: 'verify', expires_run: 2, expires_at: '2026-03-12T03:00:00.000Z' } });
  });

  it('--audit compares the recorded predictions with what the emulator expired', async () => {
    const before = await forecastOf('retention gfs'); // records its predictions
    expect(before.next_run!.expiring).toHaveLength(56);
    const start = await cli(['jobs', 'backup', 'start', 'retention gfs', '--daily', '--wait', '-q']);
    expect(start.code, start.stderr).toBe(0);
    const r = await cli(['retention', 'retention gfs', '--audit', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [audit] = JSON.parse(r.stdout) as Array<{ runs_since: number; predictions: number; held: number; wrong: unknown[] }>;
    // One run since: the 56 predicted for run 1 expired, the 4 predicted for later runs are still there.
    expect(audit).toMatchObject({ runs_since: 1, predictions: 60, held: 60, wrong: [] });
    const statuses = JSON.parse((await cli(['jobs', 'backup', 'list', 'retention gfs', '--all', '--json'])).stdout) as Array<{ status: string }>;
    expect(statuses.filter((b) => b.status === 'expired')).toHaveLength(56);
  });
});

describe('backups as code sees retention', () => {
  it('plan of a file lowering a count says what the next run expires; apply needs --allow-expiry in a script', async () => {
    const exported = await cli(['export', '--only', 'jobs']);
    expect(exported.code, exported.stderr).toBe(0);
    // "retention lowered" from daily 7 to daily 3.
    const at = exported.stdout.indexOf('  retention lowered:');
    const daily = exported.stdout.indexOf('daily: 7', at);
    expect(at >= 0 && daily > at).toBe(true);
    const file = path.join(session.cfg.dir, 'lower.yaml');
    writeFileSync(file, `${exported.stdout.slice(0, daily)}daily: 3${exported.stdout.slice(daily + 'daily: 7'.length)}`);
    // By hand: today the next run removes 03-01 .. 03-04 (see the first test). With daily 3 it keeps
    // 03-10, 03-09 and its own backup, so it also removes 03-08, 03-07, 03-06, 03-05: 4 it keeps today.
    const rows = (await forecastOf('retention lowered')).backups;
    const plan = await cli(['plan', '-f', file]);
    expect(plan.code, plan.stderr).toBe(12);
    expect(plan.stdout).toContain(`job "retention lowered": lower retention: the next run (`);
    expect(plan.stdout).toContain(`expires 4 backups it keeps today: oldest ${rows[5]!.id} (2026-03-05 03:00Z), newest ${rows[2]!.id} (2026-03-08 03:00Z)`);
    const json = JSON.parse((await cli(['plan', '-f', file, '--json'])).stdout) as { expiry: Array<{ target: string; expire: number; oldest: { id: string }; newest: { id: string } }> };
    expect(json.expiry).toMatchObject([{ target: 'job', expire: 4, oldest: { id: rows[5]!.id }, newest: { id: rows[2]!.id } }]);

    emu.clearRequests();
    const refused = await cli(['apply', '-f', file, '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('error: the plan lowers retention: the next runs expire 4 backups or snapshots kept today; give --allow-expiry to allow it; nothing was changed');
    expect(apiRequests(emu).filter((r) => r.method !== 'GET')).toEqual([]);
    const applied = await cli(['apply', '-f', file, '--yes', '--allow-expiry']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(apiRequests(emu).filter((r) => r.method === 'PATCH').map((r) => r.body)).toEqual([{ retention_hourly: 0, retention_daily: 3, retention_weekly: 0, retention_monthly: 0 }]);
  });
});
