// Verdicts a backup owner can trust (issue 23 §1): the built CLI against the emulator.
// 1. A schedule edit does not rewrite history: a schedule changed 10 days ago (the
//    emulator's clock started 10 days back, the change made with `jobs schedule
//    update`, so the job's updated_at is then) leaves the runs before it unknown,
//    never missed, in every format.
// 2. Snapshot resources: "schedule unknown", never "unscheduled".
// 3. report --check with --max-missed and --min-success: exit 13, -q the offenders,
//    --healthcheck-url pinged through the cron helper.
// 4. status and report show the verify and restore-test marks of each job's newest
//    backup (a failed one makes the job failing in status --check).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { emulatorSession } from '../helpers/emulator.js';
import type { EmulatorOptions } from '../../src/emulator/index.js';
import { reportDocumentSchema, type ReportDocument } from '../../src/report/document.js';
import { statusDocumentSchema } from '../../src/status/document.js';
import { reportJobColumns } from '../../src/report/text.js';
import { MarksStore, serviceKey } from '../../src/state/marks.js';

const DAY = 86_400_000;
/** What every run of a block gets: its emulator, config and state folder, and no COLUMNS of the caller's. */
const session = (opts: EmulatorOptions = {}) => emulatorSession({ ...opts, timeoutMs: 20_000, env: () => ({ COLUMNS: undefined }) });

