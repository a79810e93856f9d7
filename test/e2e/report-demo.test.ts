// `report` against the demo history of docs/demo-data.md, counted by hand.
//
// 1. The emulator's clock pinned (emulator `now`) on two instants whose 30-day
//    windows cross the spring and the autumn clock changes of Europe/Paris and
//    America/New_York; the CLI asks for exactly the 30 days before that instant
//    (what `--since 30d` means at it). Every figure below was counted by hand from
//    the table of docs/demo-data.md (k = 0 is the newest due run before the
//    pinned instant; 13:30 UTC is far from every job's run, so each daily job has
//    30 runs in the window and the 6-hourly one 120).
// 2. `report --since 30d` against an emulator on the real clock: the missed and
//    failed runs of the table are the same at any hour (they are all among the 29
//    newest runs), and the expected runs add up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';
import { reportDocumentSchema, type ReportDocument, type ReportEntry } from '../../src/report/document.js';

let cfg: ReturnType<typeof tempConfigDir>;
beforeAll(() => {
  cfg = tempConfigDir();
});
afterAll(() => cfg.cleanup());

async function report(emu: Emulator, args: string[]): Promise<ReportDocument> {
  const r = await runCli(['report', '--json', ...args], { env: { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir, XDG_STATE_HOME: `${cfg.dir}/state` } });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return reportDocumentSchema.parse(JSON.parse(r.stdout));
}

const job = (doc: ReportDocument, name: string): ReportEntry => {
  const found = doc.jobs.find((j) => j.name === name);
  if (!found) throw new Error(`no job ${name} in the report`);
  return found;
};

/** The figures a hand count gives for one job. */
interface Count {
  expected: number;
  completed: number;
  completed_with_errors: number;
  failed: number;
  missed_runs: string[];
}

function figures(e: ReportEntry): Count & { missed: number | null; pending: number; in_progress: number } {
  return {
    expected: e.expected!,
    completed: e.completed,
    completed_with_errors: e.completed_with_errors,
    failed: e.failed,
    missed: e.missed,
    pending: e.pending,
    in_progress: e.in_progress,
    missed_runs: e.missed_runs,
  };
}

const at = (iso: string) => new Date(iso).toISOString();
const count = (c: Count) => ({ ...c, missed: c.missed_runs.length, pending: 0, in_progress: 0, missed_runs: c.missed_runs.map(at) });

/** The jobs whose every figure is the table's and nothing else happened (no error to count by hand beyond it). */
const SIMPLE: Record<string, { missed: number; failed: number; withErrors: number; perDay: number }> = {
  'shop mysql': { missed: 1, failed: 0, withErrors: 0, perDay: 1 },
  'api postgres': { missed: 2, failed: 1, withErrors: 0, perDay: 4 },
  'marketing site': { missed: 0, failed: 1, withErrors: 1, perDay: 1 },
  'crm-db-failing': { missed: 1, failed: 3, withErrors: 0, perDay: 1 },
  'git server': { missed: 0, failed: 0, withErrors: 0, perDay: 1 },
  'events mongodb': { missed: 0, failed: 0, withErrors: 1, perDay: 1 },
};

