// The arithmetic of `report` on histories made by hand: expected runs from
// cron and time zone across both daylight-saving changes, the grace, manual
// backups, pending runs, merged schedules, statistics and the day cells.
// Every time is fixed; `now` is given, never read.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCronTools, type CronTools } from '../../src/fleet/schedule.js';
import {
  buildEntry,
  dayCells,
  daysOf,
  localDay,
  matchRuns,
  medianAndP95,
  totalsOf,
  type AttemptInput,
  type EntryInput,
  type ReportWindow,
} from '../../src/report/compute.js';
import { snapshotScheduleCron } from '../../src/util/snapshot-cron.js';

let tools: CronTools;
beforeAll(async () => {
  tools = await loadCronTools();
});

const t = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;

function backup(started: string, status = 'completed', extra: Partial<AttemptInput> = {}): AttemptInput {
  const startedAt = t(started);
  return { id: `b-${started}`, status, startedAt, completedAt: startedAt + 5 * 60_000, manual: false, sizeBytes: 1024, ...extra };
}

function job(cron: string, timezone: string, attempts: AttemptInput[], extra: Partial<EntryInput> = {}): EntryInput {
  return {
    kind: 'job',
    id: 'j1',
    name: 'nightly',
    createdAt: undefined,
    schedules: [{ id: 7, cron, text: cron, timezone, status: 'active' }],
    attempts,
    ...extra,
  };
}

function window(since: string, until: string, graceMs = HOUR, now = until): ReportWindow {
  return { since: t(since), until: t(until), graceMs, now: t(now) };
}

