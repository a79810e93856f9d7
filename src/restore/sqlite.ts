// restore-test's SQLite engine (issue 43: a new engine is one file and its
// line in registry.ts). It restores a SQLite database file (the bytes loaded
// into an in-memory database) or a `sqlite3 db .dump` text (its statements run
// in an empty in-memory database), then runs PRAGMA integrity_check and counts
// the rows of every base table (sqlite_master type='table').
//
// The engine is sql.js (SQLite compiled to WebAssembly): no native build, no
// server, nothing on this machine's disk. Its file system is an in-memory one
// inside the WebAssembly module, so a dump's ATTACH or VACUUM INTO could only
// make a file there; they are refused all the same, as are the PRAGMAs
// sqlite3 .dump does not write and WITH RECURSIVE (a statement that never
// ends), and the database list is checked after the restore. load_extension
// does not exist in sql.js. The JavaScript is in the bundle and loaded here
// only; its WebAssembly sits gzipped beside the bundle (dist/sqlite.wasm.gz, a
// blob asset in the single executable), as jq's does. It runs in this process
// (PGlite runs in a child): a statement that computes for long cannot be
// stopped midway by --timeout (docs/restore-tests.md says so).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import type { ContentKind } from '../pipeline/kinds.js';
import { parsing } from '../pipeline/parses.js';
import { readBuiltBinary } from '../util/built-files.js';
import { EMPTY_RESTORE, rowsFailure, truthy } from './db-checks.js';
import { emptyRestore, type AssertionResult, type FileRestore, type RestoreEngine, type RestoreFailure, type RestoreOptions, type RestoreSink, type TableRows } from './types.js';

/** The largest file or dump restored in memory; a larger one is not tested (the engine's limit, not the backup's fault). */
export const SQLITE_MAX_BYTES = 256 * 1024 * 1024;
/** The most a dump may grow the in-memory database to (PRAGMA max_page_count). */
const MAX_DATABASE_BYTES = 1024 * 1024 * 1024;

// The part of sql.js used here (it ships no types).
interface SqlJsStatement {
  step(): boolean;
  getSQL(): string;
  free(): boolean;
}
interface SqlJsIterator {
  next(): { done: boolean; value: SqlJsStatement };
  getRemainingSQL(): string;
}
interface SqlJsDatabase {
  exec(sql: string): Array<{ columns: string[]; values: unknown[][] }>;
  iterateStatements(sql: string): SqlJsIterator;
  close(): void;
}
interface SqlJs {
  Database: new (data?: Uint8Array) => SqlJsDatabase;
}

let loaded: Promise<SqlJs> | undefined;

/** dist/sqlite.wasm.gz beside the bundle (an asset of the single executable), or sql.js's own file when running from the sources (tests). */
function wasmBinary(): Uint8Array {
  const built = ['./sqlite.wasm.gz', '../../dist/sqlite.wasm.gz'].map((p) => new URL(p, import.meta.url));
  try {
    return gunzipSync(readBuiltBinary('sqlite.wasm.gz', () => built.find((u) => existsSync(u)) ?? built[0]!));
  } catch {
    return readFileSync(createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'));
  }
}

function sqlJs(): Promise<SqlJs> {
  loaded ??= (async () => {
    // @ts-ignore -- sql.js ships no types: the part used is declared above.
    const mod = (await import('sql.js')) as { default: (o: { wasmBinary: Uint8Array }) => Promise<SqlJs> };
    return mod.default({ wasmBinary: wasmBinary() });
  })();
  return loaded;
}

/** The first cell of a query, as text (null for NULL or no row). */
function firstCell(db: SqlJsDatabase, sql: string): string | null {
  const v = db.exec(sql)[0]?.values[0]?.[0];
  return v === undefined || v === null ? null : v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : String(v);
}

const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A statement's text without its comments and string literals, upper-cased: what the rules below look at. */
function bare(sql: string): string {
  return sql
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?(\*\/|$)/g, ' ')
    .trim()
    .toUpperCase();
}

/** The PRAGMAs sqlite3 .dump writes. */
const DUMP_PRAGMAS = /^PRAGMA\s+(FOREIGN_KEYS|WRITABLE_SCHEMA|DEFER_FOREIGN_KEYS)\s*(=\s*\S+)?\s*;?$/;

