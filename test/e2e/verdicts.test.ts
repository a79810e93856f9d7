// A verdict per backup (issue 29): the built CLI against the emulator.
// 1. Marks per backup: verify the newest (fails), verify an older one (passes):
//    status still judges the newest, status --check still exits 9.
// 2. One set of words: an encrypted verify --check is unchecked (exit 18 unless
//    --allow-unchecked); a mongodump restore test is structure-only with no
//    recovery time; the store gone mid-verify is exit 6 and not-tested; an
//    unreachable --into is not-tested, never failing.
// 3. Droplets, volumes and resources have a health in --json and --check.
// 4. Staleness from the schedule; --max-age never clears failing.
// 7. Marks of another service (a second emulator) never show.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';
import { statusDocumentSchema, type JobStatus, type StatusDocument } from '../../src/status/document.js';
import { verifyDocumentSchema } from '../../src/verify/document.js';
import { restoreDocumentSchema } from '../../src/restore/document.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let cfg: ReturnType<typeof tempConfigDir>;
beforeAll(() => {
  cfg = tempConfigDir();
});
afterAll(() => cfg.cleanup());

/** A fresh state folder (the marks live there) per block. */
function freshState(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-verdicts-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const cli = (emu: Emulator, state: string, args: string[], env: Record<string, string | undefined> = {}) =>
  runCli(args, {
    env: { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir, XDG_STATE_HOME: state, COLUMNS: undefined, ...env },
    timeoutMs: 60_000,
  });

async function status(emu: Emulator, state: string, args: string[] = []): Promise<StatusDocument> {
  const r = await cli(emu, state, ['status', '--json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return statusDocumentSchema.parse(JSON.parse(r.stdout));
}
const job = (doc: StatusDocument, name: string): JobStatus => doc.jobs.find((j) => j.name === name)!;

async function backupIds(emu: Emulator, state: string, name: string): Promise<string[]> {
  const r = await cli(emu, state, ['jobs', 'backup', 'list', name, '-q']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim().split('\n');
}

describe('marks per backup: the newest completed backup is judged by its own', () => {
  let emu: Emulator;
  let state: ReturnType<typeof freshState>;
  beforeAll(async () => {
    emu = await startTestEmulator();
    state = freshState();
  });
  afterAll(async () => {
    await emu.close();
    state.cleanup();
  });

  it('an older backup that passes shows as such and never clears the newest one\'s failure: status --check still exits 9', async () => {
    const [newest, older] = await backupIds(emu, state.dir, 'git server');
    // Only the older one checked: shown as an older backup's mark, the job not judged by it.
    expect((await cli(emu, state.dir, ['verify', 'git server', older!, '-q'])).code).toBe(0);
    let git = job(await status(emu, state.dir), 'git server');
    expect(git.verify).toMatchObject({ backup_id: older, of_newest: false, state: 'passed' });
    expect(git.health).toBe('healthy');

    // The newest (the demo's corrupted one) fails: failing.
    expect((await cli(emu, state.dir, ['verify', 'git server', '--latest', '-q'])).code).toBe(11);
    // The older one again, after it: it passes, and changes nothing.
    expect((await cli(emu, state.dir, ['verify', 'git server', older!, '-q'])).code).toBe(0);
    git = job(await status(emu, state.dir), 'git server');
    expect(git.last_completed?.id).toBe(newest);
    expect(git.verify).toMatchObject({ backup_id: newest, of_newest: true, state: 'failed', exit_code: 11 });
    expect(git.verify!.reason).toMatch(/CRC-32 mismatch/);
    expect(git.health).toBe('failing');

    const check = await cli(emu, state.dir, ['status', '--check']);
    expect(check.code).toBe(9);
    expect(check.stderr).toMatch(/^ {2}git server \([0-9a-f-]{36}\): the verify of the newest completed backup failed /m);
    const table = await cli(emu, state.dir, ['status', '--job', 'git server', '-o', 'table'], { COLUMNS: '250' });
    expect(table.stdout).toMatch(/^failing +git server .* failed just now +never +unchecked$/m);
    const metrics = (await cli(emu, state.dir, ['status', '-o', 'prometheus'])).stdout;
    expect(metrics).toMatch(/^backupctl_job_verify_state\{[^}]*job_name="git server"[^}]*state="failed"\} 1$/m);
    expect(metrics).toMatch(/^backupctl_job_health\{[^}]*"git server"[^}]*health="failing"\} 1$/m);
    const report = JSON.parse((await cli(emu, state.dir, ['report', '--json', '--job', 'git server'])).stdout);
    expect(report.jobs[0].verify).toMatchObject({ backup_id: newest, of_newest: true, state: 'failed' });
  });

  it('--max-age 5d does not turn a job whose newest runs failed healthy: status --check exits 9 for it', async () => {
    const r = await cli(emu, state.dir, ['status', '--check', '--max-age', '5d', '--job', 'crm-db-failing']);
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(/^ {2}crm-db-failing \([0-9a-f-]{36}\): newest backup failed /m);
    const doc = await status(emu, state.dir, ['--max-age', '5d', '--job', 'crm-db-failing']);
    expect(doc.jobs[0]).toMatchObject({ health: 'failing', within_max_age: true, max_age_from: 'flag' });
  });

  it('droplets, volumes and snapshot resources: a health in --json, and --check fails on a paused droplet and a failed volume snapshot', async () => {
    const doc = await status(emu, state.dir);
    const staging = doc.droplets!.find((m) => m.name === 'staging')!;
    const uploads = doc.volumes!.find((m) => m.name === 'uploads-fra1')!;
    expect(staging).toMatchObject({ status: 'paused', health: 'stale', within_max_age: false });
    expect(uploads).toMatchObject({ health: 'failing' });
    for (const m of [...doc.droplets!, ...doc.volumes!, ...doc.resources!]) expect(['failing', 'stale', 'healthy', 'unknown']).toContain(m.health);
    expect(doc.snapshot_summary).toMatchObject({ failing: 1, stale: 1 });

    const check = await cli(emu, state.dir, ['status', '--check', '--max-age', '8d', '-q']);
    expect(check.code).toBe(9);
    expect(check.stderr).toMatch(/^ {2}droplet staging \(\d+\): stale: paused; newest completed snapshot \d+h\d+m old/m);
    expect(check.stderr).toMatch(/^ {2}volume uploads-fra1 \([^)]+\): failing: newest snapshot failed /m);
    const metrics = (await cli(emu, state.dir, ['status', '-o', 'prometheus'])).stdout;
    expect(metrics).toMatch(/^backupctl_snapshot_health\{kind="droplet",[^}]*name="staging",health="stale"\} 1$/m);
  });
});