describe('expected runs across daylight-saving changes', () => {
  it('spring forward in Europe/Paris: 02:30 does not exist on 29 March 2026; the run is expected at 03:00 CEST (01:00Z) and a backup at 03:30 CEST fulfils it', () => {
    const entry = buildEntry(
      job('30 2 * * *', 'Europe/Paris', [
        backup('2026-03-27T01:31:10Z'),
        backup('2026-03-28T01:32:00Z', 'failed'),
        backup('2026-03-28T10:00:00Z', 'completed', { manual: true }),
        // 03:30 CEST: where a service that shifts skipped times by the gap would start it.
        backup('2026-03-29T01:30:00Z'),
        // 30 March: nothing.
      ]),
      window('2026-03-27T00:00:00Z', '2026-03-31T00:00:00Z'),
      tools,
    );
    expect(entry.runs.map((r) => r.expected_at)).toEqual([
      '2026-03-27T01:30:00.000Z', // 02:30 CET
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:00:00.000Z', // the skipped 02:30: croner says 03:00 CEST
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
    ]);
    expect(entry.runs.map((r) => r.outcome)).toEqual(['completed', 'failed', 'completed', 'missed']);
    expect(entry).toMatchObject({
      expected: 4,
      completed: 2,
      completed_with_errors: 0,
      failed: 1,
      missed: 1,
      pending: 0,
      success_rate: 0.5,
      unscheduled: 1,
      unscheduled_manual: 1,
      missed_runs: ['2026-03-30T00:30:00.000Z'],
    });
    expect(entry.schedules[0]!.expected).toBe(4);
    // Days are Paris days: one cell per date, the DST day holds its one run.
    const cells = dayCells(entry, t('2026-03-27T00:00:00Z'), t('2026-03-31T00:00:00Z'));
    expect(cells.map((c) => [c.day, c.outcome ?? 'none', c.runs])).toEqual([
      ['2026-03-27', 'completed', 1],
      ['2026-03-28', 'failed', 1],
      ['2026-03-29', 'completed', 1],
      ['2026-03-30', 'missed', 1],
      ['2026-03-31', 'none', 0],
    ]);
    expect(cells[1]!.unscheduled).toBe(1);
  });

  it('fall back in Europe/Paris: 02:30 happens twice on 25 October 2026 and is expected once, at its first instant; a backup at the second 02:30 is an hour late and still within the default grace', () => {
    const entry = buildEntry(
      job('30 2 * * *', 'Europe/Paris', [
        backup('2026-10-23T00:30:40Z'),
        backup('2026-10-24T00:31:00Z', 'completed_with_errors'),
        backup('2026-10-25T01:30:00Z'), // 02:30 CET, the second one
        backup('2026-10-26T01:30:30Z'),
      ]),
      window('2026-10-23T00:00:00Z', '2026-10-27T00:00:00Z'),
      tools,
    );
    expect(entry.runs.map((r) => r.expected_at)).toEqual([
      '2026-10-23T00:30:00.000Z',
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z', // 02:30 CEST, once
      '2026-10-26T01:30:00.000Z', // 02:30 CET
    ]);
    expect(entry).toMatchObject({ expected: 4, completed: 3, completed_with_errors: 1, missed: 0, unscheduled: 0, success_rate: 0.75 });
    // With a 30-minute grace the second 02:30 is late: a missed run and an unscheduled backup.
    const strict = buildEntry(job('30 2 * * *', 'Europe/Paris', [backup('2026-10-25T01:30:00Z')]), window('2026-10-25T00:00:00Z', '2026-10-25T23:00:00Z', 30 * 60_000), tools);
    expect(strict).toMatchObject({ expected: 1, missed: 1, unscheduled: 1, missed_runs: ['2026-10-25T00:30:00.000Z'] });
  });

  it('an hourly schedule in America/New_York expects 23 runs on the spring-forward day and 25 on the fall-back day (01:30 twice)', () => {
    const day = (since: string, until: string) => buildEntry(job('30 * * * *', 'America/New_York', []), window(since, until), tools);
    // Local midnight to local midnight, in UTC.
    expect(day('2026-03-08T05:00:00Z', '2026-03-09T03:59:59Z').expected).toBe(23);
    const fall = day('2026-11-01T04:00:00Z', '2026-11-02T04:59:59Z');
    expect(fall.expected).toBe(25);
    expect(fall.runs.filter((r) => r.expected_at === '2026-11-01T05:30:00.000Z' || r.expected_at === '2026-11-01T06:30:00.000Z')).toHaveLength(2);
    expect(daysOf(t('2026-11-01T04:00:00Z'), t('2026-11-02T04:59:59Z'), 'America/New_York')).toEqual(['2026-11-01']);
  });

  it('UTC and a zone east of it: Asia/Tokyo 02:45 is 17:45Z the day before, and its days are Tokyo days', () => {
    const entry = buildEntry(job('45 2 * * *', 'Asia/Tokyo', [backup('2026-02-28T17:45:30Z')]), window('2026-02-28T00:00:00Z', '2026-03-01T23:59:59Z'), tools);
    expect(entry.runs.map((r) => [r.expected_at, r.outcome])).toEqual([
      ['2026-02-28T17:45:00.000Z', 'completed'],
      ['2026-03-01T17:45:00.000Z', 'missed'],
    ]);
    expect(localDay(t('2026-02-28T17:45:00Z'), 'Asia/Tokyo')).toBe('2026-03-01');
    expect(localDay(t('2028-02-28T16:00:00Z'), 'Asia/Tokyo')).toBe('2028-02-29');
  });
});

