// The seam to the SQL engines (restore-sql branch: src/restore/sql/*). Until
// that branch is merged, a SQL dump finds no engine here: exit 15 with the
// three ways to get one. At merge, sqlRestoreSink calls the branch's function
// that creates a RestoreSink for a SQL dump (it gets the decompressed bytes).
import { CliError, ExitCode } from '../errors.js';
import type { DumpKind, RestoreOptions, RestoreSink } from './types.js';

export type SqlKind = Extract<DumpKind, 'mysql' | 'pg-plain' | 'pg-custom'>;

export class NoRestoreEngineError extends CliError {
  constructor(what: string) {
    super(`no engine to restore ${what} into`, ExitCode.noRestoreEngine, [
      '  Any of these gives one:',
      '  - install the server package (postgresql, or mariadb-server): backupctl starts a private server for the test;',
      '  - give a scratch server: --into postgres://user@host/ or mysql://user@host/ (or BACKUPCTL_RESTORE_URL);',
      '  - for PostgreSQL plain dumps, add PGlite: npm install -g @electric-sql/pglite (then --engine embedded).',
    ]);
  }
}

const WHAT: Record<SqlKind, string> = { mysql: 'a MySQL dump', 'pg-plain': 'a PostgreSQL dump', 'pg-custom': 'a PostgreSQL custom-format dump' };

export async function sqlRestoreSink(kind: SqlKind, _o: RestoreOptions): Promise<RestoreSink> {
  throw new NoRestoreEngineError(WHAT[kind]);
}
