// The guard and `plan` protect the last clean backup too (issue 42.6), through
// the built CLI against the emulator's bad night (--bad-night): "file share"
// has 20 clean nightly backups at 02:30 UTC, then two nights of ransomware
// (daily 30, weekly 4, monthly 3). Its clock is pinned (--now) so the nights
// are fixed days: the newest (bad) night is Thursday 2026-03-12, the last clean
// one Tuesday 2026-03-10 (no Sunday, no 1st: only the daily count keeps it).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { emulatorSession } from '../helpers/emulator.js';

const NOW = '2026-03-12T12:00:00Z';
const session = emulatorSession({ seed: 'demo', badNight: true, now: Date.parse(NOW), timeoutMs: 90_000 });
const { cli } = session;

type Json = any;
let share: Array<{ id: string; created_at: string }>;

beforeAll(async () => {
  share = (await session.backupsOf('file share')).sort((a, b) => a.created_at.localeCompare(b.created_at));
  // The catalog learns which night is clean: anomalies reads every night once.
  const r = await cli(['anomalies', 'file share', '--since', '2026-01-01T00:00:00Z', '-q']);
  expect(r.code, r.stderr).toBe(0);
});

describe('the last clean backup is guarded', () => {
  it('retention --what-if daily=2 --check: the last clean backup goes at the next run, exit 16 naming it', async () => {
    expect(share).toHaveLength(22);
    const clean = share[19]!;
    expect(clean.created_at.slice(0, 10)).toBe('2026-03-10');
    const r = await cli(['retention', 'file share', '--now', NOW, '--what-if', 'daily=2', '--check', '--json']);
    expect(r.code, r.stderr).toBe(16);
    expect(r.stderr).toContain(`the last clean backup (backupctl anomalies), ${clean.id}`);
    expect(r.stderr).toContain('is predicted to expire at 2026-03-13T02:30:00.000Z (run 1), and no newer backup is clean');
    expect(r.stderr).not.toContain('nothing to guard');
    const [doc] = JSON.parse(r.stdout) as Json[];
    expect(doc.guard).toMatchObject({ fails: true, proven: null, clean: { id: clean.id, before: share[20]!.id, expires_run: 1, fails: true } });
    // The service's counts (daily 30) keep it: the guard holds, and says what it watches.
    const ok = await cli(['retention', 'file share', '--now', NOW, '--check', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect((JSON.parse(ok.stdout) as Json[])[0].guard).toMatchObject({ fails: false, clean: { id: clean.id, fails: false } });
  });

  it('plan of daily 2 says the newest proven and the last clean backup are among those the next run expires', async () => {
    // An older night proven by verify: the newest proven backup.
    const proven = share[15]!;
    const v = await cli(['verify', 'file share', proven.id, '-q']);
    expect(v.code, v.stderr).toBe(0);

    const exported = await cli(['export', '--only', 'jobs']);
    expect(exported.code, exported.stderr).toBe(0);
    const at = exported.stdout.indexOf('  file share:');
    const daily = exported.stdout.indexOf('daily: 30', at);
    expect(at >= 0 && daily > at).toBe(true);
    const file = path.join(session.cfg.dir, 'lower.yaml');
    writeFileSync(file, `${exported.stdout.slice(0, daily)}daily: 2${exported.stdout.slice(daily + 'daily: 30'.length)}`);
    const plan = await cli(['plan', '-f', file]);
    expect(plan.code, plan.stderr).toBe(12);
    expect(plan.stdout).toMatch(/job "file share": lower retention: the next run \(.*\) expires \d+ backups it keeps today: .*; among them the newest proven \(verify\) (\S+) .* and the last clean one \(backupctl anomalies\) (\S+) /);
    const among = /among them the newest proven \(verify\) (\S+) .* and the last clean one \(backupctl anomalies\) (\S+) /.exec(plan.stdout)!;
    expect([among[1], among[2]]).toEqual([proven.id, share[19]!.id]);
    const json = JSON.parse((await cli(['plan', '-f', file, '--json'])).stdout) as Json;
    expect(json.expiry[0]).toMatchObject({ target: 'job', proven: { id: proven.id, by: 'verify' }, clean: { id: share[19]!.id } });

    // The guard names both.
    const r = await cli(['retention', 'file share', '--now', NOW, '--what-if', 'daily=2', '--check', '-q']);
    expect(r.code).toBe(16);
    expect(r.stderr).toContain(`the newest backup that passed verify, ${proven.id} (created ${proven.created_at.slice(0, 10)}`);
    expect(r.stderr).toContain(`; the last clean backup (backupctl anomalies), ${share[19]!.id} (created 2026-03-10`);
  });
});