describe('matching', () => {
  it('a run whose grace has not ended at now is pending, not missed; it is left out of the success rate', () => {
    const entry = buildEntry(
      job('0 * * * *', 'UTC', [backup('2026-05-01T10:00:20Z'), backup('2026-05-01T11:00:05Z', 'running')]),
      window('2026-05-01T10:00:00Z', '2026-05-01T12:10:00Z', HOUR, '2026-05-01T12:10:00Z'),
      tools,
    );
    expect(entry.runs.map((r) => r.outcome)).toEqual(['completed', 'in_progress', 'pending']);
    expect(entry).toMatchObject({ expected: 3, pending: 1, in_progress: 1, missed: 0, success_rate: 1 });
  });

  it('nothing is expected before the job was created', () => {
    const entry = buildEntry(job('0 2 * * *', 'UTC', [], { createdAt: t('2026-05-05T12:00:00Z') }), window('2026-05-01T00:00:00Z', '2026-05-08T00:00:00Z'), tools);
    expect(entry.runs.map((r) => r.expected_at)).toEqual(['2026-05-06T02:00:00.000Z', '2026-05-07T02:00:00.000Z']);
  });

  it('a manual backup at the scheduled time fulfils nothing: the run is missed and the backup unscheduled', () => {
    const entry = buildEntry(job('0 2 * * *', 'UTC', [backup('2026-05-01T02:00:30Z', 'completed', { manual: true })]), window('2026-05-01T00:00:00Z', '2026-05-01T12:00:00Z'), tools);
    expect(entry).toMatchObject({ expected: 1, missed: 1, unscheduled: 1, unscheduled_manual: 1 });
  });

  it('two schedules at the same instant expect one run; a paused schedule still expects its runs (since when it is paused is not in its record) and says so', () => {
    const entry = buildEntry(
      {
        ...job('0 2 * * *', 'UTC', [backup('2026-05-03T02:00:10Z')]),
        schedules: [
          { id: 1, cron: '0 2 * * *', text: '0 2 * * *', timezone: 'UTC', status: 'active' },
          { id: 2, cron: '0 2 * * 0', text: '0 2 * * 0', timezone: 'UTC', status: 'active' }, // 3 May 2026 is a Sunday
          { id: 3, cron: '0 12 * * *', text: '0 12 * * *', timezone: 'UTC', status: 'paused', stopped: 'paused' },
        ],
      },
      window('2026-05-03T00:00:00Z', '2026-05-03T23:59:59Z'),
      tools,
    );
    expect(entry.runs).toEqual([
      { expected_at: '2026-05-03T02:00:00.000Z', schedule_ids: [1, 2], outcome: 'completed', backup_id: 'b-2026-05-03T02:00:10Z', started_at: '2026-05-03T02:00:10.000Z' },
      { expected_at: '2026-05-03T12:00:00.000Z', schedule_ids: [3], outcome: 'missed', backup_id: null, started_at: null },
    ]);
    expect(entry.schedules.map((s) => s.expected)).toEqual([1, 1, 1]);
    expect(entry.notes.join('\n')).toMatch(/schedule 3 is paused now: its runs are still expected/);
  });

  it('each run takes the earliest backup within reach, which matches as many runs as possible', () => {
    const at = (h: number) => h * HOUR;
    // Runs every hour; backups at 0:50 and 1:55 with a one-hour grace: both runs are fulfilled.
    expect(matchRuns([at(0), at(1)], [{ startedAt: at(1.9) }, { startedAt: at(0.8) }], HOUR).map((b) => b?.startedAt)).toEqual([at(0.8), at(1.9)]);
    // A backup too early for any run is never taken.
    expect(matchRuns([at(5)], [{ startedAt: at(3) }], HOUR)).toEqual([undefined]);
  });

  it('without a computable schedule, the counts are the backups in the window by status, and the notes say why', () => {
    const entry = buildEntry(
      {
        kind: 'droplet',
        id: 5,
        name: 'db',
        createdAt: undefined,
        schedules: [{ id: null, cron: null, text: 'every 48h', timezone: 'UTC', status: 'active', unreadable: 'every 48h has no stated first day to count from' }],
        attempts: [backup('2026-05-01T03:00:00Z'), backup('2026-05-02T03:00:00Z', 'failed'), backup('2026-05-03T03:00:00Z', 'transferring')],
      },
      window('2026-05-01T00:00:00Z', '2026-05-04T00:00:00Z'),
      tools,
    );
    // Issue 23 §2: where the schedule is unknown, the backups are "schedule unknown", never "unscheduled".
    expect(entry).toMatchObject({ computable: false, expected: null, missed: null, completed: 1, failed: 1, in_progress: 1, success_rate: 0.5, unscheduled: 0, schedule_unknown: 3 });
    expect(entry.notes.join('\n')).toMatch(/no stated first day/);
    const cells = dayCells(entry, t('2026-05-01T00:00:00Z'), t('2026-05-04T12:00:00Z'));
    expect(cells.map((c) => c.outcome)).toEqual(['completed', 'failed', 'in_progress', undefined]);
    // A day without a snapshot is "schedule unknown", not "nothing expected".
    expect(cells.map((c) => c.scheduleUnknown)).toEqual([true, true, true, true]);
  });
});

