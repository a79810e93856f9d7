// The shared shapes of `backupctl restore-test` (issue 24). The engines
// (registry.ts lists them: sql/* behind engines.ts, sqlite.ts, mongo.ts,
// files.ts; servers/ holds what server engines share) and the command
// meet here; nothing in this file does any work.
//
// Flow: the one read pipeline (src/pipeline) streams each file's raw bytes
// through its content stage: a gzip is inflated once there, the one sniffer
// (src/pipeline/kinds.ts) names the kind, and the decoded bytes go to verify's
// check and to a DispatchSink (dispatch.ts), which hands the engine the kind's
// registry entry names what the check parsed, parsing nothing again: a SQL dump's
// statements (into a scratch SQL database), a mongodump's documents (the bson
// walker), a tar's or zip's members and their bytes (an extraction folder); a
// SQLite file goes as bytes to SQLite. end() waits for the engine, runs the
// checks (row counts, --assert, --exec) and returns the FileRestore. Nothing
// holds a whole dump in memory (a SQLite file excepted, up to its bound).
import type { ContentKind } from '../pipeline/kinds.js';
import type { Content, DocumentWatcher, EntryWatcher, StatementWatcher } from '../pipeline/types.js';



/**
 * Which engine restored a file (FileRestore.engine.name in --json): the id of an engine of src/restore/registry.ts
 * ("postgres", "mysql", "sqlite", "mongo-archive", "files"). A string, so a new engine is its file and its registry line.
 */
export type EngineId = string;

/** Where an engine runs: `server` the user's --into, `local` an ephemeral server from this machine's binaries, `embedded` inside backupctl. */
export type Placement = 'server' | 'local' | 'embedded';

/** --engine: auto tries server (--into / BACKUPCTL_RESTORE_URL), then local binaries, then embedded. */
export type PlacementChoice = 'auto' | Placement;

/** One engine of restore-test (src/restore/registry.ts lists them): what it takes, what it does, where it runs, its sink. */
export interface RestoreEngine {
  readonly id: EngineId;
  /** "PostgreSQL", "SQLite", "tar/zip": how a message names it. */
  readonly product: string;
  /** The content kinds it restores (src/pipeline/kinds.ts). */
  readonly kinds: readonly ContentKind[];
  /** Where it can run, in the order --engine auto tries them. */
  readonly placements: readonly Placement[];
  /** The check a user adds: --assert SQL in the restored database, --exec in the extracted folder, or none. */
  readonly userCheck: 'assert' | 'exec' | null;
  /** What its result lists: tables (a database), collections (parsed documents), or files (extracted). */
  readonly lists: 'tables' | 'collections' | 'files';
  /** What it does with a kind, in words (help kinds, the docs). */
  does(kind: ContentKind): string;
  /** The service's job recipes whose backups it restores ("postgresql", "files"), and how a message says what such a job backs up. */
  readonly recipes: readonly string[];
  readonly backsUp: string;
  /** The sink for one file of `kind`; the decoded bytes (or a SQL text's statements, read once by the stage) go to it. */
  open(kind: ContentKind, o: RestoreOptions, content: Content): Promise<RestoreSink>;
}

/** What restored the file. */
export interface EngineInfo {
  /** Which engine (registry.ts). */
  name: EngineId;
  /** Where it ran. */
  runs: Placement;
  /** "PostgreSQL", "MariaDB", "MySQL", "PGlite", "SQLite", "bson", "tar", "zip" */
  product: string;
  /** e.g. "15.18", "10.11.6"; null when not known */
  version: string | null;
  /** SQL engines: the rights the dump's session ran with (a throwaway login, the --into user checked or trusted, PGlite in a child process). */
  rights?: string;
}

/** One table's rows: what the dump holds (counted while it streamed) and what the database holds after the restore. */
export interface TableRows {
  /** Qualified as the dump names it: "public.orders", "shop.orders"; a mongo collection "shop.orders". */
  table: string;
  expected: number;
  /** SELECT count(*) after the restore (documents parsed, for mongo); null when it could not be counted. */
  restored: number | null;
}

/** A --assert SQL and what its first cell gave. */
export interface AssertionResult {
  sql: string;
  ok: boolean;
  /** The first cell as text (null for SQL NULL or no row). */
  value: string | null;
  error?: string;
}

export interface ExecResult {
  command: string;
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  /** The last lines of its stdout and stderr, for the report. */
  output_tail: string;
  seconds: number;
}

