// restore-test's local PostgreSQL from a template (docs/restore-tests.md, "The local server"): the
// cluster initdb makes is the same for every test of one installation, and initdb costs about 2 s of
// CPU (1 to 5 s of waiting) per test; a copy of it costs a tenth of that. The first test of an
// installation keeps a copy of its fresh cluster (before the server ever starts) in the cache folder
// ($XDG_CACHE_HOME/backupctl/pg-template/<key>, 0700); later tests copy it into their own private
// folder and give the superuser their own random password in single-user mode (postgres --single,
// the password on its stdin), before the server listens. No password is kept: the template holds
// only the verifier of the first test's, which nobody knows.
// The key names the installation (initdb and postgres: path, inode, size, time) and the account
// the server runs as, so an upgrade or another account makes a new template. A template that is
// not a folder of ours with mode 0700 is never used (and is replaced); any failure falls back to
// initdb, as before. BACKUPCTL_PG_TEMPLATE=0 turns it off.
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, chown, copyFile, lchown, lstat, mkdir, readdir, readlink, rename, rm, stat, symlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import { cacheDir } from '../../config/paths.js';
import type { Account } from '../servers/proc.js';
import { run } from '../servers/proc.js';
import { serverEnv } from '../servers/ephemeral.js';

export interface PgInstall {
  initdb: string;
  postgres: string;
}

/** Templates unused this long are removed when another is made. */
const STALE_MS = 30 * 24 * 3600_000;

async function installKey(found: PgInstall, account: Account | null): Promise<string> {
  const parts: unknown[] = [account?.uid ?? process.geteuid?.() ?? 0];
  for (const bin of [found.initdb, found.postgres]) {
    const s = await stat(bin);
    parts.push(bin, s.ino, s.size, s.mtimeMs);
  }
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}

/** The template folder of this installation and account, or null when templates are off. */
export async function templatePath(env: NodeJS.ProcessEnv, found: PgInstall, account: Account | null): Promise<string | null> {
  if (env.BACKUPCTL_PG_TEMPLATE === '0') return null;
  return path.join(cacheDir(env), 'pg-template', await installKey(found, account));
}

/** A folder of ours (owned by this process's user, no access for others, not a link) holding a cluster. */
async function usable(template: string): Promise<boolean> {
  try {
    const s = await lstat(template);
    if (!s.isDirectory() || s.uid !== (process.geteuid?.() ?? s.uid) || (s.mode & 0o077) !== 0) return false;
    return (await lstat(path.join(template, 'PG_VERSION'))).isFile();
  } catch {
    return false;
  }
}

/**
 * A copy of the cluster folder `src` at `dst` (which must not exist): folders with their modes, files
 * (their modes; never over an existing one), links as they are; owned by `owner` when given (root
 * copying for the server's account). Not fs.cp: for a cluster (about 1000 files, 40 MB) it cost
 * 1.7 s of CPU per copy, this 0.7 s (5 copies each, measured in one process).
 */
async function copyTree(src: string, dst: string, owner: { uid: number; gid: number } | null): Promise<void> {
  const s = await lstat(src);
  await mkdir(dst, { mode: 0o700 });
  const files: Array<[string, string]> = [];
  for (const e of await readdir(src, { withFileTypes: true })) {
    const from = path.join(src, e.name);
    const to = path.join(dst, e.name);
    if (e.isDirectory()) await copyTree(from, to, owner);
    else if (e.isFile()) files.push([from, to]);
    else if (e.isSymbolicLink()) {
      await symlink(await readlink(from), to);
      if (owner) await lchown(to, owner.uid, owner.gid);
    }
  }
  // A few at a time: the copies run in libuv's threads.
  for (let i = 0; i < files.length; i += 32) {
    await Promise.all(
      files.slice(i, i + 32).map(async ([from, to]) => {
        await copyFile(from, to, constants.COPYFILE_EXCL);
        if (owner) await chown(to, owner.uid, owner.gid);
      }),
    );
  }
  await chmod(dst, s.mode & 0o7777);
  if (owner) await chown(dst, owner.uid, owner.gid);
}

/**
 * Makes `data` a copy of the template with the superuser's password set to `password`; false (and
 * nothing left at `data`) when there is no usable template or the copy could not be made ready.
 */
export async function clusterFromTemplate(template: string | null, found: PgInstall, data: string, password: string, account: Account | null, signal?: AbortSignal): Promise<boolean> {
  if (!template || !(await usable(template))) return false;
  try {
    await copyTree(template, data, account);
    await chmod(data, 0o700);
    // Single-user mode: no socket, no network; the statement on stdin, never in a process's arguments.
    const set = await run(found.postgres, ['--single', '-D', data, '-F', '-c', 'exit_on_error=true', '-c', 'log_min_messages=warning', 'postgres'], {
      env: serverEnv(account),
      // In the test's private folder, as initdb and the server: never in the user's working folder.
      cwd: path.dirname(data),
      input: `SET password_encryption = 'scram-sha-256';\nALTER ROLE postgres PASSWORD '${password}';\n`,
      timeoutMs: 60_000,
      signal,
      ...(account ? { uid: account.uid, gid: account.gid } : {}),
    });
    if (set.code !== 0) throw new Error(`postgres --single exited ${set.code}`);
    // Used: not stale (templates unused for a month are removed).
    const now = new Date();
    await utimes(template, now, now).catch(() => {});
    return true;
  } catch {
    await rm(data, { recursive: true, force: true });
    return false;
  }
}

/**
 * Keeps a copy of initdb's fresh cluster at `template` (made beside it, then renamed: a test that
 * makes it at the same time keeps its own or finds the other's). Never fails the test.
 */
export async function keepTemplate(template: string | null, data: string): Promise<void> {
  if (!template || (await usable(template))) return;
  const root = path.dirname(template);
  const building = path.join(root, `.building-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(root, { recursive: true, mode: 0o700 });
    await chmod(root, 0o700);
    await copyTree(data, building, process.geteuid?.() === 0 ? { uid: 0, gid: 0 } : null);
    await chmod(building, 0o700);
    // Made meanwhile by another test: that one stays. A folder there that is not usable (another
    // owner, open to others) is replaced.
    if (await usable(template)) throw new Error('made meanwhile');
    await rm(template, { recursive: true, force: true });
    await rename(building, template);
  } catch {
    await rm(building, { recursive: true, force: true });
    return;
  }
  // Templates of installations gone (an upgrade) and not used for a month.
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const other = path.join(root, name);
    if (other === template) continue;
    const s = await lstat(other).catch(() => null);
    if (s && Date.now() - s.mtimeMs > STALE_MS) await rm(other, { recursive: true, force: true }).catch(() => {});
  }
}
