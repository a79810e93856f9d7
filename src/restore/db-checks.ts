// The checks every database engine of restore-test runs after a restore
// (SQL servers, PGlite, SQLite): each table's rows against what the dump
// holds, an empty restore refused, and what an --assert query's first cell
// means. One place, so the engines judge alike.
import type { TableRows } from './types.js';

/** An --assert query's first cell: true, t, yes, on or a number other than 0. */
export function truthy(v: string | null): boolean {
  if (v === null) return false;
  const s = v.trim().toLowerCase();
  if (s === 't' || s === 'true' || s === 'yes' || s === 'on') return true;
  if (s === '' || s === 'f' || s === 'false' || s === 'no' || s === 'off') return false;
  const n = Number(s);
  return Number.isFinite(n) && n !== 0;
}

/** The first table whose restored rows differ from the dump's, in words; null when every table holds what the dump holds. */
export function rowsFailure(tables: readonly TableRows[]): string | null {
  const wrong = tables.filter((t) => t.restored !== t.expected);
  const w = wrong[0];
  if (!w) return null;
  if (w.restored === null) return `${w.table}: the dump holds ${w.expected} rows, and the table cannot be counted after the restore`;
  return `${w.table}: the dump holds ${w.expected} rows, the restored table ${w.restored}` + (wrong.length > 1 ? ` (and ${wrong.length - 1} more tables differ)` : '');
}

/** A restore that left no table fails unless --allow-empty. */
export const EMPTY_RESTORE = 'the restore left no table (--allow-empty accepts an empty database)';