/** Why a restore failed: the engine's message, and where in the dump when known. */
export interface RestoreFailure {
  message: string;
  /** 1-based line of the decompressed dump where the failing statement starts. */
  line?: number;
  /** The failing statement, cut to 200 characters. */
  statement?: string;
  /** The test could not run (the scratch server unreachable or refusing): not-tested, never failed. */
  untested?: boolean;
}

export type RestoreVerdict =
  | 'restored' // loaded and every check passed
  | 'structure-checked' // mongo archive: every document parsed and counted, not restored
  | 'extracted' // file archive: extracted, counted against its own listing, --exec passed
  | 'failed'
  | 'not-restorable'; // a kind backupctl does not restore (unknown bytes, encrypted): said, not hidden

export interface FileRestore {
  kind: ContentKind;
  verdict: RestoreVerdict;
  engine: EngineInfo | null;
  /** The scratch database restored into (kept with --keep), when there is one. */
  database: string | null;
  tables: TableRows[];
  /** Sum of `restored` (or of `expected` when nothing could be counted). */
  rows: number;
  /** File archives: files and bytes extracted, against the archive's listing. */
  files: number | null;
  bytes: number | null;
  /** Skipped statements and other noise of a dump taken elsewhere (OWNER TO a missing role, GRANT, unknown SET, ...). */
  warnings: string[];
  failure: RestoreFailure | null;
  assertions: AssertionResult[];
  exec: ExecResult | null;
  /** Time from the first byte handed to the engine until the checks ended. */
  restore_seconds: number;
}

/** A file's restore with nothing done yet (failed, nothing counted), with `fields` set: the one place the 13 fields are listed. */
export function emptyRestore(kind: ContentKind, fields: Partial<FileRestore> = {}): FileRestore {
  return {
    kind,
    verdict: 'failed',
    engine: null,
    database: null,
    tables: [],
    rows: 0,
    files: null,
    bytes: null,
    warnings: [],
    failure: null,
    assertions: [],
    exec: null,
    restore_seconds: 0,
    ...fields,
  };
}

/** Options every restore sink gets from the command. */
export interface RestoreOptions {
  /** --engine: where the engine may run. */
  engine: PlacementChoice;
  /** --into URL (postgres://… or mysql://…), or BACKUPCTL_RESTORE_URL. Never printed with its password. */
  into?: string;
  /** --assert SQL, each must return a true first cell. */
  asserts: string[];
  /** --exec CMD run inside an extracted file archive. */
  exec?: string;
  execTimeoutMs: number;
  keep: boolean;
  allowEmpty: boolean;
  /** --run-as USER for ephemeral local servers when running as root (default: nobody for PostgreSQL). */
  runAs?: string;
  /** --trust-into-user: restore as the --into user even when its rights reach beyond what it creates. */
  trustIntoUser?: boolean;
  /** The command's environment (PATH for the engines' binaries; --exec's few variables): nothing below the command reads process.env. */
  env?: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** Warnings for stderr while the restore runs (never the password). */
  warn?: (line: string) => void;
  /** The bounds (src/pipeline/bounds.ts, read from the environment by the command); the defaults when absent. */
  bounds?: import('../pipeline/bounds.js').Bounds;
}

/**
 * Where one file's bytes go while they arrive. The same shape as verify's
 * byte sink, so the one read pipeline fans out to both.
 */
export interface RestoreSink {
  write(chunk: Buffer): Promise<void>;
  /** The transfer starts over (the server ignored Range): the sink drops what it had. */
  restart(): void;
  /** The last byte arrived: finish the restore, run the checks. Never throws for a failed restore: the verdict says it. */
  end(): Promise<FileRestore>;
  /** Stop now (Ctrl-C, SIGTERM, transfer failed): stop servers, drop scratch databases, remove folders. */
  abort(reason?: unknown): Promise<void>;
  /**
   * After end(), once the pipeline has judged the bytes (`passed`: verify's checks on the way and the
   * ledger's "changed since"): a file archive runs --exec only now, and only when they passed, then
   * removes its folder. Sinks with nothing left to do leave it out.
   */
  settle?(result: FileRestore, passed: boolean): Promise<FileRestore>;
  /** A SQL dump's statements, read once by the content stage (the sink then reads none itself). */
  readonly statements?: StatementWatcher;
  /** A tar's or zip's members with their bytes, as the content stage's check walks them (the sink parses no archive). */
  readonly entries?: EntryWatcher;
  /** A mongodump archive's documents, as the content stage's check reads them (the sink reads no archive). */
  readonly documents?: DocumentWatcher;
}

// Exit codes (src/errors.ts ExitCode): restoreFailed 14, noRestoreEngine 15, verifyFailed 11 (a file failed verify's checks on the way).