describe('one set of words: unchecked, structure-only, not-tested', () => {
  let emu: Emulator;
  let state: ReturnType<typeof freshState>;
  beforeAll(async () => {
    emu = await startTestEmulator();
    state = freshState();
  });
  afterAll(async () => {
    await emu.close();
    state.cleanup();
  });

  it('an encrypted backup (size and hash only) is unchecked: verify --check exits 18 (not 11: nothing failed) unless --allow-unchecked; status warns, --strict fails', async () => {
    const json = await cli(emu, state.dir, ['verify', 'shop mysql', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(verifyDocumentSchema.parse(JSON.parse(json.stdout)).verdict).toBe('unchecked');
    const check = await cli(emu, state.dir, ['verify', 'shop mysql', '--check']);
    expect(check.code).toBe(18);
    expect((await cli(emu, state.dir, ['verify', 'git server', '--check'])).code).toBe(11);
    expect(check.stdout).toMatch(/: unchecked, 1 file: size and hash only, content not checked/);
    expect(check.stderr).toMatch(/--allow-unchecked/);
    expect((await cli(emu, state.dir, ['verify', 'shop mysql', '--check', '--allow-unchecked'])).code).toBe(0);

    const shop = job(await status(emu, state.dir, ['--job', 'shop mysql']), 'shop mysql');
    expect(shop.verify).toMatchObject({ of_newest: true, state: 'unchecked' });
    expect(shop.health).toBe('healthy');
    expect(shop.warnings.map((w) => w.kind)).toEqual(['unchecked']);
    const loose = await cli(emu, state.dir, ['status', '--check', '--job', 'shop mysql']);
    expect(loose.code).toBe(0);
    expect(loose.stderr).toMatch(/shop mysql: the verify of the newest backup is unchecked/);
    expect((await cli(emu, state.dir, ['status', '--check', '--strict', '--job', 'shop mysql'])).code).toBe(9);
  });

  it('a mongodump restore test is structure-only: no recovery time claimed; --check refuses it unless --allow-unchecked', async () => {
    const r = await cli(emu, state.dir, ['restore-test', 'events mongodb', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(restoreDocumentSchema.parse(JSON.parse(r.stdout)).verdict).toBe('structure-only');
    const check = await cli(emu, state.dir, ['restore-test', 'events mongodb', '--check']);
    expect(check.code).toBe(18);
    expect(check.stdout).toMatch(/restore test structure-only, 4 collections, \d+ documents parsed/);
    expect(check.stdout).not.toMatch(/recovery time \d/);
    expect(check.stdout).not.toMatch(/passed/);
    expect((await cli(emu, state.dir, ['restore-test', 'events mongodb', '--check', '--allow-unchecked'])).code).toBe(0);
    const md = (await cli(emu, state.dir, ['restore-test', 'events mongodb', '-o', 'md'])).stdout;
    expect(md).toContain('- Verdict: **structure-only**');
    expect(md).not.toMatch(/recovery time: \d/);
    expect(job(await status(emu, state.dir, ['--job', 'events mongodb']), 'events mongodb').restore_test).toMatchObject({ state: 'structure-only', total_seconds: null });
  });

  it('the store going away in the middle of verify: exit 6, not-tested, and the job is not failing', async () => {
    emu.setFaults([{ fault: 'reset', path: '/files' }]);
    try {
      const r = await cli(emu, state.dir, ['verify', 'api postgres', '--latest', '--json']);
      expect(r.code).toBe(6);
      const doc = verifyDocumentSchema.parse(JSON.parse(r.stdout));
      expect(doc.verdict).toBe('not-tested');
      expect(doc.backups[0]!.files[0]).toMatchObject({ verdict: 'not-tested', exit_code: 6 });
      expect(r.stderr).toMatch(/could not be read: not tested/);
    } finally {
      emu.setFaults([]);
    }
    const api = job(await status(emu, state.dir, ['--job', 'api postgres']), 'api postgres');
    expect(api.verify).toMatchObject({ of_newest: true, state: 'not-tested', exit_code: 6 });
    expect(api.health).toBe('healthy');
    expect(api.warnings.map((w) => w.kind)).toContain('not-tested');
    expect((await cli(emu, state.dir, ['status', '--check', '--job', 'api postgres'])).code).toBe(0);
    // A verify that then passes is the mark; the earlier attempt no longer warns.
    expect((await cli(emu, state.dir, ['verify', 'api postgres', '--latest', '-q'])).code).toBe(0);
    expect(job(await status(emu, state.dir, ['--job', 'api postgres']), 'api postgres')).toMatchObject({ verify: { state: 'passed' }, warnings: [] });
  });

  it('an unreachable --into server: not-tested with the exit code of its cause (15), never "restore test FAILED"; the job is not failing', async () => {
    const password = 'Unreachable-pw-29';
    const r = await cli(emu, state.dir, ['restore-test', 'api postgres', '--into', `postgres://tester:${password}@127.0.0.1:1/postgres`, '--check']);
    expect(r.code).toBe(15);
    expect(r.stdout).toMatch(/restore test not-tested \(/);
    expect(r.stdout + r.stderr).not.toMatch(/FAILED/);
    expect(r.stderr).toMatch(/could not run: .*not-tested/);
    expect(r.stdout + r.stderr).not.toContain(password);
    const api = job(await status(emu, state.dir, ['--job', 'api postgres']), 'api postgres');
    expect(api.restore_test).toMatchObject({ of_newest: true, state: 'not-tested', exit_code: 15 });
    expect(api.health).toBe('healthy');
  });
});

describe('staleness from the schedule', () => {
  it('a 6-hourly job whose newest backup is 19 hours old (3 runs missed) is stale', async () => {
    // The emulator's history ends 19 hours ago: api postgres (0 */6 * * * UTC) then missed three runs.
    const emu = await startTestEmulator({ now: Date.now() - 19 * HOUR });
    const state = freshState();
    try {
      const api = job(await status(emu, state.dir, ['--job', 'api postgres']), 'api postgres');
      expect(api).toMatchObject({ health: 'stale', within_max_age: false, max_age_from: 'schedule', max_age_seconds: 8 * 3600 });
      const check = await cli(emu, state.dir, ['status', '--check', '--job', 'api postgres']);
      expect(check.code).toBe(9);
      expect(check.stderr).toMatch(/api postgres .*newest completed backup \d+h\d+m old, max age 8h from its schedule/);
    } finally {
      await emu.close();
      state.cleanup();
    }
  });

  it('a weekly job is not stale mid-week; --max-age still overrides staleness', async () => {
    // History ends 3 days ago; web-01 files is then made weekly (Sundays at 02:00).
    const emu = await startTestEmulator({ now: Date.now() - 3 * DAY });
    const state = freshState();
    try {
      const id = await cli(emu, state.dir, ['jobs', 'get', 'web-01 files', '--jq', '.schedule[0].id']);
      expect(id.code, id.stderr).toBe(0);
      const edit = await cli(emu, state.dir, ['jobs', 'schedule', 'update', 'web-01 files', id.stdout.trim(), '--cron', '0 2 * * 0']);
      expect(edit.code, edit.stderr).toBe(0);
      const web = job(await status(emu, state.dir, ['--job', 'web-01 files']), 'web-01 files');
      expect(web.health).toBe('healthy');
      expect(web.max_age_from).toBe('schedule');
      // 7 days and 25% (a daylight-saving change in the month around may add an hour).
      expect(web.max_age_seconds).toBeGreaterThanOrEqual(8.75 * 86_400 - 1);
      expect(web.max_age_seconds).toBeLessThanOrEqual(8.75 * 86_400 + 3600 * 1.25 + 1);
      expect((await cli(emu, state.dir, ['status', '--check', '--job', 'web-01 files'])).code).toBe(0);
      expect((await cli(emu, state.dir, ['status', '--check', '--job', 'web-01 files', '--max-age', '26h'])).code).toBe(9);
    } finally {
      await emu.close();
      state.cleanup();
    }
  });
});

describe('marks of another service never show', () => {
  it('a verify on one emulator is not shown by status on a second one (same demo ids), nor under a profile that logs in to it', async () => {
    const [one, two] = await Promise.all([startTestEmulator(), startTestEmulator()]);
    const state = freshState();
    try {
      expect((await cli(one, state.dir, ['verify', 'git server', '--latest', '-q'])).code).toBe(11);
      expect(job(await status(one, state.dir, ['--job', 'git server']), 'git server').health).toBe('failing');
      const other = job(await status(two, state.dir, ['--job', 'git server']), 'git server');
      expect(other.verify).toBeNull();
      expect(other.health).toBe('healthy');
      // The same through a profile: the marks follow the service it logs in to.
      const login = await runCli(['auth', 'login', '--profile', 'demo', '--base-url', two.url, '--with-token'], {
        env: { BACKUPCTL_CONFIG_DIR: cfg.dir, XDG_STATE_HOME: state.dir },
        input: `${two.token}\n`,
      });
      expect(login.code, login.stderr).toBe(0);
      const viaProfile = await runCli(['status', '--json', '--profile', 'demo', '--job', 'git server'], { env: { BACKUPCTL_CONFIG_DIR: cfg.dir, XDG_STATE_HOME: state.dir } });
      expect(viaProfile.code, viaProfile.stderr).toBe(0);
      expect(statusDocumentSchema.parse(JSON.parse(viaProfile.stdout)).jobs[0]).toMatchObject({ verify: null, health: 'healthy' });
    } finally {
      await Promise.all([one.close(), two.close()]);
      state.cleanup();
    }
  });
});
