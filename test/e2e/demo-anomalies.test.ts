// The demo does not cry wolf (issue 42.12): its nightly archives keep their
// file names from night to night (one renamed a night), so `anomalies --check`
// on the plain demo passes for every job. With --bad-night it still names the
// ransomware nights of "file share" (and the bad nights of the other bad-night
// jobs), and nothing of the demo's own jobs.
import { describe, expect, it } from 'vitest';
import { emulatorSession } from '../helpers/emulator.js';

type Json = any;

describe('anomalies on the plain demo', () => {
  const { cli } = emulatorSession({ seed: 'demo', timeoutMs: 180_000 });
  it('judges every backup of the history and finds nothing: --check exits 0', async () => {
    const r = await cli(['anomalies', '--since', '40d', '--check', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Json;
    const byJob = Object.fromEntries(doc.jobs.map((j: Json) => [j.job.name, j.backups.map((b: Json) => b.verdict)]));
    // The file archives read member by member: every night clean (one was 40 of 40 files "vanished").
    for (const job of ['marketing site', 'archive files', 'git server']) {
      expect(byJob[job].length, job).toBeGreaterThan(20);
      expect(byJob[job].filter((v: string) => v === 'anomalous'), job).toEqual([]);
    }
    expect(doc.jobs.flatMap((j: Json) => j.backups).filter((b: Json) => b.verdict === 'anomalous')).toEqual([]);
  });
});

describe('anomalies on the demo with --bad-night', () => {
  const { cli } = emulatorSession({ seed: 'demo', badNight: true, timeoutMs: 180_000 });
  it('names the bad nights of the bad-night jobs only', async () => {
    const r = await cli(['anomalies', '--since', '40d', '--check', '--json']);
    expect(r.code).toBe(17);
    const doc = JSON.parse(r.stdout) as Json;
    const flagged = Object.fromEntries(
      doc.jobs.map((j: Json) => [j.job.name, j.backups.filter((b: Json) => b.verdict === 'anomalous').length]).filter(([, n]: [string, number]) => n > 0),
    );
    expect(flagged).toEqual({ 'file share': 2, 'share zip': 2, 'crm postgres': 1 });
    expect(r.stderr).toMatch(/file share: last clean backup [0-9a-f-]{36}/);
    // It reads 40 days of every job: the test waits as long as its CLI may run (it took over 30 s at load 10).
  }, 180_000);
});
