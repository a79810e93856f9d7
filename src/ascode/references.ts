// Where a secret reference of a backups file comes from, and whether it may
// be read. `${file:PATH}` resolves inside the backups file's own folder (a
// symbolic link that leads out of it counts as outside): a backups file from
// a pull request must not make a CI `apply` send /etc/shadow or ~/.ssh/id_rsa.
// Anything else needs --allow-outside-files. `${env:NAME}` is read from the
// environment. Nothing here reads a secret: only whether it is there.
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { SECRET_REFERENCE } from './filespec.js';

export interface ResolvedReference {
  kind: 'env' | 'file';
  /** The variable's name, or the path as written. */
  name: string;
  /** For a file: its absolute path. */
  file: string | null;
  /** The variable is set (not empty), or the file exists and is a regular file. */
  available: boolean;
  /** A file outside the backups file's folder. */
  outside: boolean;
}

function inside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

const real = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

export function resolveReference(ref: string, baseDir: string, env: NodeJS.ProcessEnv): ResolvedReference {
  const m = SECRET_REFERENCE.exec(ref);
  if (!m) return { kind: 'env', name: ref, file: null, available: false, outside: false };
  const name = m[2]!;
  if (m[1] === 'env') return { kind: 'env', name, file: null, available: env[name] !== undefined && env[name] !== '', outside: false };
  const file = path.resolve(baseDir, name);
  // A regular file (a link to one included): a folder or a device is no secret.
  const available = statSync(file, { throwIfNoEntry: false })?.isFile() === true;
  // Lexically inside, and still inside once every symbolic link is followed.
  const outside = !inside(baseDir, file) || (available && !inside(real(baseDir), real(file)));
  return { kind: 'file', name, file, available, outside };
}
