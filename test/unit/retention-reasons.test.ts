// The retention forecast's words and numbers on one small job worked out by hand
// (src/retention/keep-rules.ts): each backup's action, rules, reason and run; what a
// simulation removes at each run; and --what-if's parse and its refusals. Written for
// the survivors of `npm run mutate` on keep-rules.ts (issue 31); the invariants are in
// retention-model.test.ts.
import { describe, expect, it } from 'vitest';
import type { Counts } from '../../src/backups/retention.js';
import { applyWhatIf, forecast, simulate, type ForecastInput, type ModelBackup } from '../../src/retention/keep-rules.js';

const H = 3_600_000;
const b = (id: string, hour: number, tags: string[], status = 'completed'): ModelBackup => ({ id, created_at: hour * H, status, tags });
const counts = (c: Partial<Counts>): Counts => ({ hourly: 0, daily: 0, weekly: 0, monthly: 0, ...c });
const input = (runs: ForecastInput['runs']): ForecastInput => ({
  now: 9 * H,
  counts: counts({ daily: 2 }),
  backups: [
    b('d1', 1, ['daily']),
    b('w', 2, ['weekly']),
    b('d2', 3, ['daily', 'custom']),
    b('x', 4, []),
    b('d3', 5, ['daily']),
    b('m', 6, ['manual', 'daily']),
    b('f', 7, ['daily'], 'failed'),
    b('later', 20, ['daily']),
  ],
  runs,
});
const threeRuns = [
  { at: 10 * H, tags: ['daily' as const] },
  { at: 11 * H, tags: ['daily' as const] },
  { at: 12 * H, tags: ['daily' as const, 'weekly' as const] },
];

describe('forecast, worked out by hand (daily 2, weekly 0)', () => {
  it('each backup: kept by which place, pushed out by which run, or why it goes or is not counted', () => {
    expect(forecast(input(threeRuns))).toEqual([
      { id: 'f', created_at: 7 * H, status: 'failed', tags: ['daily'], action: 'not-counted', rules: [], reason: 'failed: not counted (only completed backups take a place)', expires_at: null, expires_run: null },
      { id: 'm', created_at: 6 * H, status: 'completed', tags: ['manual', 'daily'], action: 'not-counted', rules: [], reason: 'manual: not counted, retention never removes it', expires_at: null, expires_run: null },
      { id: 'd3', created_at: 5 * H, status: 'completed', tags: ['daily'], action: 'keep', rules: ['daily #1'], reason: 'kept by daily #1; pushed out of daily by run 2', expires_at: 11 * H, expires_run: 2 },
      { id: 'x', created_at: 4 * H, status: 'completed', tags: [], action: 'expire', rules: [], reason: 'no period tag: goes at the next run', expires_at: 10 * H, expires_run: 1 },
      { id: 'd2', created_at: 3 * H, status: 'completed', tags: ['daily'], action: 'keep', rules: ['daily #2'], reason: 'kept by daily #2; pushed out of daily by run 1', expires_at: 10 * H, expires_run: 1 },
      { id: 'w', created_at: 2 * H, status: 'completed', tags: ['weekly'], action: 'expire', rules: [], reason: 'weekly keeps none (weekly 0): goes at the next run', expires_at: 10 * H, expires_run: 1 },
      { id: 'd1', created_at: 1 * H, status: 'completed', tags: ['daily'], action: 'expire', rules: [], reason: 'beyond daily 2 (#3): goes at the next run', expires_at: 10 * H, expires_run: 1 },
    ]);
  });

  it('without runs: kept beyond the runs forecast, or gone when the service next applies retention', () => {
    const v = new Map(forecast(input([])).map((x) => [x.id, x]));
    expect(v.get('d3')).toMatchObject({ action: 'keep', reason: 'kept by daily #1 beyond the runs forecast', expires_at: null, expires_run: null });
    expect(v.get('d1')).toMatchObject({ action: 'expire', reason: 'beyond daily 2 (#3): goes when the service next applies retention', expires_at: null, expires_run: null });
  });

  it('two backups of the same instant are ordered by id, whatever the input\'s order', () => {
    const twins = (ids: string[]) => forecast({ now: 9 * H, counts: counts({ daily: 1 }), backups: ids.map((id) => b(id, 5, ['daily'])), runs: [] }).map((x) => [x.id, x.action]);
    // The greater id counts as the newer.
    expect(twins(['a', 'b'])).toEqual([
      ['b', 'keep'],
      ['a', 'expire'],
    ]);
    expect(twins(['b', 'a'])).toEqual(twins(['a', 'b']));
  });
});

