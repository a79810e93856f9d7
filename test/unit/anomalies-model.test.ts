// The anomaly rules on made-up fingerprints (issue 33 §2): a history that grows 5% a night raises nothing,
// one bad night does not move the baseline, and each fixed rule fires on its own evidence.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_THRESHOLDS, analyzeJob, judge, mad, median } from '../../src/catalog/anomalies.js';
import type { BackupFingerprint } from '../../src/state/catalog.js';

function fp(i: number, o: { size?: number; rows?: Record<string, number>; entries?: number; high?: number; sampled?: number; notes?: string[] } = {}): BackupFingerprint {
  return {
    version: 1,
    backup_id: `b${String(i).padStart(3, '0')}`,
    job_id: 'j',
    created_at: new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString(),
    recorded_at: '2026-02-01T00:00:00Z',
    recorded_by: 'scan',
    read_verdict: 'passed',
    size_bytes: o.size ?? 1000,
    duration_s: 60,
    files: [
      o.rows
        ? { name: 'd.sql.gz', bytes: o.size ?? 1000, gzip: true, kind: 'sql', sql: { dialect: 'postgres', tables: o.rows } }
        : {
            name: 'a.tar.gz',
            bytes: o.size ?? 1000,
            gzip: true,
            kind: 'tar',
            archive: { entries: o.entries ?? 100, files: 90, dirs: 10, links: 0, bytes: 5000, by_ext: { txt: 90 }, sampled: o.sampled ?? 80, high_entropy: o.high ?? 0, high_entropy_paths: [], ransom_notes: o.notes ?? [], onions: [] },
          },
    ],
  };
}

const judgeAll = (fps: BackupFingerprint[]) => analyzeJob('j', fps, [], () => [], { thresholds: DEFAULT_THRESHOLDS });

describe('anomaly rules', () => {
  it('median and MAD', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(mad([1, 1, 1, 1])).toBe(0);
  });

  it('a history that grows 5% a night (size, entries, rows) raises nothing, for 60 nights', async () => {
    const files = Array.from({ length: 60 }, (_, i) => fp(i, { size: Math.round(10_000 * 1.05 ** i), entries: Math.round(100 * 1.05 ** i) }));
    const sql = Array.from({ length: 60 }, (_, i) => fp(i, { size: Math.round(10_000 * 1.05 ** i), rows: { 'public.t': Math.round(1000 * 1.05 ** i) } }));
    for (const history of [files, sql]) {
      const r = await judgeAll(history);
      expect(r.backups.filter((b) => b.verdict !== 'clean').map((b) => [b.backup_id, b.findings.map((f) => f.message)])).toEqual([]);
    }
  });

  it('property: steady growth from 0% to 5% a night with noise of ±3% never raises a finding', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ min: 0, max: 0.05, noNaN: true }), fc.array(fc.double({ min: -0.03, max: 0.03, noNaN: true }), { minLength: 30, maxLength: 30 }), async (growth, noise) => {
        const r = await judgeAll(noise.map((n, i) => fp(i, { size: Math.round(10_000 * (1 + growth) ** i * (1 + n)), rows: { 't': Math.round(500 * (1 + growth) ** i) } })));
        return r.backups.every((b) => b.verdict === 'clean');
      }),
      { numRuns: 50 },
    );
  });

  it('a table that loses most of its rows is flagged; the baseline is the clean nights, so the next bad night is too', async () => {
    const history = Array.from({ length: 12 }, (_, i) => fp(i, { rows: { 'public.orders': i >= 10 ? 50 : 1000 + i, 'public.c': 10 } }));
    const r = await judgeAll(history);
    expect(r.backups.slice(0, 10).every((b) => b.verdict === 'clean')).toBe(true);
    for (const b of r.backups.slice(10)) {
      expect(b.findings.map((f) => f.signal)).toContain('table-shrunk');
      expect(b.last_clean?.id).toBe('b009');
    }
    expect(r.last_clean?.id).toBe('b009');
  });

  it('a vanished table, a size jump, a ransom note and a random share each fire', () => {
    const base = Array.from({ length: 5 }, (_, i) => fp(i, { rows: { a: 100, b: 100 } }));
    expect(judge(fp(9, { rows: { a: 100 } }), base, undefined, DEFAULT_THRESHOLDS).map((f) => f.signal)).toEqual(['table-vanished']);
    const arch = Array.from({ length: 5 }, (_, i) => fp(i));
    expect(judge(fp(9, { size: 5000 }), arch, undefined, DEFAULT_THRESHOLDS).map((f) => f.signal)).toEqual(['size']);
    expect(judge(fp(9, { notes: ['HOW_TO_DECRYPT.txt'] }), arch, undefined, DEFAULT_THRESHOLDS).map((f) => f.signal)).toEqual(['ransom-note']);
    expect(judge(fp(9, { high: 30 }), arch, undefined, DEFAULT_THRESHOLDS).map((f) => f.signal)).toEqual(['high-entropy']);
    // 4 of 80 random-looking members is under the 20% share: nothing.
    expect(judge(fp(9, { high: 4 }), arch, undefined, DEFAULT_THRESHOLDS)).toEqual([]);
  });

  it('a backup whose read did not pass is unchecked and stays out of the baseline', async () => {
    const history = Array.from({ length: 6 }, (_, i) => fp(i));
    history[5] = { ...history[5]!, read_verdict: 'failed' };
    const r = await judgeAll(history);
    expect(r.backups.at(-1)?.verdict).toBe('unchecked');
    expect(r.last_clean?.id).toBe('b004');
  });
});
