// THE list of restore-test's engines (issue 43 §2): who restores which kind of
// content, what that means in words, where it runs, and how it opens a sink.
// The content kinds are the pipeline's (src/pipeline/kinds.ts: what a file IS);
// which engine takes a kind is said here, once, by the engine. The dispatcher
// (dispatch.ts), `backupctl help kinds` (commands/topics.ts), the table of
// restore-test (view.ts) and the flags' checks (commands/restore-test.ts) ask
// this list, never a kind's name.
//
// A new engine is one file that exports a RestoreEngine (its sink and its
// words beside it; heavy code loaded inside open(), so help stays light) and
// its line in ENGINES below; its kind, when the sniffer does not know it yet,
// is an entry in src/pipeline/kinds.ts (docs/development.md).
//
// Three words, three things:
// (the shapes are in types.ts)
// - an engine (RestoreEngine, its id an EngineId): WHAT restores a kind
//   (PostgreSQL, MySQL/MariaDB, SQLite, the mongodump walker, file extraction);
// - a placement (Placement): WHERE it runs: `server` (the user's --into),
//   `local` (an ephemeral server from this machine's binaries) or `embedded`
//   (inside backupctl: PGlite, sql.js, the walker, the extraction);
// - the choice of placement (PlacementChoice): the --engine flag.
import type { ContentKind } from '../pipeline/kinds.js';
import { fileArchiveEngine } from './files.js';
import { mongoArchiveEngine } from './mongo.js';
import { mysqlDumpEngine, postgresDumpEngine } from './engines.js';
import { sqliteEngine } from './sqlite.js';
import type { EngineId, RestoreEngine } from './types.js';

/** Every engine of restore-test: a new one is its file and its line here. */
export const ENGINES: readonly RestoreEngine[] = [postgresDumpEngine, mysqlDumpEngine, sqliteEngine, mongoArchiveEngine, fileArchiveEngine];

/** The engine that restores `kind`, or undefined (not restorable). */
export function engineOf(kind: ContentKind): RestoreEngine | undefined {
  return ENGINES.find((e) => e.kinds.includes(kind));
}

/** The engine of that id (an EngineInfo's name); undefined for a name this build does not have. */
export function engineById(id: EngineId): RestoreEngine | undefined {
  return ENGINES.find((e) => e.id === id);
}
