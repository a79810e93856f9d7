// The ephemeral local PostgreSQL of restore-test (engine "local"): initdb in a
// private folder, postgres on a Unix socket there, as an account that owns
// nothing when we are root.
import { randomBytes } from 'node:crypto';
import { access, chown, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { privateDir, serverAccount, serverEnv, startServer, sweepOrphans, tail, type EphemeralServer } from '../servers/ephemeral.js';
import type { PgConn } from './pg-session.js';
import { clusterFromTemplate, keepTemplate, templatePath } from './pg-template.js';
import { DEFAULT_PATH, isExecutable, postgresBinDirs, run } from '../servers/proc.js';
import { RestoreError } from './target.js';

/** initdb and postgres of one installation: PATH first, then /usr/lib/postgresql/<newest>/bin. */
export function findPgServer(pathVar: string | undefined = DEFAULT_PATH): { initdb: string; postgres: string } | null {
  for (const dir of [...(pathVar ?? '').split(path.delimiter).filter(Boolean), ...postgresBinDirs()]) {
    const initdb = path.join(dir, 'initdb');
    const postgres = path.join(dir, 'postgres');
    if (isExecutable(initdb) && isExecutable(postgres)) return { initdb, postgres };
  }
  return null;
}

/** The account an ephemeral PostgreSQL runs as: never the machine's postgres (it has peer access to the real clusters). */
export function pgServerAccount(runAs: string | undefined): ReturnType<typeof serverAccount> {
  if (runAs === 'postgres') return { account: null, problem: '--run-as postgres: the machine\'s postgres account reaches the real clusters (peer authentication); the ephemeral server runs as an account that owns nothing (the default: nobody)' };
  return serverAccount('nobody', runAs);
}

/**
 * An ephemeral PostgreSQL: initdb (or a copy of the installation's template,
 * src/restore/sql/pg-template.ts) in a private folder, postgres on a Unix
 * socket there, no TCP, password authentication for every role (the
 * superuser's password random, never written outside the folder). As root it
 * runs as nobody (or --run-as), else as the invoking user.
 */
export async function startLocalPostgres(runAs: string | undefined, signal: AbortSignal | undefined, env: NodeJS.ProcessEnv, maxDisk?: number): Promise<{ server: EphemeralServer; conn: PgConn; orphans: string[] }> {
  const found = findPgServer(env.PATH);
  if (!found) throw new RestoreError('no PostgreSQL server binaries (initdb, postgres)');
  const who = pgServerAccount(runAs);
  if (who.problem) throw new RestoreError(who.problem);
  const orphans = await sweepOrphans();
  const dir = await privateDir(who.account);
  try {
    const data = path.join(dir, 'data');
    const password = randomBytes(24).toString('base64url');
    const pwfile = path.join(dir, 'pw');
    await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
    if (who.account) await chown(pwfile, who.account.uid, who.account.gid);
    const template = await templatePath(env, found, who.account).catch(() => null);
    if (!(await clusterFromTemplate(template, found, data, password, who.account, signal))) {
      const init = await run(found.initdb, ['-D', data, '-U', 'postgres', '-A', 'scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--no-locale', '-N'], {
        env: serverEnv(who.account),
        cwd: dir,
        timeoutMs: 120_000,
        signal,
        ...(who.account ? { uid: who.account.uid, gid: who.account.gid } : {}),
      });
      if (init.code !== 0) throw new RestoreError(`initdb failed: ${tail(init.stderr || init.stdout)}`);
      await keepTemplate(template, data);
    }
    await rm(pwfile, { force: true });
    await access(path.join(data, 'PG_VERSION'));
    const server = await startServer({
      cmd: found.postgres,
      // dynamic_shared_memory_type=mmap: the server's dynamic shared memory lives in its data folder (pg_dynshmem/),
      // which goes with the folder, instead of /dev/shm, where an immediate shutdown (Ctrl-C: SIGQUIT) or a SIGKILL
      // left a 1 MB PostgreSQL.<n> segment behind until the machine restarts.
      args: ['-D', data, '-k', dir, '-c', 'listen_addresses=', '-c', 'unix_socket_permissions=0700', '-F', '-c', 'full_page_writes=off', '-c', 'synchronous_commit=off', '-c', 'max_wal_size=1GB', '-c', 'logging_collector=off', '-c', 'dynamic_shared_memory_type=mmap',
        // Temporary files count against BACKUPCTL_RESTORE_MAX_DISK too (the folder's watch sees them late).
        ...(maxDisk ? ['-c', `temp_file_limit=${Math.max(1, Math.floor(maxDisk / 1024))}kB`] : [])],
      dir,
      account: who.account,
      ready: /ready to accept connections/,
      quitSignal: 'SIGQUIT',
      stopSignal: 'SIGINT',
      signal,
      name: 'postgres',
    });
    return { server, conn: { env: { PGHOST: dir, PGUSER: 'postgres', PGPASSWORD: password, PGPASSFILE: '/dev/null' }, adminDb: 'postgres', secrets: [password] }, orphans };
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}

