// How many times backupctl's own parsers start reading a file's decoded bytes, by
// format: a counter kept by the code that parses (not by a test's mock), so a test
// can prove that a file is parsed once whether verify reads it alone or restore-test
// restores it too (test/unit/one-parse.test.ts; issue 43 §3). Counted where a parse
// of the file's bytes begins: the tar walk (tar-stream), a zip's central directory
// (yauzl), a mongodump archive's reader, a SQL dump's statement reader, a pg_dump -Fc
// reader, a SQLite database file opened by sql.js. What an engine outside backupctl
// reads (pg_restore, a server loading the SQL) is not backupctl's parse and is not counted.

export type ParsedFormat = 'tar' | 'zip' | 'mongodump' | 'sql' | 'pg-custom' | 'sqlite';

/** Parses begun since the process started (or since a test reset it), by format. */
export const PARSES: Record<ParsedFormat, number> = { tar: 0, zip: 0, mongodump: 0, sql: 0, 'pg-custom': 0, sqlite: 0 };

/** One parse of a file's bytes begins. */
export function parsing(format: ParsedFormat): void {
  PARSES[format]++;
}
