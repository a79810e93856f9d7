// What a killed restore-test leaves on an --into PostgreSQL (issue 45.4): a guardian that cleans up when
// backupctl is gone (SIGKILL, a crash), and the rule by which a later run knows an earlier run's leftovers
// (by name prefix and by the note each scratch database and login carries: host, pid, start, time).
import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { startTime } from '../servers/ephemeral.js';

/** The note (COMMENT ON DATABASE / ROLE) a scratch database and its login carry: who made them, and when. */
export function ownerNote(now = Date.now()): string {
  return `backupctl restore-test: host ${hostname()} pid ${process.pid} start ${startTime(process.pid) ?? '-'} at ${Math.floor(now / 1000)}`;
}

/** A scratch database or login older than this is a leftover whatever its note says (no restore-test runs so long by default). */
export const LEFTOVER_AGE_MS = 24 * 3600 * 1000;

/**
 * Why a `backupctl_restore_*` database or `backupctl_r_*` login is a leftover of an earlier run, or null (it may
 * be another run's, under way): the run that made it, on this machine, is gone (its pid no longer runs, or runs
 * another process), or it is older than LEFTOVER_AGE_MS. One without our note is never judged.
 */
export function leftoverReason(
  note: string,
  now: number,
  here: { host: string; startOf: (pid: number) => string | null } = { host: hostname(), startOf: startTime },
): string | null {
  const m = /^backupctl restore-test: host (\S+) pid (\d+) start (\S+) at (\d+)$/.exec(note);
  if (!m) return null;
  const [, host, pid, start, at] = m;
  const made = Number(at) * 1000;
  if (host === here.host) {
    const running = here.startOf(Number(pid));
    if (running === null || (start !== '-' && running !== start)) return `the backupctl that made it (pid ${pid}) is gone`;
  }
  if (now - made > LEFTOVER_AGE_MS) return `made ${Math.floor((now - made) / 3600_000)} hours ago`;
  return null;
}

/**
 * The guardian of an --into restore (sh, in its own process group: Ctrl-C does not reach it). While backupctl
 * runs it only waits; once backupctl is gone it kills the dump's psql (it went on running the dump's query),
 * rolls back the scratch database's prepared transactions, takes the login's LOGIN, and drops the database and
 * the login. close() ends it first. The administrator's password is in its environment, as in psql's.
 */
export function startIntoGuardian(o: {
  psql: string;
  env: Record<string, string>;
  adminDb: string;
  database: string;
  login: string | null;
  loginPassword: string | null;
  client: number;
  owner?: number;
}): ChildProcess | null {
  const script =
    'while kill -0 "$OWNER" 2>/dev/null; do sleep 0.3; done\n' +
    'case "$(tr "\\000" " " < /proc/$CLIENT/cmdline 2>/dev/null)" in *psql*) kill -KILL "$CLIENT" 2>/dev/null ;; esac\n' +
    'R="SELECT format(\'ROLLBACK PREPARED %L\', gid) FROM pg_prepared_xacts WHERE database = current_database() \\gexec"\n' +
    'if [ -n "$LOGIN" ]; then printf \'%s\\n\' "$R" | PGUSER="$LOGIN" PGPASSWORD="$LOGINPW" "$PSQL" -X -q -d "$DB" -f - >/dev/null 2>&1; fi\n' +
    'printf \'%s\\n\' "$R" | "$PSQL" -X -q -d "$DB" -f - >/dev/null 2>&1\n' +
    'printf \'%s\\n\' "$SQL" | "$PSQL" -X -q -d "$ADMINDB" -f - >/dev/null 2>&1\n';
  // Our own names (random hex): nothing of the dump's.
  const sql = [
    ...(o.login ? [`ALTER ROLE "${o.login}" NOLOGIN;`] : []),
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${o.database}' AND pid <> pg_backend_pid();`,
    `DROP DATABASE IF EXISTS "${o.database}";`,
    ...(o.login ? [`DROP ROLE IF EXISTS "${o.login}";`] : []),
  ].join('\n');
  try {
    const g = spawn('/bin/sh', ['-c', script], {
      detached: true,
      stdio: 'ignore',
      env: {
        ...o.env,
        PATH: '/usr/bin:/bin',
        OWNER: String(o.owner ?? process.pid),
        CLIENT: String(o.client),
        PSQL: o.psql,
        DB: o.database,
        ADMINDB: o.adminDb,
        LOGIN: o.login ?? '',
        LOGINPW: o.loginPassword ?? '',
        SQL: sql,
      },
    });
    g.on('error', () => {});
    g.unref();
    return g;
  } catch {
    return null;
  }
}
