// One state the team shares (issue 44 §3): the marks in a PostgreSQL database the test starts itself
// (test/helpers/pg-server.ts), named by BACKUPCTL_STATE_URL or the profile's state_url.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { withEmulator } from '../helpers/emulator.js';
import { startPgServer, type PgServer } from '../helpers/pg-server.js';
import { statusDocumentSchema } from '../../src/status/document.js';
import { PgMarksStore } from '../../src/state/pg-marks.js';
import { SCHEMA_VERSION } from '../../src/state/pg.js';
import { MARKS_FILE, MarksStore, type Mark } from '../../src/state/marks.js';

let pg: PgServer;
let work: string;
beforeAll(async () => {
  pg = await startPgServer();
  pg.sql('CREATE DATABASE team_state');
  work = mkdtempSync(path.join(tmpdir(), 'backupctl-pgstate-'));
}, 60_000);
afterAll(async () => {
  await pg?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const stateUrl = () => `postgres://postgres:superpw@/team_state?host=${pg.dir}`;

/** A member of the team: a config folder and a state folder of their own. */
function member(name: string): { cfg: string; state: string } {
  const cfg = path.join(work, name, 'config');
  const state = path.join(work, name, 'state');
  mkdirSync(cfg, { recursive: true });
  mkdirSync(state, { recursive: true });
  return { cfg, state };
}

describe('marks in a PostgreSQL state', () => {
  const emu = withEmulator();
  const cli = (who: { cfg: string; state: string }, args: string[], env: Record<string, string | undefined> = {}) =>
    runCli(args, { env: { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: who.cfg, XDG_STATE_HOME: who.state, ...env }, timeoutMs: 60_000 });

  it("two config folders on one state see each other's marks; nothing is written to either state folder", async () => {
    const alice = member('alice');
    const bob = member('bob');
    // Bob names the state in his profile, Alice in the environment.
    writeFileSync(path.join(bob.cfg, 'config.json'), JSON.stringify({ current_profile: 'default', profiles: { default: { state_url: stateUrl() } } }));
    const v = await cli(alice, ['verify', 'api postgres', '--latest', '-q'], { BACKUPCTL_STATE_URL: stateUrl() });
    expect(v.code, v.stderr).toBe(0);
    const s = await cli(bob, ['status', '--json']);
    expect(s.code, s.stderr).toBe(0);
    const job = statusDocumentSchema.parse(JSON.parse(s.stdout)).jobs.find((j) => j.name === 'api postgres')!;
    expect(job.verify).toMatchObject({ of_newest: true, state: 'passed' });
    expect(existsSync(path.join(alice.state, 'backupctl', 'marks.json'))).toBe(false);
    expect(existsSync(path.join(bob.state, 'backupctl', 'marks.json'))).toBe(false);
    // Without the state URL, Alice's own folder knows nothing of it.
    const local = await cli(alice, ['status', '--json']);
    expect(statusDocumentSchema.parse(JSON.parse(local.stdout)).jobs.find((j) => j.name === 'api postgres')!.verify).toBeNull();
    // The database holds the schema's version, the mark keyed by service, and no token.
    expect(pg.sql('SELECT max(version) FROM backupctl.schema_version', 'team_state')).toBe(String(SCHEMA_VERSION));
    const rows = pg.sql("SELECT service || ' ' || kind || ' ' || (last->>'state') FROM backupctl.marks", 'team_state').split('\n');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(new RegExp(`^${emu.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} account:[0-9a-f]{16} verify passed$`));
    const dump = pg.sql('SELECT string_agg(t::text, chr(10)) FROM backupctl.marks t', 'team_state');
    expect(dump).not.toContain(emu.token);
    expect(dump).not.toContain('superpw');
  });

  it('config set state_url keeps it in the profile, and neither set nor get prints its password', async () => {
    const dave = member('dave');
    const set = await cli(dave, ['config', 'set', 'state_url', stateUrl()]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout + set.stderr).not.toContain('superpw');
    const get = await cli(dave, ['config', 'get', 'state_url']);
    expect(get.stdout.trim()).toBe(`postgres://postgres:***@/team_state?host=${pg.dir}`);
    const s = await cli(dave, ['status', '--json']);
    expect(s.code, s.stderr).toBe(0);
    expect(statusDocumentSchema.parse(JSON.parse(s.stdout)).jobs.find((j) => j.name === 'api postgres')!.verify).toMatchObject({ state: 'passed' });
    const bad = await cli(dave, ['config', 'set', 'state_url', 'http://x:topsecret@host/db']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).not.toContain('topsecret');
  });

  it('an unreachable state database is exit 3 for status and verify, the password never printed, nothing falls back to the folder', async () => {
    const carol = member('carol');
    const gone = `postgres://postgres:hunter2secret@/team_state?host=${path.join(work, 'no-such-socket-dir')}`;
    for (const args of [['status'], ['verify', 'api postgres', '--latest', '-q']]) {
      const r = await cli(carol, args, { BACKUPCTL_STATE_URL: gone });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(/cannot reach the state database postgres:\/\/postgres:\*\*\*@\/team_state/);
      expect(r.stderr + r.stdout).not.toContain('hunter2secret');
    }
    expect(existsSync(path.join(carol.state, 'backupctl', 'marks.json'))).toBe(false);
    const wrongPassword = await cli(carol, ['status'], { BACKUPCTL_STATE_URL: `postgres://postgres:wrongpass99@/team_state?host=${pg.dir}` });
    expect(wrongPassword.code).toBe(3);
    expect(wrongPassword.stderr).toMatch(/password authentication failed/);
    expect(wrongPassword.stderr).not.toContain('wrongpass99');
    const notPg = await cli(carol, ['status'], { BACKUPCTL_STATE_URL: 'mysql://u:pw@host/db' });
    expect(notPg.code).toBe(3);
    expect(notPg.stderr).toMatch(/invalid state URL "mysql:\/\/u:\*\*\*@host\/db" \(from BACKUPCTL_STATE_URL\)/);
  });
});

const mark = (at: string, state: Mark['state'], reason: string | null = null): Mark => ({ at, state, reason, exit_code: state === 'failed' ? 11 : 0 });

describe('two writers of one state', () => {
  const S = 'http://127.0.0.1:9 account:0123456789abcdef';
  it('of two writers of the same mark the newer `at` wins, whichever writes last', async () => {
    const a = await PgMarksStore.open(stateUrl(), S);
    const b = await PgMarksStore.open(stateUrl(), S);
    await a.record('verify', [{ backupId: 'nw1', jobId: 'j1', createdAt: '2026-11-01T00:00:00Z', mark: mark('2026-11-02T10:00:00Z', 'passed') }]);
    // A runner that started earlier records its older attempt late: it changes nothing.
    await b.record('verify', [{ backupId: 'nw1', jobId: 'j1', createdAt: '2026-11-01T00:00:00Z', mark: mark('2026-11-02T09:00:00Z', 'failed', 'old') }]);
    const seen = (await PgMarksStore.open(stateUrl(), S)).backup('nw1')?.verify;
    expect(seen?.last).toEqual(mark('2026-11-02T10:00:00Z', 'passed'));
    expect(seen?.conclusive).toEqual(mark('2026-11-02T10:00:00Z', 'passed'));
    // The same rule in the state folder.
    const dir = mkdtempSync(path.join(work, 'folder-'));
    const f = await MarksStore.open(dir, S);
    await f.record('verify', [{ backupId: 'nw1', jobId: 'j1', createdAt: null, mark: mark('2026-11-02T10:00:00Z', 'passed') }]);
    await f.record('verify', [{ backupId: 'nw1', jobId: 'j1', createdAt: null, mark: mark('2026-11-02T09:00:00Z', 'failed', 'old') }]);
    expect((await MarksStore.open(dir, S)).backup('nw1')?.verify?.last.state).toBe('passed');
  });

  it('twenty writers at once on the same backups lose no mark and keep the newest of each', async () => {
    const writers = await Promise.all(Array.from({ length: 20 }, () => PgMarksStore.open(stateUrl(), S)));
    const at = (i: number) => new Date(Date.UTC(2026, 10, 5, 0, i)).toISOString();
    await Promise.all(
      writers.map((w, i) =>
        w.record('restore_test', [
          { backupId: 'cw-shared', jobId: 'j2', createdAt: '2026-11-04T00:00:00Z', mark: mark(at(i), i % 2 ? 'passed' : 'failed') },
          { backupId: `cw-own-${i}`, jobId: 'j2', createdAt: '2026-11-04T00:00:00Z', mark: mark(at(i), 'passed') },
        ]),
      ),
    );
    const after = await PgMarksStore.open(stateUrl(), S);
    expect(after.backup('cw-shared')?.restore_test?.last.at).toBe(at(19));
    expect(after.ofJob('j2')).toHaveLength(21);
  });

  it('state migrate copies a folder to PostgreSQL and back, every service, the newer mark winning, twice the same', async () => {
    const who = member('migrator');
    const folder = path.join(who.state, 'backupctl');
    const T = 'http://other.example account:fedcba9876543210';
    const f = await MarksStore.open(folder, T);
    await f.record('verify', [{ backupId: 'mig-1', jobId: 'j3', createdAt: '2026-11-06T00:00:00Z', mark: mark('2026-11-06T01:00:00Z', 'passed') }]);
    await f.record('restore_test', [{ backupId: 'mig-1', jobId: 'j3', createdAt: '2026-11-06T00:00:00Z', mark: mark('2026-11-06T02:00:00Z', 'failed', 'rows') }]);
    const migrate = (args: string[], env: Record<string, string> = {}) =>
      runCli(['state', 'migrate', ...args, '--json'], { env: { BACKUPCTL_BASE_URL: 'http://127.0.0.1:9', BACKUPCTL_TOKEN: 't', BACKUPCTL_CONFIG_DIR: who.cfg, XDG_STATE_HOME: who.state, ...env } });
    const there = await migrate(['--to', stateUrl()]);
    expect(there.code, there.stderr).toBe(0);
    expect(JSON.parse(there.stdout)).toMatchObject({ from: folder, marks: 2, services: 1 });
    expect(there.stdout).not.toContain('superpw');
    const rt = (await PgMarksStore.open(stateUrl(), T)).backup('mig-1');
    expect(rt?.restore_test?.last).toEqual(mark('2026-11-06T02:00:00Z', 'failed', 'rows'));
    expect(rt?.verify?.conclusive).toEqual(mark('2026-11-06T01:00:00Z', 'passed'));
    // Twice: the same rows, none added.
    const count = () => pg.sql('SELECT count(*) FROM backupctl.marks', 'team_state');
    const before = count();
    expect((await migrate(['--to', stateUrl()])).code).toBe(0);
    expect(count()).toBe(before);
    // Back to a new folder, from the PostgreSQL state: every service of the database.
    const back = path.join(work, 'back');
    const home = await migrate(['--to', back], { BACKUPCTL_STATE_URL: stateUrl() });
    expect(home.code, home.stderr).toBe(0);
    const services = Object.keys(JSON.parse(readFileSync(path.join(back, MARKS_FILE), 'utf8')).services);
    expect(services).toContain(T);
    expect(services.length).toBe(Number(pg.sql('SELECT count(DISTINCT service) FROM backupctl.marks', 'team_state')));
    expect((await MarksStore.open(back, T)).backup('mig-1')).toEqual((await PgMarksStore.open(stateUrl(), T)).backup('mig-1'));
    // --to the state in use is refused.
    expect((await migrate(['--to', folder])).code).toBe(2);
  });
});
