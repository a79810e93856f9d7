// What every SQL engine offers the restore driver (src/restore/sql/sink.ts):
// a scratch database to feed statement by statement (or as text for a
// client), then the queries of the checks, then cleanup.
import type { EngineInfo } from '../types.js';
import type { SqlDialect } from '../../pipeline/kinds.js';

/** What the target has, so that noise can be skipped before it fails. */
export interface TargetCaps {
  /** pg: the names of pg_settings (lower case). */
  settings?: Set<string>;
  /** pg: pg_available_extensions. */
  extensions?: Set<string>;
  /** mysql: whether the server knows MySQL 8's utf8mb4_0900_* collations. */
  has0900Collations?: boolean;
  /** mysql: the client is MariaDB's with the sandbox mode (it keeps mariadb-dump's first line, and we send it first). */
  clientSandbox?: boolean;
  /** mysql: the client is MySQL's, which rejects the sandbox line. */
  clientIsMysql?: boolean;
}

/** A failed restore: the engine's message, and its line in the dump. */
export class RestoreError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly statement?: string,
  ) {
    super(message);
    this.name = 'RestoreError';
  }
}

/**
 * The scratch server could not be used (unreachable, the login refused, no right to create the
 * database): the test did not run, which says nothing of the backup (restore-test: not-tested).
 */
export class EngineUnavailableError extends RestoreError {
  override name = 'EngineUnavailableError';
}

export interface SqlTarget {
  readonly dialect: SqlDialect;
  readonly info: EngineInfo;
  /** The scratch database, null when there is none (PGlite: in memory). */
  readonly database: string | null;
  readonly caps: TargetCaps;
  /** Set when the client died (an error stopped it): stop feeding and call finish() for its message. */
  readonly dead: boolean;
  /** A statement to run; `line` is its first line in the dump. */
  statement(text: string, line: number, endLine: number, head: string): Promise<void>;
  /** Lines skipped: they must not run, but every line number after them stays. */
  blank(lines: number): Promise<void>;
  /** Text for the client itself (mysql DELIMITER, the sandbox line), or comments. */
  raw(text: string): Promise<void>;
  copyStart(head: string, line: number): Promise<void>;
  /** A COPY block's data lines: text, or the dump's own bytes (sent as they are, never decoded). */
  copyData(data: string | Buffer, rows: number): Promise<void>;
  copyEnd(text: string, line: number): Promise<void>;
  /** Everything sent: wait for the engine. Throws RestoreError. */
  finish(): Promise<void>;
  /** count(*) of each table (SQL names as the count query needs them); null where the count failed. */
  countRows(tables: string[]): Promise<(number | null)[]>;
  /** The number of user tables in the scratch database. */
  countTables(): Promise<number>;
  /** The first cell of the first row as text (null: SQL NULL or no row). Throws with the engine's message. */
  firstCell(sql: string): Promise<string | null>;
  /** After close(): what it could not remove from the --into server (the test then fails). */
  readonly leftBehind?: string | null;
  /** Drop the scratch database (unless keep), stop servers, remove folders. Returns warnings. */
  close(keep: boolean): Promise<string[]>;
  /** Stop at once (Ctrl-C, SIGTERM): kill clients, drop the scratch database, stop servers, remove folders. */
  abort(): Promise<void>;
}
