// One rule where there were two (issue 23 §5): the same mistake gets the same
// answer from every command.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';

const { emu, cli, sent } = withEmulatorCli({ seed: 'demo' });

interface Job {
  id: string;
  name: string;
}
interface Backup {
  id: string;
  job_id: string;
  status: string;
  files?: unknown[];
}

let jobA: Job;
let jobB: Job;
let backupOfB: Backup;

beforeAll(async () => {
  const jobs = ((await (await apiFetch(emu, '/v1/jobs?page_size=100')).json()) as { data: Job[] }).data;
  const withFiles: Array<[Job, Backup]> = [];
  for (const j of jobs) {
    const list = ((await (await apiFetch(emu, `/v1/jobs/${j.id}/backups?status=completed&sort=-created_at&page_size=15`)).json()) as { data: Backup[] }).data;
    const b = list.find((x) => (x.files ?? []).length > 0);
    if (b) withFiles.push([j, b]);
  }
  [jobA] = withFiles[0]!;
  [jobB, backupOfB] = withFiles[1]!;
});

describe('a backup of another job (§18)', () => {
  it('every command refuses it with exit 5, naming the job it belongs to, and reads or writes nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-owner-'));
    try {
      const runs = {
        download: await cli(['jobs', 'backup', 'download', jobA.id, backupOfB.id, '--dir', dir]),
        get: await cli(['jobs', 'backup', 'get', jobA.id, backupOfB.id]),
        verify: await cli(['verify', jobA.id, backupOfB.id]),
        delete: await cli(['jobs', 'backup', 'delete', jobA.id, backupOfB.id, '--yes']),
      };
      for (const [name, r] of Object.entries(runs)) {
        expect(r.code, `${name}: ${r.stderr}`).toBe(5);
        expect(r.stderr, name).toContain(`is not a backup of job ${jobA.id}`);
        expect(r.stderr, name).toContain(`it belongs to job "${jobB.name}" (${jobB.id})`);
        expect(r.stdout, name).toBe('');
      }
      expect(readdirSync(dir)).toEqual([]);
      expect(sent().filter((q) => q.method === 'DELETE' || q.path.includes('/download'))).toEqual([]);
      // The backup is still there.
      expect((await apiFetch(emu, `/v1/backups/${backupOfB.id}`)).status).toBe(200);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('one meaning of success (§21)', () => {
  const cwe = withEmulatorCli({ seed: 'demo', backupOutcome: 'completed_with_errors' });

  it('a backup that completed with errors: --wait warns, and verify --latest and --since both pass it over', async () => {
    const jobs = ((await (await apiFetch(cwe.emu, '/v1/jobs?page_size=100')).json()) as { data: Job[] }).data;
    const job = jobs.find((j) => !/fail/i.test(j.name))!;
    const since = new Date(Date.now() - 1000).toISOString();
    const started = await cwe.cli(['jobs', 'backup', 'start', job.id, '--wait', '--poll-interval', '1s', '--json']);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).toContain('completed with errors');
    const backup = (JSON.parse(started.stdout) as { backup: Backup }).backup;
    expect(backup.status).toBe('completed_with_errors');

    // --since picks what --latest picks: successful backups (completed), never this one.
    const sinceRun = await cwe.cli(['verify', job.id, '--since', since, '--json']);
    expect(sinceRun.code, sinceRun.stderr).toBe(9);
    const latest = await cwe.cli(['verify', job.id, '--latest', '--json']);
    expect(latest.stdout).not.toContain(backup.id);
    const newest = await cwe.cli(['jobs', 'backup', 'latest', job.id, '--status', 'completed', '-q']);
    expect(newest.stdout.trim()).not.toBe(backup.id);
  });
});
