// The dialect matrix (issue 42): verify, restore-test, status (--check), report, retention and
// anomalies against `emulator --dialect published` with the default settings (no provider_names,
// no BACKUPCTL_PROVIDER_NAMES), as against the neutral one: the same verdicts and exit codes. One
// emulator of each, started once for the file.
import { describe, expect, it } from 'vitest';
import { emulatorSession } from '../helpers/emulator.js';

// The emulator's clock is the file's start: the CLI's own clock measures ages against the same demo history.
const NOW = Date.now();
const DIALECTS = ['neutral', 'published'] as const;

describe('the same flows against both dialects, default settings', () => {
  const sessions = {
    neutral: emulatorSession({ now: NOW, badNight: true, timeoutMs: 110_000 }),
    published: emulatorSession({ dialect: 'published', now: NOW, badNight: true, timeoutMs: 110_000 }),
  };
  const both = (args: string[]) => Promise.all(DIALECTS.map((d) => sessions[d].cli(args, { BACKUPCTL_PROVIDER_NAMES: undefined })));

  it('status --check fails on the failing volume uploads-fra1 under both, reading every section', async () => {
    const [n, p] = await both(['status', '--check']);
    for (const r of [n, p]) {
      expect(r.code, r.stderr).toBe(9);
      expect(r.stderr).toMatch(/volume uploads-fra1 \([^)]+\): failing/);
      expect(r.stderr).toMatch(/droplet staging \(301250405\): stale/);
      expect(r.stderr).not.toContain('could not read');
    }
    expect(p.stderr.split('\n')[0]).toBe(n.stderr.split('\n')[0]);
  });

  it('status --json: the same health for every job, droplet and volume', async () => {
    const [n, p] = await both(['status', '--json']);
    const view = (stdout: string) => {
      const doc = JSON.parse(stdout);
      return {
        // next_run differs by the minute: a published schedule states its hour only (run_offset), not the cron's minute.
        jobs: doc.jobs.map((j: { name: string; health: string }) => [j.name, j.health]),
        droplets: doc.droplets.map((m: { name: string; health: string }) => [m.name, m.health]),
        volumes: doc.volumes.map((m: { name: string; health: string }) => [m.name, m.health]),
        unread: doc.unread,
      };
    };
    expect(n.code, n.stderr).toBe(0);
    expect(p.code, p.stderr).toBe(0);
    expect(JSON.stringify(view(p.stdout), null, 1)).toBe(JSON.stringify(view(n.stdout), null, 1));
  });

  it('verify and restore-test: the same verdicts and exit codes', async () => {
    const [vn, vp] = await both(['verify', 'marketing site', '--json']);
    expect(vn.code, vn.stderr).toBe(0);
    expect(vp.code, vp.stderr).toBe(0);
    const [rn, rp] = await both(['restore-test', 'api postgres', '--json']);
    expect(rn.code, rn.stderr).toBe(0);
    expect(rp.code, rp.stderr).toBe(rn.code);
    const rows = (s: string) => JSON.parse(s).rows_restored ?? JSON.parse(s).restored_rows ?? null;
    expect(rows(rp.stdout)).toEqual(rows(rn.stdout));
  }, 240_000);

  it('retention "api postgres": the frequency, not the placeholder cron, under both (issue 42 §4)', async () => {
    const [n, p] = await both(['retention', 'api postgres', '--json']);
    expect(n.code, n.stderr).toBe(0);
    expect(p.code, p.stderr).toBe(0);
    const doc = (s: string) => {
      const d = JSON.parse(s);
      return Array.isArray(d) ? d[0] : d;
    };
    const [dn, dp] = [doc(n.stdout), doc(p.stdout)];
    expect(dp.inputs.schedules[0].cron).not.toBe('0 * * * *');
    expect(dp.inputs.runs_forecast).toBe(dn.inputs.runs_forecast);
    expect(dp.expire.length).toBe(dn.expire.length);
    expect(dp.backups.map((b: { expires_at: string | null }) => b.expires_at)).toEqual(dn.backups.map((b: { expires_at: string | null }) => b.expires_at));
  });

  it('jobs list and jobs get show the schedule the service runs, not the placeholder cron', async () => {
    const [, p] = await both(['jobs', 'list', '-o', 'table']);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).not.toContain('0 * * * *');
    const get = await sessions.published.cli(['jobs', 'get', 'api postgres', '-o', 'table'], { BACKUPCTL_PROVIDER_NAMES: undefined });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).not.toContain('0 * * * *');
  });

  it('retention --droplet of the paused droplet: no next run under both (issue 42 §5)', async () => {
    const [n, p] = await both(['retention', '--droplet', '301250405', '-o', 'table']);
    for (const r of [n, p]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('next run');
      expect(r.stdout).toContain('paused');
    }
  });

  it('anomalies "file share": the same findings and exit codes', async () => {
    const [n, p] = await both(['anomalies', 'file share', '--check', '-q']);
    expect(n.code, n.stderr).toBe(17);
    expect(p.code, p.stderr).toBe(17);
    expect(p.stdout).toBe(n.stdout);
  }, 120_000);
});

// The report's pair of emulators has its history made at 10:40 UTC (the latest at or before the file's start),
// where the dialects' due runs agree. Made at the file's start instead, the history of a job whose cron names a
// minute differs for part of a day: a published schedule states its hour only, so from 17:15 to 18:00 UTC
// "events mongodb" (02:45 Tokyo) has already run today under it and not yet under the neutral one, and every
// exception counted back from now ("the 8th newest run completed with errors") lands one day later.
describe('report against both dialects, history made at 10:40 UTC', () => {
  const DAY = 86_400_000;
  const AT = (Math.floor((NOW - (10 * 60 + 40) * 60_000) / DAY) * DAY) + (10 * 60 + 40) * 60_000;
  const sessions = {
    neutral: emulatorSession({ now: AT, badNight: true, timeoutMs: 110_000 }),
    published: emulatorSession({ dialect: 'published', now: AT, badNight: true, timeoutMs: 110_000 }),
  };
  const both = (args: string[]) => Promise.all(DIALECTS.map((d) => sessions[d].cli(args, { BACKUPCTL_PROVIDER_NAMES: undefined })));

  it('report: the same expected runs and success rates, droplets and volumes read', async () => {
    // The seven days before the history's moment, from 10:40 UTC to 10:40 UTC, where no demo schedule runs.
    const iso = (t: number) => new Date(t).toISOString();
    const args = ['report', '--since', iso(AT - 8 * DAY), '--until', iso(AT - DAY), '--json'];
    const [n, p] = await both(args);
    const view = (stdout: string) => {
      const doc = JSON.parse(stdout);
      return {
        jobs: doc.jobs.map((j: Record<string, unknown>) => [j.name, j.expected, j.completed, j.missed, j.success_rate]),
        droplets: doc.droplets?.length,
        volumes: doc.volumes?.length,
      };
    };
    expect(n.code, n.stderr).toBe(0);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stderr).not.toContain('could not read');
    expect(JSON.stringify(view(p.stdout), null, 1)).toBe(JSON.stringify(view(n.stdout), null, 1));
    expect(view(n.stdout).droplets).toBeGreaterThan(0);
  });

});
