// The seam to the SQL engines (src/restore/sql/*): a SQL dump's RestoreSink.
// The engine is planned before the sink is made (--into, then local binaries,
// then embedded PGlite): when none can restore the dump, NoRestoreEngineError
// (exit 15, naming the three ways to get one) is thrown here, so the
// dispatcher stops the whole run before the rest of the file is read.
import type { DumpKind, RestoreOptions, RestoreSink } from './types.js';

export type SqlKind = Extract<DumpKind, 'mysql' | 'pg-plain' | 'pg-custom'>;


/**
 * The RestoreSink of one SQL dump of `kind`. It gets the decompressed bytes
 * (the dispatcher gunzips), streams them into a scratch database, then counts
 * every table's rows against the dump and runs the --assert queries.
 */
export async function sqlRestoreSink(kind: SqlKind, o: RestoreOptions): Promise<RestoreSink> {
  const { planSqlEngine, createSqlRestoreSink } = await import('./sql/sink.js');
  await planSqlEngine(kind, o);
  return createSqlRestoreSink(o, kind);
}