describe('forecast, the edges', () => {
  it('completed with errors takes a place; a backup made at the very instant counts; two rules are both named', () => {
    const v = forecast({
      now: 5 * H,
      counts: counts({ daily: 1, weekly: 1 }),
      backups: [b('e', 2, ['daily'], 'completed_with_errors'), b('both', 5, ['daily', 'weekly'])],
      runs: [{ at: 6 * H, tags: ['daily', 'weekly'] }],
    });
    expect(v.map((x) => [x.id, x.action, x.reason])).toEqual([
      ['both', 'keep', 'kept by daily #1, weekly #1; pushed out of daily by run 1'],
      ['e', 'expire', 'beyond daily 1 (#2): goes at the next run'],
    ]);
    const none = forecast({ now: 5 * H, counts: counts({ daily: 1, weekly: 1 }), backups: [b('both', 5, ['daily', 'weekly'])], runs: [] });
    expect(none[0]!.reason).toBe('kept by daily #1, weekly #1 beyond the runs forecast');
    const out = forecast({ now: 5 * H, counts: counts({ daily: 1 }), backups: [b('new', 5, ['daily']), b('old', 4, ['daily', 'weekly'])], runs: [] });
    expect(out[1]!.reason).toBe('beyond daily 1 (#2), weekly keeps none (weekly 0): goes when the service next applies retention');
  });
});

describe('simulate', () => {
  it('what each run removes, when its own backup goes, and what remains', () => {
    expect(simulate(input(threeRuns), 11 * H)).toEqual({
      runs: [
        { run: 1, at: 10 * H, tags: ['daily'], expires_at: 12 * H, expiring: ['x', 'd2', 'w', 'd1'] },
        { run: 2, at: 11 * H, tags: ['daily'], expires_at: null, expiring: ['d3'] },
      ],
      remaining: ['f', 'm', 'run:1', 'run:2'],
    });
  });

  it('a run whose tags no count keeps goes at the next run; its own backups expire in their turn', () => {
    const r = simulate({ now: 0, counts: counts({ daily: 1 }), backups: [], runs: [{ at: H, tags: ['weekly'] }, { at: 2 * H, tags: ['daily'] }, { at: 3 * H, tags: ['daily'] }] }, 3 * H);
    expect(r.runs.map((x) => [x.run, x.expires_at, x.expiring])).toEqual([
      [1, 2 * H, []],
      [2, 3 * H, ['run:1']],
      [3, null, ['run:2']],
    ]);
    expect(r.remaining).toEqual(['run:3']);
  });
});

describe('--what-if', () => {
  const base = counts({ daily: 7, weekly: 4 });
  it('period=count pairs over the job\'s counts, any case and spacing', () => {
    expect(applyWhatIf(base, ' Daily = 3 , monthly=12,')).toEqual({ hourly: 0, daily: 3, weekly: 4, monthly: 12 });
    expect(applyWhatIf(base, 'hourly=0')).toEqual({ ...base, hourly: 0 });
  });
  it('refusals say what is wrong', () => {
    expect(applyWhatIf(base, ' , ')).toEqual({ error: 'give period=count pairs, e.g. daily=3,weekly=2' });
    expect(applyWhatIf(base, 'daily')).toEqual({ error: '"daily" is not period=count (periods: hourly, daily, weekly, monthly; counts: whole numbers)' });
    expect(applyWhatIf(base, 'daily=1234567')).toEqual({ error: '"daily=1234567" is not period=count (periods: hourly, daily, weekly, monthly; counts: whole numbers)' });
    expect(applyWhatIf(base, 'daily=-1')).toHaveProperty('error');
    expect(applyWhatIf(base, '1daily=3')).toEqual({ error: '"1daily=3" is not period=count (periods: hourly, daily, weekly, monthly; counts: whole numbers)' });
    expect(applyWhatIf(base, 'Yearly=3')).toEqual({ error: '"Yearly" is not a period (one of: hourly, daily, weekly, monthly)' });
  });
});
