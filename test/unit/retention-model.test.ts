// The retention model (src/retention/keep-rules.ts) on hand-made inputs, and its
// invariants under fast-check: never more kept than the counts allow (manual
// backups aside), and a newer backup never goes before an older one with the
// same tags.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RETENTION_PERIODS as PERIODS, type Counts, type Period } from '../../src/backups/retention.js';
import { applyWhatIf, forecast, simulate, type ModelBackup, type Run } from '../../src/retention/keep-rules.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 10, 12); // any instant: nothing below reads a clock
const counts = (c: Partial<Counts>): Counts => ({ hourly: 0, daily: 0, weekly: 0, monthly: 0, ...c });
const daily = (n: number): ModelBackup[] =>
  Array.from({ length: n }, (_, i) => ({ id: `b${String(i + 1).padStart(2, '0')}`, created_at: T0 - (i + 0.5) * DAY, status: 'completed', tags: ['daily'] }));
const runs = (n: number, tags: Period[] = ['daily']): Run[] => Array.from({ length: n }, (_, i) => ({ at: T0 + (i + 0.5) * DAY, tags }));

describe('forecast', () => {
  it('daily 7 over 10 daily backups: #8-#10 go at the next run, and the next run\'s own backup pushes #7 out with them', () => {
    const v = forecast({ now: T0, backups: daily(10), counts: counts({ daily: 7 }), runs: runs(10) });
    const byId = Object.fromEntries(v.map((x) => [x.id, x]));
    expect(['b08', 'b09', 'b10'].map((id) => byId[id]!.action)).toEqual(['expire', 'expire', 'expire']);
    expect(byId.b08!.reason).toBe('beyond daily 7 (#8): goes at the next run');
    expect(byId.b07).toMatchObject({ action: 'keep', rules: ['daily #7'], expires_run: 1 });
    expect(byId.b06).toMatchObject({ rules: ['daily #6'], expires_run: 2 });
    expect(byId.b01).toMatchObject({ rules: ['daily #1'], expires_run: 7 });
  });

  it('manual and failed backups are not counted and never predicted to go', () => {
    const backups: ModelBackup[] = [
      { id: 'm', created_at: T0 - DAY, status: 'completed', tags: ['manual'] },
      { id: 'f', created_at: T0 - 2 * DAY, status: 'failed', tags: ['daily'] },
      ...daily(2),
    ];
    const v = forecast({ now: T0, backups, counts: counts({ daily: 1 }), runs: runs(3) });
    expect(v.find((x) => x.id === 'm')).toMatchObject({ action: 'not-counted', expires_at: null });
    expect(v.find((x) => x.id === 'f')).toMatchObject({ action: 'not-counted', expires_at: null });
    expect(v.find((x) => x.id === 'b01')).toMatchObject({ action: 'keep', expires_run: 1 });
    expect(v.find((x) => x.id === 'b02')).toMatchObject({ action: 'expire', expires_run: 1 });
  });

  it('a backup kept by two periods goes at the later of their runs', () => {
    const backups: ModelBackup[] = [{ id: 'w', created_at: T0 - DAY, status: 'completed', tags: ['daily', 'weekly'] }];
    const r: Run[] = Array.from({ length: 21 }, (_, i) => ({ at: T0 + (i + 1) * DAY, tags: i % 7 === 6 ? ['daily', 'weekly'] : ['daily'] }));
    const [w] = forecast({ now: T0, backups, counts: counts({ daily: 2, weekly: 2 }), runs: r });
    expect(w).toMatchObject({ rules: ['daily #1', 'weekly #1'], expires_run: 14 });
  });

  it('--what-if counts', () => {
    expect(applyWhatIf(counts({ daily: 7 }), 'daily=3,weekly=2')).toEqual(counts({ daily: 3, weekly: 2 }));
    expect(applyWhatIf(counts({}), 'yearly=1')).toEqual({ error: '"yearly" is not a period (one of: hourly, daily, weekly, monthly)' });
    expect(applyWhatIf(counts({}), 'daily')).toHaveProperty('error');
  });
});

const arbTags = fc.subarray([...PERIODS] as Period[], { minLength: 0 });
const arbInput = fc.record({
  backups: fc.array(
    fc.record({ age: fc.integer({ min: 1, max: 90 * 24 }), status: fc.constantFrom('completed', 'completed', 'failed', 'completed_with_errors'), manual: fc.boolean(), tags: arbTags }),
    { maxLength: 40 },
  ),
  counts: fc.record({ hourly: fc.nat(5), daily: fc.nat(8), weekly: fc.nat(4), monthly: fc.nat(3) }),
  runs: fc.array(arbTags, { minLength: 1, maxLength: 60 }),
});

function build(x: { backups: Array<{ age: number; status: string; manual: boolean; tags: Period[] }>; counts: Counts; runs: Period[][] }) {
  const backups: ModelBackup[] = x.backups.map((b, i) => ({ id: `b${i}`, created_at: T0 - b.age * 3_600_000 - i, status: b.status, tags: b.manual ? ['manual'] : b.tags }));
  const r: Run[] = x.runs.map((tags, i) => ({ at: T0 + (i + 1) * 3_600_000, tags }));
  return { now: T0, backups, counts: x.counts, runs: r };
}

describe('forecast invariants (fast-check)', () => {
  it('after any run, no more counted backups exist than the counts allow', () => {
    fc.assert(
      fc.property(arbInput, (x) => {
        const input = build(x);
        const sim = simulate(input, Infinity);
        const verdicts = forecast(input);
        const limit = PERIODS.reduce((n, p) => n + input.counts[p], 0);
        for (const r of sim.runs) {
          const alive = [
            ...verdicts.filter((v) => v.action !== 'not-counted' && (v.expires_run === null || v.expires_run > r.run)),
            ...sim.runs.filter((f) => f.run <= r.run && !sim.runs.some((g) => g.run <= r.run && g.expiring.includes(`run:${f.run}`))),
          ];
          // The run's own backup is never removed by that run (A6), even when no count keeps its tags.
          const ownUnkept = PERIODS.some((p) => r.tags.includes(p) && input.counts[p] > 0) ? 0 : 1;
          expect(alive.length).toBeLessThanOrEqual(limit + ownUnkept);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a newer backup never goes before an older one with the same tags', () => {
    fc.assert(
      fc.property(arbInput, (x) => {
        const input = build(x);
        const v = forecast(input).filter((b) => b.action !== 'not-counted');
        const key = (b: { tags: string[] }) => [...b.tags].sort().join(',');
        for (const a of v) {
          for (const b of v) {
            if (key(a) !== key(b) || a.created_at <= b.created_at) continue; // a newer than b
            const ra = a.expires_run ?? Infinity;
            const rb = b.expires_run ?? Infinity;
            expect(ra).toBeGreaterThanOrEqual(rb);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
