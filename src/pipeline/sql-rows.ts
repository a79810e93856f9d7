// The rows of a SQL dump's INSERT/REPLACE ... VALUES statements, counted from the statement
// the reader gave (src/pipeline/sql-reader.ts): the catalog's row counts and the SQL engine's.
import type { SqlDialect } from './kinds.js';
import { isIdent } from './sql-reader.js';

const INSERT_NAME = '(?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|[A-Za-z_\\u0080-\\uffff][\\w$\\u0080-\\uffff]*)';
const INSERT_HEAD = new RegExp(
  `^(?:INSERT|REPLACE)(?:\\s+(?:LOW_PRIORITY|DELAYED|HIGH_PRIORITY|IGNORE))*\\s+INTO\\s+(${INSERT_NAME}(?:\\s*\\.\\s*${INSERT_NAME})?)\\s*(?:\\((?:[^()'"\`]|"[^"]*"|\`[^\`]*\`)*\\)\\s*)?(?:OVERRIDING\\s+(?:SYSTEM|USER)\\s+VALUE\\s+)?VALUES?\\s*\\(`,
  'i',
);

/** One tuple of a VALUES list without nested parentheses, comments or backslashes (the rest is read character by character). */
const MYSQL_TUPLE = /\((?:[^'"`()\\/#\-]+|'[^'\\]*'(?!')|"[^"\\]*"(?!")|`[^`]*`(?!`)|-(?!-)|\/(?!\*))*\)/y;
const PG_TUPLE = /\((?:[^'"()$\\/\-]+|'[^'\\]*'(?!')|"[^"\\]*"(?!")|-(?!-)|\/(?!\*))*\)/y;

/** The table and the number of rows of an INSERT/REPLACE ... VALUES statement (its tuples), or null. */
export function countInsertRows(head: string, dialect: SqlDialect): { table: string; rows: number } | null {
  const c0 = head.charCodeAt(0) | 0x20;
  if (c0 !== 105 /* i */ && c0 !== 114 /* r */) return null;
  const m = INSERT_HEAD.exec(head.slice(0, 4096));
  if (!m) return null;
  const table = normalizeName(m[1]!, dialect);
  let i = m[0].length - 1;
  const len = head.length;
  let depth = 0;
  let rows = 0;
  const pg = dialect === 'postgres';
  const inside = pg ? /[^'"()$\-/]+/y : /[^'"`()$\-/#]+/y;
  // The next backslash at or after a position (-1: none left): a dump's INSERT holds thousands of strings, most without one.
  let bsAt = -2;
  const nextBs = (from: number): number => {
    if (bsAt === -2 || (bsAt !== -1 && bsAt < from)) bsAt = head.indexOf('\\', from);
    return bsAt;
  };
  while (i < len) {
    if (depth > 0) {
      inside.lastIndex = i;
      if (inside.test(head)) {
        i = inside.lastIndex;
        if (i >= len) break;
      }
    }
    const ch = head.charCodeAt(i);
    if (ch === 39 || ch === 34 || (!pg && ch === 96)) {
      let escapes = !pg && ch !== 96;
      if (pg && ch === 39 && i > 0 && (head.charCodeAt(i - 1) | 0x20) === 101 && !(i > 1 && isIdent(head.charCodeAt(i - 2)))) escapes = true;
      // To the closing quote (a doubled one, or one after a backslash where backslashes escape, does not close).
      const qch = ch === 39 ? "'" : ch === 34 ? '"' : '`';
      let j = i + 1;
      let q = -2;
      for (;;) {
        if (q === -2 || (q !== -1 && q < j)) q = head.indexOf(qch, j);
        if (escapes) {
          const bs = nextBs(j);
          if (bs !== -1 && (q === -1 || bs < q)) {
            j = bs + 2;
            continue;
          }
        }
        if (q === -1) {
          j = len;
          break;
        }
        if (head.charCodeAt(q + 1) === ch) {
          j = q + 2;
          continue;
        }
        j = q;
        break;
      }
      i = j + 1;
      continue;
    }
    if (pg && ch === 36 && !(i > 0 && isIdent(head.charCodeAt(i - 1)))) {
      const tag = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(head.slice(i, i + 64));
      if (tag) {
        const close = head.indexOf(tag[0], i + tag[0].length);
        i = close < 0 ? len : close + tag[0].length;
        continue;
      }
    }
    // Comments, between tuples or inside one: -- to the end of the line, /* to */ (nested in PostgreSQL), mysql's #.
    // (mysql: "--" is a comment only before a space or a control character, as the reader splits: "--5" is minus minus five.)
    if ((ch === 45 && head.charCodeAt(i + 1) === 45 && (pg || i + 2 >= len || head.charCodeAt(i + 2) <= 32)) || (!pg && ch === 35)) {
      const nl = head.indexOf('\n', i);
      i = nl < 0 ? len : nl + 1;
      continue;
    }
    if (ch === 47 && head.charCodeAt(i + 1) === 42 && !(!pg && head.charCodeAt(i + 2) === 33)) {
      let nest = 1;
      let j = i + 2;
      while (j < len && nest > 0) {
        if (pg && head.charCodeAt(j) === 47 && head.charCodeAt(j + 1) === 42) {
          nest++;
          j += 2;
        } else if (head.charCodeAt(j) === 42 && head.charCodeAt(j + 1) === 47) {
          nest--;
          j += 2;
        } else j++;
      }
      i = j;
      continue;
    }
    if (ch === 40 && depth === 0) {
      // A whole tuple at once when it holds no parenthesis, comment or backslash (most do not).
      const tuple = pg ? PG_TUPLE : MYSQL_TUPLE;
      tuple.lastIndex = i;
      if (tuple.test(head)) {
        rows++;
        i = tuple.lastIndex;
        continue;
      }
    }
    if (ch === 40) {
      if (depth === 0) rows++;
      depth++;
    } else if (ch === 41) {
      depth--;
    } else if (depth === 0 && !(ch === 44 || ch <= 32)) {
      break;
    }
    i++;
  }
  return { table, rows };
}

/** A table name as the dump names it, without mysql's backticks ("shop.orders", public."Order"). */
export function normalizeName(raw: string, dialect: SqlDialect): string {
  const s = raw.replace(/\s*\.\s*/g, '.');
  if (dialect === 'mysql') return s.replace(/`((?:[^`]|``)+)`/g, (_, n: string) => n.replace(/``/g, '`'));
  return s;
}
