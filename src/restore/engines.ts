// The seam to the SQL engines (src/restore/sql/*): a SQL dump's RestoreSink.
// The engine is planned once, before the sink is made (sql/engine.ts:
// --into, then local binaries, then embedded PGlite): when none can restore
// the dump, NoRestoreEngineError (exit 15, naming the ways to get one) is
// thrown here, so the dispatcher stops the whole run before the rest of the
// file is read. The sink gets that plan and never chooses again.
import type { DumpKind, RestoreOptions, RestoreSink } from './types.js';

export type SqlKind = Extract<DumpKind, 'mysql' | 'pg-plain' | 'pg-custom'>;

export { NoRestoreEngineError } from './sql/engine.js';

/**
 * The RestoreSink of one SQL dump of `kind`. It gets the decompressed bytes
 * (the dispatcher gunzips), streams them into a scratch database, then counts
 * every table's rows against the dump and runs the --assert queries.
 */
export async function sqlRestoreSink(kind: SqlKind, o: RestoreOptions, x: { fromStage?: boolean } = {}): Promise<RestoreSink> {
  const { planSqlEngine, createSqlRestoreSink } = await import('./sql/sink.js');
  const plan = await planSqlEngine(kind, o);
  // Under the content stage (Content.statements): a SQL text dump's statements come from its one reader.
  return createSqlRestoreSink(o, kind, plan, { fromStage: x.fromStage === true });
}