describe('a schedule edit does not rewrite history (issue 23 §1)', () => {
  // Nightly at 02:00 UTC until 2026-05-21 12:00, when the schedule became 06:00; the window is 30 days to 2026-05-31.
  const changedAt = t('2026-05-21T12:00:00Z');
  const nights = (from: number, to: number, hour: string, status = (_d: number) => 'completed') =>
    Array.from({ length: to - from + 1 }, (_, i) => from + i).map((d) => backup(`2026-05-${String(d).padStart(2, '0')}T${hour}:05:00Z`, status(d)));
  const history = [...nights(1, 21, '02', (d) => (d === 10 ? 'failed' : 'completed')), ...nights(22, 30, '06')];
  const entry = () => buildEntry(job('0 6 * * *', 'UTC', history, { changedAt }), window('2026-05-01T00:00:00Z', '2026-05-31T00:00:00Z'), tools);

  it('runs before the change that no backup fulfilled are unknown, never missed; the success rate counts the runs it can judge', () => {
    const e = entry();
    expect(e.schedule_changed_at).toBe('2026-05-21T12:00:00.000Z');
    // The 06:00 runs of 1..21 May: nothing ran then (the old schedule ran at 02:00), so they are unknown.
    expect(e.runs.filter((r) => r.outcome === 'unknown')).toHaveLength(21);
    expect(e).toMatchObject({ expected: 30, completed: 9, missed: 0, unknown: 21, success_rate: 1, unscheduled: 0, schedule_unknown: 21 });
    expect(e.schedule_unknown_backups.map((b) => b.status).filter((s) => s === 'failed')).toHaveLength(1);
    expect(e.notes.join('\n')).toMatch(/^unknown: schedule changed on 2026-05-21: .*21 others are unknown, not missed; 21 backups before it fit no run of the current schedule \(20 completed, 1 failed\)/m);
    // The days before the change are "schedule unknown" in the calendar.
    const cells = dayCells(e, t('2026-05-01T00:00:00Z'), t('2026-05-31T00:00:00Z'));
    expect(cells[0]).toMatchObject({ day: '2026-05-01', outcome: 'unknown', scheduleUnknown: true });
    expect(cells[25]).toMatchObject({ day: '2026-05-26', outcome: 'completed', scheduleUnknown: false });
  });

  it('runs after the change are judged by the current schedule: a missing one is missed', () => {
    const gap = buildEntry(
      job('0 6 * * *', 'UTC', history.filter((b) => b.startedAt !== t('2026-05-25T06:05:00Z')), { changedAt }),
      window('2026-05-01T00:00:00Z', '2026-05-31T00:00:00Z'),
      tools,
    );
    expect(gap).toMatchObject({ missed: 1, unknown: 21, missed_runs: ['2026-05-25T06:00:00.000Z'] });
  });

  it('a backup before the change that fits the current schedule still counts (what can be known)', () => {
    const same = buildEntry(job('0 2 * * *', 'UTC', nights(1, 30, '02'), { changedAt }), window('2026-05-01T00:00:00Z', '2026-05-31T00:00:00Z'), tools);
    expect(same).toMatchObject({ expected: 30, completed: 30, missed: 0, unknown: 0, schedule_unknown: 0, success_rate: 1 });
  });

  it('a change before the window changes nothing', () => {
    const before = buildEntry(job('0 2 * * *', 'UTC', nights(1, 30, '02'), { changedAt: t('2026-04-01T00:00:00Z') }), window('2026-05-01T00:00:00Z', '2026-05-31T00:00:00Z'), tools);
    expect(before).toMatchObject({ schedule_changed_at: null, unknown: 0 });
  });
});

