// The main flows against both dialects of the emulator (issue 30 §7): the interface document's
// (neutral: cloud_a, /v1/cloud_i, cron schedules, sizes in 1024s) and the published service's
// (aws, /v1/digitalocean, frequency schedules beside a contradicting cron, storage paths as file
// names, sizes in 1000s, links {} and meta {}). Each profile sends the names its service takes.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withEmulatorCli } from '../helpers/emulator.js';
import { runCli } from '../helpers/cli.js';

const NOW = Date.parse('2026-02-28T23:30:00Z');

for (const dialect of ['neutral', 'published'] as const) {
  describe(`the main flows against the ${dialect} dialect`, () => {
    const { env, sent, emu } = withEmulatorCli({ dialect, now: NOW });
    const cli = (args: string[]) => runCli(args, { env: { ...env(), BACKUPCTL_PROVIDER_NAMES: dialect } });
    const area = dialect === 'published' ? '/v1/digitalocean' : '/v1/cloud_i';

    it('status: every job has a next run within a day or its schedule, droplets are read', async () => {
      const r = await cli(['status', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('could not read');
      const doc = JSON.parse(r.stdout);
      const daily = doc.jobs.find((j: { name: string }) => j.name === 'shop mysql');
      // The CLI's clock is the real one (the emulator's is set back): the next run is within a day of it.
      expect(Date.parse(daily.next_run) - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
      expect(Date.parse(daily.next_run)).toBeGreaterThan(Date.now());
      expect(doc.droplets.length).toBeGreaterThan(0);
    });

    it('report: a daily job expects one run a day', async () => {
      const r = await cli(['report', '--job', 'marketing site', '--since', '2026-02-20T00:00:00Z', '--until', '2026-02-27T00:00:00Z', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const entry = JSON.parse(r.stdout).jobs[0];
      expect(entry.expected).toBe(7);
    });

    it('download and verify the newest backup of a job with two files', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), `backupctl-${dialect}-`));
      try {
        const d = await cli(['jobs', 'backup', 'download', 'web-01 files', '--latest', '--dir', dir]);
        expect(d.code, d.stderr).toBe(0);
        expect(readdirSync(dir)).toHaveLength(2);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const v = await cli(['verify', 'web-01 files', '--latest']);
      expect(v.code, v.stdout + v.stderr).toBe(0);
    });

    it('jobs create from a frequency', async () => {
      const r = await cli(['jobs', 'create', '--name', `h6 ${dialect}`, '--recipe-id', '1', '--serverless', 'EU', '--config', 'database=shop', '--storage', '1', '--frequency', 'h6', '--run-offset', '3', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const job = JSON.parse(r.stdout);
      const status = await cli(['status', '--job', job.id, '--json']);
      const next = new Date(JSON.parse(status.stdout).jobs[0].next_run);
      // UTC, h6 from 03:00: 03:00, 09:00, 15:00, 21:00.
      expect([3, 9, 15, 21]).toContain(next.getUTCHours());
    });

    it('storage add with the published name and with the token', async () => {
      for (const provider of ['aws', 'cloud_a']) {
        emu.clearRequests();
        const r = await cli(['storage', 'add', '--name', `s-${provider}`, '--provider', provider, '--region', 'eu', '--bucket', 'b', '--key', 'k', '--secret', 's', '-q']);
        expect(r.code, r.stderr).toBe(0);
        const body = sent().find((q) => q.method === 'POST')?.body as { provider: string };
        expect(body.provider).toBe(dialect === 'published' ? 'aws' : 'cloud_a');
      }
    });

    it('droplets list at the area the service answers to', async () => {
      emu.clearRequests();
      const r = await cli(['droplets', 'list', '-q']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim()).not.toBe('');
      expect(sent().every((q) => q.path.startsWith(`${area}/`) || q.path === `${area}/droplets`)).toBe(true);
    });
  });
}
