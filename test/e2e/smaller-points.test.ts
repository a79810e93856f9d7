// Issue 29, "Smaller points of the same week", through the built CLI:
// destructive prompts name what goes, plan --prune says the backups go with a
// job, a failed --wait names the job and says why, the cron macros work on
// every --cron flag, and jobs create learns the recipe id as apply does.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { beforeEach, describe, expect, it } from 'vitest';
import { inPty } from '../helpers/pty.js';
import { apiFetch, apiRequests, emulatorSession } from '../helpers/emulator.js';
import { reasonOf } from '../../src/jobs/wait.js';

type Json = any;
const T = 60_000;
// A config and a state folder of their own for each test.
const session = emulatorSession({ seed: 'demo', foldersPerTest: true });
const { emu, env, cli } = session;

async function job(name: string): Promise<Json> {
  return (await session.jobs()).find((j) => j.name === name);
}

beforeEach(() => {
  emu.clearRequests();
});

describe('destructive prompts name what goes', () => {
  it('jobs backup delete --all: "Delete ALL <n> backups of job "api postgres" (<short id>)?"; "n" sends nothing', async () => {
    const j = await job('api postgres');
    const total = ((await (await apiFetch(emu, `/v1/jobs/${j.id}/backups?page_size=15`)).json()) as Json).meta.total;
    expect(total).toBeGreaterThan(1);
    const r = await inPty(['jobs', 'backup', 'delete', 'api postgres', '--all'], env(), { keys: 'n\r' });
    expect(r.output).toContain(`Delete ALL ${total} backups of job "api postgres" (${j.id.slice(0, 8)})?`);
    expect(r.code).toBe(2);
    expect(apiRequests(emu).filter((q) => q.method === 'DELETE')).toEqual([]);
  }, T);

  it('jobs delete names the job', async () => {
    const j = await job('shop mysql');
    const r = await inPty(['jobs', 'delete', j.id], env(), { keys: 'n\r' });
    expect(r.output).toContain(`Delete job "shop mysql" (${j.id.slice(0, 8)})?`);
    expect(apiRequests(emu).filter((q) => q.method === 'DELETE')).toEqual([]);
  }, T);

  it('plan --prune says the backups of a job it deletes go with it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-prune-'));
    try {
      const file = path.join(dir, 'backups.yaml');
      expect((await cli(['export', '-f', file, '--only', 'storage,jobs'])).code).toBe(0);
      const doc = parseDocument(readFileSync(file, 'utf8'));
      doc.deleteIn(['jobs', 'git server']);
      writeFileSync(file, doc.toString());
      const r = await cli(['plan', '-f', file, '--prune']);
      expect(r.code).toBe(12);
      const at = r.stdout.indexOf('job "git server"');
      expect(at).toBeGreaterThan(-1);
      expect(r.stdout.slice(at).split('\n').slice(0, 3).join('\n')).toMatch(/backups: "?deleted with the job"?/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, T);
});

describe('a failed --wait', () => {
  it('names the job, says why (or that the service gives no reason, and where its log is) and how long it ran', async () => {
    const r = await cli(['jobs', 'backup', 'start', 'crm-db-failing', '--wait', '--poll-interval', '1s']);
    expect(r.code).toBe(8);
    const j = await job('crm-db-failing');
    expect(r.stderr).toMatch(new RegExp(`^error: backup [0-9a-f-]{36} of job "crm-db-failing" \\(${j.id}\\) ended failed after \\d+s: the service gives no reason$`, 'm'));
    expect(r.stderr).toMatch(/^\s*Its log on the service: http:\/\/127\.0\.0\.1:\d+\/app\/jobs\//m);
  }, T);

  it("the backup's own reason, where a record carries one", () => {
    expect(reasonOf({ status: 'failed', error_message: 'mysqldump: Got error: 1045: Access denied' })).toBe('mysqldump: Got error: 1045: Access denied');
    expect(reasonOf({ status: 'failed', log: 'connecting\nDumping\nERROR: disk full\n' })).toBe('ERROR: disk full');
    expect(reasonOf({ status: 'failed' })).toBeUndefined();
  });
});

describe('cron macros on every --cron flag', () => {
  it('jobs create --cron @daily sends "0 0 * * *"; jobs schedule update --cron @weekly sends "0 0 * * 0"; another word is exit 2', async () => {
    const created = await cli(['jobs', 'create', '--name', 'macro job', '--recipe-id', '1', '--server', '1', '--storage', '1', '--cron', '@daily', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const post = apiRequests(emu).find((q) => q.method === 'POST' && q.path === '/v1/jobs')!;
    expect((post.body as Json).schedules[0].cron).toBe('0 0 * * *');
    const j = await job('shop mysql');
    const scheduleId = JSON.parse((await cli(['jobs', 'get', j.id, '--json'])).stdout).schedule?.[0]?.id ?? JSON.parse((await cli(['jobs', 'get', j.id, '--json'])).stdout).schedules?.[0]?.id;
    const upd = await cli(['jobs', 'schedule', 'update', j.id, String(scheduleId), '--cron', '@Weekly']);
    expect(upd.code, upd.stderr).toBe(0);
    expect(apiRequests(emu).find((q) => q.method === 'PATCH')!.body).toEqual({ cron: '0 0 * * 0' });
    const bad = await cli(['jobs', 'schedule', 'update', j.id, String(scheduleId), '--cron', '@sometimes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid value "@sometimes" for --cron: .*or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly/);
  }, T);
});

describe('jobs create learns the recipe id', () => {
  it('as apply does: export then writes the recipe_id of every job of that recipe', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-recipe-'));
    try {
      const file = path.join(dir, 'backups.yaml');
      expect((await cli(['export', '-f', file, '--only', 'storage,jobs'])).code).toBe(0);
      expect(parseDocument(readFileSync(file, 'utf8')).toJS().jobs['shop mysql'].recipe_id).toBeUndefined();
      const created = await cli(['jobs', 'create', '--name', 'orders mysql', '--recipe-id', '2', '--server', '1', '--storage', '1', '--cron', '30 1 * * *', '--config', 'mysql_database=orders']);
      expect(created.code, created.stderr).toBe(0);
      const again = path.join(dir, 'again.yaml');
      expect((await cli(['export', '-f', again, '--only', 'storage,jobs'])).code).toBe(0);
      const text = readFileSync(again, 'utf8');
      expect(parseDocument(text).toJS().jobs['shop mysql'].recipe_id).toBe(2);
      expect(text).toMatch(/# Recipe ids known to backupctl \(the service lists none\): .*mysql = 2/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, T);
});