describe('statistics', () => {
  it('median and nearest-rank p95 of the durations of completed backups; sizes where stated', () => {
    const attempts = Array.from({ length: 20 }, (_, i) => ({
      ...backup(`2026-06-${String(i + 1).padStart(2, '0')}T02:00:05Z`, i === 3 ? 'completed_with_errors' : 'completed'),
      completedAt: t(`2026-06-${String(i + 1).padStart(2, '0')}T02:00:05Z`) + (i + 1) * 1000,
      sizeBytes: i < 15 ? 1000 : null,
    }));
    attempts.push({ ...backup('2026-06-21T02:00:05Z', 'failed'), completedAt: t('2026-06-21T05:00:00Z') });
    const entry = buildEntry(job('0 2 * * *', 'UTC', attempts), window('2026-06-01T00:00:00Z', '2026-06-21T23:00:00Z'), tools);
    expect(entry.duration).toMatchObject({ count: 20, median_seconds: 10.5, p95_seconds: 19 });
    expect(entry.size).toEqual({ bytes: 15_000, known: 15, of: 20 });
    expect(entry.last_success?.started_at).toBe('2026-06-20T02:00:05.000Z');
    expect(medianAndP95([])).toEqual({ median: null, p95: null });
    expect(medianAndP95([7])).toEqual({ median: 7, p95: 7 });
    expect(entry).toMatchObject({ expected: 21, completed: 19, completed_with_errors: 1, failed: 1, missed: 0 });
  });

  it('the last success comes from before the window when none in it completed', () => {
    const before = backup('2026-04-01T02:00:00Z');
    const entry = buildEntry(job('0 2 * * *', 'UTC', [backup('2026-05-01T02:00:00Z', 'failed')], { lastSuccessBefore: before }), window('2026-05-01T00:00:00Z', '2026-05-01T12:00:00Z'), tools);
    expect(entry.last_success?.started_at).toBe('2026-04-01T02:00:00.000Z');
  });

  it('totals add the runs of every entry', () => {
    const w = window('2026-05-01T00:00:00Z', '2026-05-03T00:00:00Z');
    const a = buildEntry(job('0 2 * * *', 'UTC', [backup('2026-05-01T02:00:00Z')]), w, tools);
    const b = buildEntry(job('0 3 * * *', 'UTC', [backup('2026-05-01T03:00:00Z', 'failed'), backup('2026-05-02T03:00:00Z')]), w, tools);
    expect(totalsOf([a, b])).toMatchObject({ entries: 2, expected: 4, completed: 2, failed: 1, missed: 1, success_rate: 0.5 });
  });
});

describe('snapshot schedules (droplets, volumes, resources)', () => {
  it('frequency hours from run_offset hours after local midnight become a cron expression', () => {
    expect(snapshotScheduleCron(24, 3)).toEqual({ cron: '0 3 * * *', text: 'every 24h from 03:00' });
    expect(snapshotScheduleCron(6, 1)).toEqual({ cron: '0 1-23/6 * * *', text: 'every 6h from 01:00' });
    expect(snapshotScheduleCron('h12', 0)).toEqual({ cron: '0 0-23/12 * * *', text: 'every 12h from 00:00' });
    expect(snapshotScheduleCron('m30', 0)).toEqual({ cron: '*/30 * * * *', text: 'every 30m' });
    expect(snapshotScheduleCron(48, 0)).toMatchObject({ unreadable: expect.stringMatching(/first day/) });
    expect(snapshotScheduleCron(undefined, 0)).toMatchObject({ unreadable: 'the record has no frequency' });
    const six = snapshotScheduleCron(6, 1) as { cron: string };
    const runs = tools.runsBetween(six.cron, 'Europe/Amsterdam', new Date('2026-07-01T00:00:00Z'), new Date('2026-07-01T23:59:59Z'))!;
    // 01:00, 07:00, 13:00, 19:00 CEST.
    expect(runs.map((d) => d.toISOString().slice(11, 16))).toEqual(['05:00', '11:00', '17:00', '23:00']);
  });
});