/** Why a statement of a dump is refused, or null. */
function refused(b: string): string | null {
  if (/^(ATTACH|DETACH)\b/.test(b)) return 'it attaches another database: a dump restores one database, nothing outside it';
  if (/^VACUUM\b[\s\S]*\bINTO\b/.test(b)) return 'VACUUM INTO writes another file';
  if (/^PRAGMA\b/.test(b) && !DUMP_PRAGMAS.test(b)) return 'a PRAGMA sqlite3 .dump does not write';
  if (/\bRECURSIVE\b/.test(b)) return 'WITH RECURSIVE: a dump holds data, not queries that may never end';
  if (/\bLOAD_EXTENSION\s*\(/.test(b)) return 'load_extension: no code is loaded into the engine';
  return null;
}

/** The table of an `INSERT INTO t VALUES(...)` as sqlite3 .dump writes one row per statement. */
const INSERT_ROW = /^INSERT\s+INTO\s+("(?:[^"]|"")+"|'(?:[^']|'')+'|\[[^\]]+\]|`[^`]+`|[A-Za-z_][\w$]*)\s+VALUES\s*\(/i;

function unquote(name: string): string {
  const q = name[0];
  if (q === '"' || q === "'" || q === '`') return name.slice(1, -1).replaceAll(q + q, q);
  if (q === '[') return name.slice(1, -1);
  return name;
}

class SqliteSink implements RestoreSink {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private started = 0;
  private aborted = false;

  constructor(
    private readonly kind: 'sqlite' | 'sqlite-dump',
    private readonly o: RestoreOptions,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    if (!this.started) this.started = performance.now();
    this.bytes += chunk.length;
    // Past the limit the bytes are counted, not kept: end() says the file is too large for this engine.
    if (this.bytes <= SQLITE_MAX_BYTES) this.chunks.push(chunk);
  }

  restart(): void {
    this.chunks = [];
    this.bytes = 0;
  }

  async abort(): Promise<void> {
    this.aborted = true;
    this.chunks = [];
  }

