// The ephemeral local MariaDB (or MySQL) of restore-test (issue 24 §2, issue
// 28 §1 and "two restore-tests at once"): everything of one server lives in
// its own private folder (data, socket, pid file, --tmpdir, and
// mariadb-install-db's own temporary files through TMPDIR and --tmpdir), so
// two servers never meet in /tmp ("Could not remove temporary table
// '/tmp/#sql-temptable-…'" when they did). The server never runs as the
// machine's `mysql` account, which owns the real data: as root it runs as
// `nobody` (or --run-as), otherwise as the invoking user. Inside, root is for
// backupctl's administrator connection only; the dump's session is a
// throwaway login with rights on the scratch schema only (mysql.ts).
import { mkdir } from 'node:fs/promises';
import { chown } from 'node:fs/promises';
import path from 'node:path';
import { rm } from 'node:fs/promises';
import { privateDir, serverAccount, startServer, tail, type EphemeralServer } from '../servers/ephemeral.js';
import { DEFAULT_PATH, findBinary, run, SBIN_DIRS } from '../servers/proc.js';
import { RestoreError } from './target.js';

/** The account an ephemeral MariaDB runs as when we are root: one that owns nothing (never `mysql`). */
export const MARIADB_ACCOUNT = 'nobody';

export function findMyServer(pathVar?: string): { install: string | null; server: string } | null {
  const server = findBinary('mariadbd', SBIN_DIRS, pathVar) ?? findBinary('mysqld', SBIN_DIRS, pathVar);
  if (!server) return null;
  const install = findBinary('mariadb-install-db', SBIN_DIRS, pathVar) ?? findBinary('mysql_install_db', SBIN_DIRS, pathVar);
  if (!install && /mariadbd$/.test(server)) return null;
  return { install, server };
}

/** An ephemeral MariaDB (or MySQL): a data folder made in a private folder, the server on a Unix socket there, --skip-networking. */
export async function startLocalMysql(runAs: string | undefined, signal?: AbortSignal, pathVar?: string): Promise<{ server: EphemeralServer; socketPath: string }> {
  const found = findMyServer(pathVar);
  if (!found) throw new RestoreError('no MariaDB/MySQL server binaries (mariadb-install-db and mariadbd, or mysqld)');
  const who = serverAccount(MARIADB_ACCOUNT, runAs);
  if (who.problem) throw new RestoreError(who.problem);
  if (who.account && (who.account.name === 'mysql' || who.account.name === 'postgres')) {
    throw new RestoreError(`--run-as ${who.account.name}: that account has access to the machine's own databases; give one that owns nothing (the default is ${MARIADB_ACCOUNT})`);
  }
  const dir = await privateDir(who.account);
  try {
    const data = path.join(dir, 'data');
    const tmp = path.join(dir, 'tmp');
    const sock = path.join(dir, 'mysqld.sock');
    await mkdir(tmp, { mode: 0o700 });
    if (who.account) await chown(tmp, who.account.uid, who.account.gid);
    const asWho = who.account ? { uid: who.account.uid, gid: who.account.gid } : {};
    // Only what the server needs; TMPDIR inside the folder for the install script and its bootstrap server.
    const env = { PATH: pathVar ?? DEFAULT_PATH, LANG: 'C', LC_ALL: 'C', HOME: dir, TMPDIR: tmp };
    const own = [`--tmpdir=${tmp}`, `--socket=${path.join(dir, 'install.sock')}`, `--pid-file=${path.join(dir, 'install.pid')}`, '--skip-networking'];
    const init = found.install
      ? await run(found.install, ['--no-defaults', `--datadir=${data}`, '--auth-root-authentication-method=normal', '--skip-test-db', '--skip-name-resolve', ...own], { env, cwd: dir, timeoutMs: 180_000, signal, ...asWho })
      : await run(found.server, ['--no-defaults', '--initialize-insecure', `--datadir=${data}`, ...own], { env, cwd: dir, timeoutMs: 180_000, signal, ...asWho });
    if (init.code !== 0) throw new RestoreError(`${path.basename(found.install ?? found.server)} failed: ${tail(init.stderr || init.stdout)}`);
    const server = await startServer({
      cmd: found.server,
      args: [
        '--no-defaults',
        `--datadir=${data}`,
        `--socket=${sock}`,
        `--tmpdir=${tmp}`,
        '--skip-networking',
        `--pid-file=${path.join(dir, 'mysqld.pid')}`,
        // Nothing on the server may read or write files outside its folder, whoever asks.
        `--secure-file-priv=${tmp}`,
        '--local-infile=0',
        '--innodb-flush-log-at-trx-commit=0',
        '--innodb-buffer-pool-size=64M',
        '--skip-log-bin',
        '--max-allowed-packet=1G',
      ],
      dir,
      account: who.account,
      ready: /ready for connections/,
      quitSignal: 'SIGKILL',
      stopSignal: 'SIGTERM',
      signal,
      name: path.basename(found.server),
    });
    return { server, socketPath: sock };
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}