describe.each([
  {
    season: 'spring: Europe/Paris on 30 March 2025, America/New_York on 9 March 2025',
    now: '2025-04-05T13:30:00Z',
    since: '2025-03-06T13:30:00Z',
    web: {
      expected: 30,
      completed: 27,
      completed_with_errors: 1,
      failed: 1,
      // k = 9: 27 March, 02:00 CET.
      missed_runs: ['2025-03-27T01:00:00Z'],
    },
    webRuns: [
      // 02:00 does not exist in Paris on 30 March: the run is at 03:00 CEST, 01:00 UTC, as the day before (CET).
      ['2025-03-29T01:00:00Z', 'completed'],
      ['2025-03-30T01:00:00Z', 'completed'],
      ['2025-03-31T00:00:00Z', 'completed'],
    ],
    webFailed: '2025-03-20T01:00:00Z', // k = 16
    webWithErrors: '2025-03-13T01:00:00Z', // k = 23
    archive: {
      expected: 30,
      completed: 24,
      completed_with_errors: 0,
      failed: 1,
      // k = 0 to 4: 04:00 EDT.
      missed_runs: ['2025-04-01T08:00:00Z', '2025-04-02T08:00:00Z', '2025-04-03T08:00:00Z', '2025-04-04T08:00:00Z', '2025-04-05T08:00:00Z'],
    },
    archiveRuns: [
      ['2025-03-08T09:00:00Z', 'completed'], // 04:00 EST
      ['2025-03-09T08:00:00Z', 'completed'], // 04:00 EDT, the day the clocks went forward at 02:00
    ],
    archiveFailed: '2025-03-21T08:00:00Z', // k = 15
    archiveLastSuccessDay: '2025-03-31',
  },
  {
    season: 'autumn: Europe/Paris on 26 October 2025, America/New_York on 2 November 2025',
    now: '2025-11-05T13:30:00Z',
    since: '2025-10-06T13:30:00Z',
    web: {
      expected: 30,
      completed: 27,
      completed_with_errors: 1,
      failed: 1,
      // k = 9: 27 October, 02:00 CET.
      missed_runs: ['2025-10-27T01:00:00Z'],
    },
    webRuns: [
      // 02:00 happens twice in Paris on 26 October: the run is at the first, 02:00 CEST.
      ['2025-10-25T00:00:00Z', 'completed'],
      ['2025-10-26T00:00:00Z', 'completed'],
      ['2025-10-27T01:00:00Z', 'missed'],
    ],
    webFailed: '2025-10-20T00:00:00Z', // k = 16, 02:00 CEST
    webWithErrors: '2025-10-13T00:00:00Z', // k = 23
    archive: {
      expected: 30,
      completed: 24,
      completed_with_errors: 0,
      failed: 1,
      // k = 4 is 1 November, 04:00 EDT; k = 0 to 3 are 04:00 EST.
      missed_runs: ['2025-11-01T08:00:00Z', '2025-11-02T09:00:00Z', '2025-11-03T09:00:00Z', '2025-11-04T09:00:00Z', '2025-11-05T09:00:00Z'],
    },
    archiveRuns: [
      ['2025-10-31T08:00:00Z', 'completed'],
      ['2025-11-01T08:00:00Z', 'missed'],
      ['2025-11-02T09:00:00Z', 'missed'],
    ],
    archiveFailed: '2025-10-21T08:00:00Z', // k = 15
    archiveLastSuccessDay: '2025-10-31',
  },
])('report over 30 days with the emulator pinned at $now ($season)', (c) => {
  let emu: Emulator;
  let doc: ReportDocument;
  beforeAll(async () => {
    emu = await startTestEmulator({ now: Date.parse(c.now) });
    doc = await report(emu, ['--since', c.since, '--until', c.now]);
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('web-01 files (Europe/Paris) matches the hand count across the clock change', () => {
    const web = job(doc, 'web-01 files');
    expect(figures(web)).toEqual(count(c.web));
    const outcome = (iso: string) => web.runs.find((r) => r.expected_at === at(iso))?.outcome;
    for (const [iso, expected] of c.webRuns) expect(outcome(iso!), iso).toBe(expected);
    expect(outcome(c.webFailed)).toBe('failed');
    expect(outcome(c.webWithErrors)).toBe('completed_with_errors');
    expect(web.unscheduled).toBe(0);
  });

  it('archive files (America/New_York) matches the hand count across the clock change', () => {
    const archive = job(doc, 'archive files');
    expect(figures(archive)).toEqual(count(c.archive));
    const outcome = (iso: string) => archive.runs.find((r) => r.expected_at === at(iso))?.outcome;
    for (const [iso, expected] of c.archiveRuns) expect(outcome(iso!), iso).toBe(expected);
    expect(outcome(c.archiveFailed)).toBe('failed');
    // Its newest success is the run before the five missed ones.
    expect(archive.last_success?.started_at?.slice(0, 10)).toBe(c.archiveLastSuccessDay);
  });

  it('the other jobs match the table: 30 runs a day-job, 120 the 6-hourly one', () => {
    for (const [name, t] of Object.entries(SIMPLE)) {
      const e = job(doc, name);
      const expected = 30 * t.perDay;
      expect(figures(e), name).toMatchObject({
        expected,
        missed: t.missed,
        failed: t.failed,
        completed_with_errors: t.withErrors,
        completed: expected - t.missed - t.failed - t.withErrors,
        pending: 0,
        in_progress: 0,
      });
    }
    // The manual backup of shop mysql, 3.3 days before the pinned instant, fulfils nothing.
    expect(job(doc, 'shop mysql')).toMatchObject({ unscheduled: 1, unscheduled_manual: 1 });
    expect(doc.summary.jobs).toMatchObject({ entries: 8, expected: 330, missed: 10, failed: 7, completed_with_errors: 3, pending: 0, in_progress: 0 });
  });
});

describe('report --since 30d on the real clock', () => {
  let emu: Emulator;
  let doc: ReportDocument;
  beforeAll(async () => {
    emu = await startTestEmulator();
    doc = await report(emu, ['--since', '30d']);
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('counts the missed and failed runs of the table at any hour, and the expected runs add up', () => {
    const table: Record<string, { missed: number; failed: number; withErrors: number }> = {
      'web-01 files': { missed: 1, failed: 1, withErrors: 1 },
      ...SIMPLE,
      // k = 0 is the newest due run: less than the grace old, it is pending rather than missed.
      'archive files': { missed: 5, failed: 1, withErrors: 0 },
    };
    for (const [name, t] of Object.entries(table)) {
      const e = job(doc, name);
      expect(e.expected, name).toBe(e.completed + e.completed_with_errors + e.failed + e.expired + e.in_progress + e.missed! + e.pending);
      expect(e.failed, name).toBe(t.failed);
      expect(e.completed_with_errors, name).toBe(t.withErrors);
      // A run due (15 minutes old) but within the grace with no backup is pending, not missed yet: archive files' k = 0 can be.
      const dueUnjudged = e.runs.filter((r) => r.outcome === 'pending' && Date.parse(r.expected_at) <= Date.parse(doc.generated_at) - 15 * 60_000).length;
      expect(e.missed! + dueUnjudged, name).toBe(t.missed);
    }
  });
});
