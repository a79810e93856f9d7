// What differs between the SQL dialects restore-test restores (issue 43: "a new
// engine is one file"), said once per dialect: the driver of a restore (run.ts),
// its noise filter (noise.ts) and the planning of a placement (engine.ts) ask
// DIALECTS[dialect] and never compare a dialect's name. The --into URL's part
// (schemes, socket) is said in servers/url.ts URL_RULES, as restore/servers/
// imports no engine, and is part of each entry here.
// The dialect itself is the pipeline's (src/pipeline/kinds.ts SqlDialect, the
// `statements` of a kind; the reader and the row counter of src/pipeline/ read
// the statements of each); a SQL engine (SqlEngine, engine.ts) restores one.
// A new dialect is its name in SqlDialect, its entry here and its URL_RULES
// entry: both are a Record<SqlDialect, ...>, so an entry missing, or missing a
// field, does not compile.
import type { SqlDialect } from '../../pipeline/kinds.js';
import { mysqlNoise, pgNoise, type NoiseRules } from './noise.js';
import { URL_RULES, type UrlRules } from '../servers/url.js';

/** A name qualified by a schema or database ("app.t", "\"A\".t", `db`.t). */
const QUALIFIED = /^(?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|[^".`\s]+)\s*\./;

export interface DialectRules extends NoiseRules, UrlRules {
  /** "PostgreSQL", "MySQL": how a message names a server of this dialect. */
  readonly words: string;

  // The dump's tables (run.ts).
  /** The dump's SET search_path (or set_config) says the schema of its unqualified names. */
  readonly searchPath: boolean;
  /** An unqualified name as the dump's schema (searchPath, null: none said) resolves it. */
  qualify(raw: string, schema: string | null): string;
  /** The one database a dump names (USE, CREATE DATABASE) prefixes the tables it does not qualify ("shop.orders"). */
  readonly databaseNamesTables: boolean;
  /** The key that makes two names one table (display: normalizeName's). */
  tableKey(display: string): string;
  /** How the count query names the table (raw: as the dump wrote it; display: normalizeName's). */
  countName(raw: string, display: string): string;
  /** A statement as its first keyword is read: a leading version comment (MySQL's /*!40101 ...) opened. */
  openVersionComment(head: string): string;
}

export const DIALECTS: Readonly<Record<SqlDialect, DialectRules>> = {
  postgres: {
    words: 'PostgreSQL',
    statement: pgNoise,
    oneDatabaseHint: 'pg_dump DBNAME',
    searchPath: true,
    qualify: (raw, schema) => (schema && !QUALIFIED.test(raw) ? `${schema}.${raw}` : raw),
    databaseNamesTables: false,
    // As written, quotes kept: public."Order" and public.order are two tables.
    tableKey: (display) => display,
    countName: (raw) => raw.replace(/\s*\.\s*/g, '.'),
    openVersionComment: (head) => head,
    // --into URLs: said in servers/url.ts (restore/servers/ imports no engine).
    ...URL_RULES.postgres,
  },
  mysql: {
    words: 'MySQL',
    statement: mysqlNoise,
    oneDatabaseHint: 'mysqldump DBNAME',
    searchPath: false,
    qualify: (raw) => raw,
    databaseNamesTables: true,
    // Compared without case: `Orders` and orders are one table.
    tableKey: (display) => display.toLowerCase(),
    countName: (_raw, display) => display.split('.').pop()!,
    openVersionComment: (head) => head.replace(/^\/\*M?!\d*\s?/, ''),
    ...URL_RULES.mysql,
  },
};

/** Every SQL dialect, in the record's order (postgres, mysql). */
export const SQL_DIALECTS = Object.keys(DIALECTS) as SqlDialect[];