  async end(): Promise<FileRestore> {
    const result = emptyRestore(this.kind);
    const finish = (failure: RestoreFailure | null): FileRestore => {
      this.chunks = [];
      return { ...result, verdict: failure ? 'failed' : 'restored', failure, rows: result.tables.reduce((n, t) => n + (t.restored ?? t.expected), 0), restore_seconds: this.started ? (performance.now() - this.started) / 1000 : 0 };
    };
    if (this.bytes > SQLITE_MAX_BYTES) {
      return finish({ message: `${this.bytes} bytes: the embedded SQLite engine restores at most ${SQLITE_MAX_BYTES / 1024 / 1024} MiB in memory`, untested: true });
    }
    let SQL: SqlJs;
    try {
      SQL = await sqlJs();
    } catch (e) {
      return finish({ message: `the SQLite engine (sql.js) could not load: ${(e as Error).message}`, untested: true });
    }
    if (this.aborted) return finish({ message: 'stopped', untested: true });
    const bytes = Buffer.concat(this.chunks);
    this.chunks = [];
    let db: SqlJsDatabase | undefined;
    try {
      const expected = new Map<string, number>();
      if (this.kind === 'sqlite') {
        // A database in WAL mode (file format 2) is read as a rollback-journal one: its -wal file is not in the backup.
        if (bytes.length > 19 && bytes[18] === 2 && bytes[19] === 2) bytes[18] = bytes[19] = 1;
        parsing('sqlite');
        db = new SQL.Database(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
        firstCell(db, 'SELECT count(*) FROM sqlite_master');
      } else {
        db = new SQL.Database();
        const pageSize = Number(firstCell(db, 'PRAGMA page_size')) || 4096;
        db.exec(`PRAGMA max_page_count = ${Math.floor(MAX_DATABASE_BYTES / pageSize)}`);
        // SQLite itself reads the dump's statements (sql.js): its one parse.
        parsing('sqlite');
        const failure = this.runDump(db, bytes.toString('utf8'), expected);
        if (failure) return finish(failure);
      }
      result.engine = { name: 'sqlite', runs: 'embedded', product: 'SQLite', version: firstCell(db, 'SELECT sqlite_version()'), rights: 'sql.js in memory: no file, server or extension reachable' };
      // Nothing may have reached beyond the one database (main, and temp for the session).
      const others = (db.exec('PRAGMA database_list')[0]?.values ?? []).map((r) => String(r[1])).filter((n) => n !== 'main' && n !== 'temp');
      if (others.length) return finish({ message: `the restore attached another database (${others.join(', ')}): refused` });
      const integrity = (db.exec('PRAGMA integrity_check')[0]?.values ?? []).map((r) => String(r[0]));
      if (integrity.join() !== 'ok') return finish({ message: `PRAGMA integrity_check: ${integrity.slice(0, 3).join('; ')}${integrity.length > 3 ? ` (and ${integrity.length - 3} more)` : ''}` });
      const names = (db.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")[0]?.values ?? []).map((r) => String(r[0]));
      result.tables = names.map((name): TableRows => {
        let restored: number | null = null;
        try {
          restored = Number(firstCell(db!, `SELECT count(*) FROM ${quoteName(name)}`));
        } catch (e) {
          result.warnings.push(`${name}: not counted: ${(e as Error).message}`);
        }
        // A database file is its own listing; a dump's INSERT statements are counted while it runs.
        return { table: name, expected: this.kind === 'sqlite' ? (restored ?? 0) : (expected.get(name.toLowerCase()) ?? 0), restored };
      });
      const wrong = rowsFailure(result.tables);
      if (wrong) return finish({ message: wrong });
      if (!names.length && !this.o.allowEmpty) return finish({ message: EMPTY_RESTORE });
      for (const sql of this.o.asserts) {
        const a: AssertionResult = { sql, ok: false, value: null };
        const why = refused(bare(sql));
        try {
          if (why) throw new Error(`refused: ${why}`);
          a.value = firstCell(db, sql);
          a.ok = truthy(a.value);
        } catch (e) {
          a.error = (e as Error).message;
        }
        result.assertions.push(a);
        if (!a.ok) return finish({ message: a.error ? `--assert failed: ${sql}: ${a.error}` : `--assert returned ${a.value === null ? 'NULL' : a.value}, not true: ${sql}` });
      }
      return finish(null);
    } catch (e) {
      // A file that is no database, or a damaged one: SQLite says so on the first read.
      return finish({ message: `SQLite: ${(e as Error).message}` });
    } finally {
      db?.close();
    }
  }

  /** Runs a dump statement by statement; the failure (with its line) or null. Counts each table's INSERTs in `expected`. */
  private runDump(db: SqlJsDatabase, text: string, expected: Map<string, number>): RestoreFailure | null {
    const it = db.iterateStatements(text);
    let remaining = text;
    // Where a statement starts: past the blanks and comments before it (its line, and its text as quoted).
    const start = (rest: string) => text.length - rest.replace(/^(\s+|--[^\n]*(\n|$)|\/\*[\s\S]*?(\*\/|$))*/, '').length;
    const lineAt = (rest: string) => {
      const at = start(rest);
      let n = 1;
      for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) n++;
      return n;
    };
    const quoted = (rest: string, sql?: string) => (sql ?? text.slice(start(rest)).split(/(?<=;)[ \t]*\r?\n/)[0]!).replace(/^(\s+|--[^\n]*(\n|$)|\/\*[\s\S]*?(\*\/|$))*/, '').trim().slice(0, 200);
    for (;;) {
      const before = remaining;
      let step: { done: boolean; value: SqlJsStatement };
      try {
        step = it.next();
      } catch (e) {
        return { message: `SQLite: ${(e as Error).message}`, line: lineAt(before), statement: quoted(before) };
      }
      if (step.done) return null;
      const stmt = step.value;
      remaining = it.getRemainingSQL();
      const sql = stmt.getSQL();
      try {
        const why = refused(bare(sql));
        if (why) throw new Error(`refused: ${why}`);
        while (stmt.step());
      } catch (e) {
        return { message: `SQLite: ${(e as Error).message}`, line: lineAt(before), statement: quoted(before, sql) };
      } finally {
        stmt.free();
      }
      const row = INSERT_ROW.exec(sql.trim());
      if (row) {
        const table = unquote(row[1]!).toLowerCase();
        expected.set(table, (expected.get(table) ?? 0) + 1);
      }
    }
  }
}

/** SQLite database files and sqlite3 .dump texts, restored in memory inside backupctl. */
export const sqliteEngine: RestoreEngine = {
  id: 'sqlite',
  product: 'SQLite',
  kinds: ['sqlite', 'sqlite-dump'],
  placements: ['embedded'],
  userCheck: 'assert',
  lists: 'tables',
  recipes: [],
  backsUp: 'a SQLite database',
  does: (kind: ContentKind) =>
    `${kind === 'sqlite' ? 'opened' : 'its statements run'} in an in-memory SQLite database (embedded, sql.js), PRAGMA integrity_check, every table counted${kind === 'sqlite-dump' ? ' against its INSERTs' : ''}`,
  async open(kind, o) {
    if (kind !== 'sqlite' && kind !== 'sqlite-dump') throw new Error(`the SQLite engine does not take ${kind}`);
    return new SqliteSink(kind, o);
  },
};
