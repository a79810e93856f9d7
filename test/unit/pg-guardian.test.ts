// Issue 45.4: the rules of what a killed --into restore leaves (src/restore/sql/pg-guardian.ts), beside their
// e2e test (test/e2e/hostile-pg-leftovers.test.ts): the guardian acts only once its backupctl is gone, and then
// kills the dump's psql and sends the cleanup of its own database and login; a later run takes a scratch
// database or login for a leftover only when its note says the run that made it is gone, or it is a day old.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { LEFTOVER_AGE_MS, leftoverReason, ownerNote, startIntoGuardian } from '../../src/restore/sql/pg-guardian.js';
import { pidAlive } from '../helpers/restore.js';
import { until } from '../helpers/spawn.js';

const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-guardian-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the guardian of an --into restore', () => {
  test('waits while its backupctl runs; once it is gone, kills the dump\'s psql and drops its own database and login, as the administrator', async () => {
    const log = path.join(dir, 'psql.log');
    // A stand-in psql: what it was asked, as whom, in which database.
    const fakePsql = path.join(dir, 'psql');
    writeFileSync(fakePsql, `#!/bin/sh\n{ echo "user=$PGUSER pw=$PGPASSWORD args=$*"; cat; } >> ${log}\n`);
    chmodSync(fakePsql, 0o755);
    const owner = spawn('/bin/sh', ['-c', 'sleep 60'], { stdio: 'ignore' });
    // The dump's psql, still running its query: its command line names psql.
    const client = spawn('/bin/sh', ['-c', 'sleep 60', 'psql'], { stdio: 'ignore' });
    const g = startIntoGuardian({ psql: fakePsql, env: { PGUSER: 'admin', PGPASSWORD: 'adminpw', PGHOST: '/nowhere' }, adminDb: 'postgres', database: 'backupctl_restore_0123456789', login: 'backupctl_r_abcdefabcd', loginPassword: 'loginpw', client: client.pid!, owner: owner.pid! });
    expect(g).not.toBeNull();
    await new Promise((r) => setTimeout(r, 1200));
    expect(existsSync(log)).toBe(false);
    expect(pidAlive(client.pid!)).toBe(true);
    owner.kill('SIGKILL');
    await until(() => !pidAlive(g!.pid!), 10_000);
    expect(pidAlive(client.pid!) && spawnSync('ps', ['-o', 'stat=', '-p', String(client.pid)], { encoding: 'utf8' }).stdout.trim() !== 'Z').toBe(false);
    const said = readFileSync(log, 'utf8');
    expect(said).toContain('user=backupctl_r_abcdefabcd pw=loginpw args=-X -q -d backupctl_restore_0123456789 -f -');
    expect(said).toContain("SELECT format('ROLLBACK PREPARED %L', gid) FROM pg_prepared_xacts WHERE database = current_database() \\gexec");
    expect(said).toContain('user=admin pw=adminpw args=-X -q -d postgres -f -');
    expect(said).toContain('ALTER ROLE "backupctl_r_abcdefabcd" NOLOGIN;\nSELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \'backupctl_restore_0123456789\' AND pid <> pg_backend_pid();\nDROP DATABASE IF EXISTS "backupctl_restore_0123456789";\nDROP ROLE IF EXISTS "backupctl_r_abcdefabcd";');
  });

  test('a process that is not psql under the client\'s pid (the pid reused) is not killed', async () => {
    const fakePsql = path.join(dir, 'true-psql');
    writeFileSync(fakePsql, '#!/bin/sh\ncat >/dev/null\n');
    chmodSync(fakePsql, 0o755);
    const owner = spawn('/bin/sh', ['-c', 'sleep 60'], { stdio: 'ignore' });
    const other = spawn('/bin/sh', ['-c', 'sleep 60'], { stdio: 'ignore' });
    try {
      const g = startIntoGuardian({ psql: fakePsql, env: {}, adminDb: 'postgres', database: 'backupctl_restore_x', login: null, loginPassword: null, client: other.pid!, owner: owner.pid! });
      owner.kill('SIGKILL');
      await until(() => !pidAlive(g!.pid!), 10_000);
      expect(pidAlive(other.pid!)).toBe(true);
    } finally {
      other.kill('SIGKILL');
    }
  });
});

describe('leftovers of an earlier run: by name prefix (the query) and by the note and age (this rule)', () => {
  const now = Date.parse('2026-12-02T03:00:00Z');
  const at = (ms: number) => Math.floor(ms / 1000);
  const here = { host: 'box', startOf: (pid: number) => (pid === 100 ? '555' : null) };
  test.each([
    ['its run is gone (pid not running)', `backupctl restore-test: host box pid 200 start 9 at ${at(now - 60_000)}`, 'the backupctl that made it (pid 200) is gone'],
    ['its pid runs another process (another start time)', `backupctl restore-test: host box pid 100 start 554 at ${at(now - 60_000)}`, 'the backupctl that made it (pid 100) is gone'],
    ['its run is under way', `backupctl restore-test: host box pid 100 start 555 at ${at(now - 60_000)}`, null],
    ['another machine\'s run, an hour old', `backupctl restore-test: host other pid 200 start 9 at ${at(now - 3600_000)}`, null],
    ['another machine\'s run, older than a day', `backupctl restore-test: host other pid 200 start 9 at ${at(now - LEFTOVER_AGE_MS - 3600_000)}`, 'made 25 hours ago'],
    ['a run under way here, but older than a day', `backupctl restore-test: host box pid 100 start 555 at ${at(now - 2 * LEFTOVER_AGE_MS)}`, 'made 48 hours ago'],
    ['no note of ours', 'made by hand', null],
    ['no note at all', '', null],
  ])('%s', (_name, note, why) => {
    expect(leftoverReason(note, now, here)).toBe(why);
  });

  test('the note of this process names this host, this pid and its start: a run under way is never a leftover', () => {
    const note = ownerNote(now);
    expect(note).toMatch(new RegExp(`^backupctl restore-test: host \\S+ pid ${process.pid} start \\d+ at ${at(now)}$`));
    expect(leftoverReason(note, now + 60_000)).toBeNull();
  });
});