describe('a schedule changed 10 days ago', () => {
  const changedAt = Date.now() - 10 * DAY;
  // The emulator's clock starts 10 days back: its history ends then, and the edit is stamped then.
  const { cli: run } = session({ now: changedAt });
  beforeAll(async () => {
    const r = await run(['jobs', 'get', 'web-01 files', '--jq', '.schedule[0].id']);
    expect(r.code, r.stderr).toBe(0);
    const edit = await run(['jobs', 'schedule', 'update', 'web-01 files', r.stdout.trim(), '--cron', '0 6 * * *']);
    expect(edit.code, edit.stderr).toBe(0);
  });
  const day = new Date(changedAt).toISOString().slice(0, 10);

  it('--json: the runs before the change are unknown, not missed; the change is in the document', async () => {
    const r = await run(['report', '--job', 'web-01 files', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc: ReportDocument = reportDocumentSchema.parse(JSON.parse(r.stdout));
    const e = doc.jobs[0]!;
    expect(Date.parse(e.schedule_changed_at!)).toBeGreaterThanOrEqual(changedAt - 1000);
    expect(Date.parse(e.schedule_changed_at!)).toBeLessThan(changedAt + 60_000);
    // Twenty nights at 02:00 ran under the old schedule: none of the 06:00 runs before the change is missed.
    const before = e.runs.filter((x) => Date.parse(x.expected_at) < changedAt);
    expect(before.length).toBeGreaterThanOrEqual(19);
    expect(before.every((x) => x.outcome === 'unknown')).toBe(true);
    expect(e.unknown).toBe(before.length);
    // After the change the current schedule judges: the emulator's history ends at the change, so its runs are missed.
    expect(e.missed).toBe(e.runs.filter((x) => Date.parse(x.expected_at) >= changedAt && x.outcome === 'missed').length);
    expect(e.missed!).toBeLessThanOrEqual(11);
    expect(e.missed_runs.every((t) => Date.parse(t) >= changedAt)).toBe(true);
    // The backups before it are of an unknown schedule, not unscheduled.
    expect(e.unscheduled).toBe(0);
    // About twenty nights; how many fall in the window depends on the hour the test runs (18 at 01:07
    // UTC, when 19 was asserted and the test failed in CI): what is checked is that they are all
    // counted as of an unknown schedule, and all of them are from before the change.
    expect(e.schedule_unknown).toBeGreaterThanOrEqual(15);
    expect(e.schedule_unknown_backups).toHaveLength(e.schedule_unknown);
    expect(e.schedule_unknown_backups.every((b) => !b.manual && Date.parse(b.started_at ?? b.completed_at ?? '') < changedAt)).toBe(true);
    expect(e.notes.join('\n')).toContain(`unknown: schedule changed on ${day}`);
    expect(doc.summary.jobs.unknown).toBe(e.unknown);
  });

  it('says it in the table, Markdown, tsv and HTML', async () => {
    const table = await run(['report', '--job', 'web-01 files', '-o', 'table']);
    expect(table.stdout).toContain(`unknown: schedule changed on ${day}`);
    expect(table.stdout).toMatch(/web-01 files .* \d+ \(\d+ unknown\) /);
    const md = await run(['report', '--job', 'web-01 files', '-o', 'md']);
    expect(md.stdout).toContain(`unknown: schedule changed on ${day}`);
    const tsv = await run(['report', '--job', 'web-01 files', '-o', 'tsv']);
    // tsv has no header line: the columns are those of reportJobColumns, in order.
    const row = tsv.stdout.trim().split('\t');
    const at = (key: string) => row[reportJobColumns.findIndex((c) => c.key === key)];
    expect(at('schedule_changed_at')).toMatch(new RegExp(`^${day}T`));
    expect(Number(at('unknown'))).toBeGreaterThanOrEqual(19);
    const html = await run(['report', '--job', 'web-01 files', '-o', 'html']);
    expect(html.stdout).toContain(`unknown: schedule changed on ${day}`);
    // A calendar day before the change is unknown, naming the change: "worst unknown (…)" on a day the
    // current schedule expected a run, "schedule unknown (…)" on one it did not (which days exist depends
    // on the hour the window starts: at 01:30 every day of the window holds a 06:00 run).
    expect(html.stdout).toMatch(new RegExp(`(worst unknown|schedule unknown) \\(schedule changed on ${day}\\)`));
  });
});

describe('on the demo', () => {
  const demo = session();
  const { emu, cli: run } = demo;

  it('snapshot resources: schedule unknown, not unscheduled; their empty days are not "no run expected"', async () => {
    const r = await run(['report', '--json']);
    const doc = reportDocumentSchema.parse(JSON.parse(r.stdout));
    expect(doc.resources!.length).toBeGreaterThan(0);
    for (const e of doc.resources!) {
      expect(e).toMatchObject({ computable: false, unscheduled: 0, missed: null });
      expect(e.schedule_unknown).toBeGreaterThan(0);
    }
    expect(doc.summary.resources!.unscheduled).toBe(0);
    const table = await run(['report', '-o', 'table'], { COLUMNS: '250' });
    expect(table.stdout).toMatch(/Snapshot resources \(backups activated\): .*\d+ of unknown schedule/);
    expect(table.stdout).not.toMatch(/Snapshot resources \(backups activated\): .*unscheduled/);
    const html = (await run(['report', '-o', 'html'])).stdout;
    const resources = html.slice(html.indexOf('<section id="resources">'));
    expect(resources).toContain('schedule unknown');
    expect(resources).not.toContain('no run expected</title>');
  });

  it('--check: exit 13 naming the jobs that break a threshold; -q lists only them; none broken: exit 0', async () => {
    const all = await run(['report', '--check', '--min-success', '99']);
    expect(all.code).toBe(13);
    expect(all.stderr).toMatch(/^error: 7 of 8 jobs break a threshold of report --check\n/);
    expect(all.stderr).not.toMatch(/git server/);
    const doc = JSON.parse((await run(['report', '--check', '--min-success', '99', '--json'])).stdout) as ReportDocument;
    // archive files: its last 5 runs missed, 1 failed. It runs at 04:00 New York, and the numbers depend on the
    // hour: when the 30 days hold a change of US clocks, the run 30 days back was an hour off in UTC (29 runs
    // between 08:00 and 09:00 UTC in November, 31 on the March day clocks go forward), and today's run is
    // pending, not missed, for its hour of grace (4 missed then, or 5 before it, see below).
    // CI at 09:00 UTC saw "success 79.3%" where this test had "5 missed runs ... success 80%" written in.
    const archive = doc.jobs.find((j) => j.name === 'archive files')!;
    expect(archive.failed).toBe(1);
    // Its newest run is pending for its hour of grace while the emulator, whose history ends a few minutes back,
    // has not made it yet: then the 5 missed ones are the 5 before it.
    expect([4, 5]).toContain(archive.missed);
    expect([0, 1]).toContain(archive.pending);
    expect([29, 30, 31]).toContain(archive.expected);
    expect(archive.completed).toBe(archive.expected! - archive.pending! - archive.missed! - 1);
    expect(archive.success_rate).toBeCloseTo(archive.completed! / (archive.expected! - archive.pending!), 10);
    const pct = (archive.success_rate! * 100).toFixed(1).replace(/\.0$/, '');
    expect(all.stderr.split('\n')).toContain(`  archive files (${archive.id}): ${archive.missed} missed runs, more than --max-missed 0; success ${pct}%, below --min-success 99%`);
    expect(doc.check!.broken.map((b) => b.name)).not.toContain('git server');
    const quiet = await run(['report', '--check', '--min-success', '99', '-q']);
    expect(quiet.code).toBe(13);
    const ids = quiet.stdout.trim().split('\n');
    expect(ids).toHaveLength(7);
    expect(ids).toEqual(doc.check!.broken.map((b) => b.id));
    // At the lowest rate (archive files', to a tenth of a percent below), nothing is below it.
    const lowest = Math.min(...doc.jobs.filter((j) => j.success_rate !== null).map((j) => j.success_rate!));
    expect(lowest).toBe(archive.success_rate);
    const loose = await run(['report', '--check', '--max-missed', '5', '--min-success', `${Math.floor(lowest * 1000) / 10}%`, '-q']);
    expect([loose.code, loose.stdout, loose.stderr]).toEqual([0, '', '']);
  });

  it('the rules are in --explain and the help, not under every table (issue 25 §9)', async () => {
    const plain = await run(['report', '--since', '2d', '-o', 'table']);
    expect(plain.stdout).not.toMatch(/^Rules/m);
    expect(plain.stdout).toMatch(/The rules: backupctl report --explain\.\n$/);
    const explained = await run(['report', '--since', '2d', '-o', 'table', '--explain']);
    expect(explained.stdout).toMatch(/\nRules\n- Expected runs come from each schedule's cron expression/);
    expect(explained.stdout).toContain('- A schedule edit does not rewrite history');
    const help = await run(['report', '--help']);
    expect(help.stdout).toContain('Rules (also printed by --explain):');
    expect(help.stdout).toMatch(/--check .*\n?.*exit/);
  });

  it('refuses thresholds without --check and out of range, sending nothing', async () => {
    emu.clearRequests();
    const bare = await run(['report', '--max-missed', '2']);
    expect([bare.code, bare.stderr]).toEqual([2, 'error: --max-missed is a threshold of --check: add --check\n']);
    const high = await run(['report', '--check', '--min-success', '101']);
    expect(high.code).toBe(2);
    expect(high.stderr).toMatch(/--min-success: must be a percentage from 0 to 100/);
    expect(emu.requests).toEqual([]);
  });

  it('--check --healthcheck-url: /start, then /fail with exit 13 (the same cron helper as status and verify)', async () => {
    const pings: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        pings.push(`${req.url} ${body}`.trim());
        res.end('OK');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ping/r1`;
    try {
      const bad = await run(['report', '--check', '--healthcheck-url', url, '-q']);
      expect(bad.code).toBe(13);
      expect(pings[0]).toBe('/ping/r1/start');
      expect(pings[1]).toMatch(/^\/ping\/r1\/fail exit 13: \d of 8 jobs break a threshold/);
      pings.length = 0;
      const good = await run(['report', '--check', '--max-missed', '100', '--healthcheck-url', url, '-q']);
      expect(good.code).toBe(0);
      expect(pings).toEqual(['/ping/r1/start', '/ping/r1']);
      pings.length = 0;
      const status = await run(['status', '--check', '--healthcheck-url', url, '-q']);
      expect(status.code).toBe(9);
      expect(pings[1]).toMatch(/^\/ping\/r1\/fail exit 9: /);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('status and report show the verify of the newest backup; a failed one makes the job failing in status --check (issue 29: marks per backup)', async () => {
    // git server's newest backup is the demo's corrupted one: verify fails it; api postgres verifies.
    expect((await run(['verify', 'git server', '--latest', '-q'])).code).toBe(11);
    expect((await run(['verify', 'api postgres', '--latest', '-q'])).code).toBe(0);
    const status = statusDocumentSchema.parse(JSON.parse((await run(['status', '--json'])).stdout));
    const git = status.jobs.find((j) => j.name === 'git server')!;
    expect(git.health).toBe('failing');
    expect(git.verify).toMatchObject({ state: 'failed', of_newest: true, backup_id: git.last_completed!.id });
    expect(status.jobs.find((j) => j.name === 'api postgres')!.verify).toMatchObject({ state: 'passed', of_newest: true });
    expect(status.jobs.find((j) => j.name === 'shop mysql')!.verify).toBeNull();
    const check = await run(['status', '--check']);
    expect(check.code).toBe(9);
    expect(check.stderr).toMatch(/^ {2}git server \([0-9a-f-]{36}\): the verify of the newest completed backup failed /m);
    const table = await run(['status', '-o', 'table'], { COLUMNS: '250' });
    expect(table.stdout).toMatch(/^failing +git server .* failed just now/m);
    const metrics = (await run(['status', '-o', 'prometheus'])).stdout;
    expect(metrics).toMatch(/^backupctl_job_verify_state\{[^}]*"git server"[^}]*state="failed"\} 1$/m);
    expect(metrics).toMatch(/^backupctl_job_verify_state\{[^}]*"api postgres"[^}]*state="passed"\} 1$/m);
    expect(metrics).not.toMatch(/^backupctl_job_verify_state\{[^}]*"shop mysql"/m);
    expect(metrics).toMatch(/^backupctl_job_health\{[^}]*"git server"[^}]*health="failing"\} 1$/m);

    const report = reportDocumentSchema.parse(JSON.parse((await run(['report', '--json'])).stdout));
    expect(report.jobs.find((j) => j.name === 'git server')!.verify).toMatchObject({ state: 'failed' });
    const md = (await run(['report', '-o', 'md'])).stdout;
    // The failed read is in the catalog too (issue 33): anomalies does not judge it, the column says unchecked.
    expect(md).toMatch(/^\| git server \|.*\| failed \d{4}-\d\d-\d\d \d\d:\d\d [^|]+ \| never \| unchecked \|$/m);
  });

  it('status and report show the restore test of the newest backup and its time to restore; a job never restore-tested says so', async () => {
    const status0 = statusDocumentSchema.parse(JSON.parse((await run(['status', '--json'])).stdout));
    const shop = status0.jobs.find((j) => j.name === 'shop mysql')!;
    const at = new Date(Date.now() - 2 * DAY).toISOString();
    const marks = await MarksStore.open(path.join(demo.state, 'backupctl'), serviceKey(emu.url, emu.token));
    await marks.record('restore_test', [
      {
        backupId: shop.last_completed!.id!,
        jobId: shop.id,
        createdAt: shop.last_completed!.created_at,
        mark: { at, state: 'passed', reason: null, exit_code: 0, total_seconds: 42, rows: 640, tables: 4, engine: 'MariaDB 10.11 (local)' },
      },
    ]);
    const status = statusDocumentSchema.parse(JSON.parse((await run(['status', '--json'])).stdout));
    expect(status.jobs.find((j) => j.name === 'shop mysql')!.restore_test).toMatchObject({ state: 'passed', of_newest: true, at, total_seconds: 42 });
    expect(status.jobs.find((j) => j.name === 'web-01 files')!.restore_test).toBeNull();
    const table = await run(['status', '-o', 'table'], { COLUMNS: '250' });
    expect(table.stdout).toMatch(/Restore test/);
    expect(table.stdout).toMatch(/^healthy +shop mysql .* passed 2 days ago$/m);
    expect(table.stdout).toMatch(/^healthy +web-01 files .* never$/m);
    const report = await run(['report', '-o', 'table'], { COLUMNS: '250' });
    expect(report.stdout).toMatch(/^shop mysql .* passed 2 days ago, 42s to restore$/m);
    expect(report.stdout).toMatch(/^web-01 files .* never$/m);
  });
});
