// The reader's fast paths over a mysql extended INSERT (src/pipeline/sql-reader.ts:
// MYSQL_RUN skips whole runs of text and whole strings; countInsertRows takes a
// simple tuple in one match): a statement boundary is never moved by them. A `;`
// inside a string, a backtick name or a comment never ends a statement, a doubled
// quote or a backslash cut at a chunk edge never closes a string, and the events
// (texts, heads, lines) are the same whatever the chunk size, down to one character.
import { describe, expect, test } from 'vitest';
import type { SqlEvent } from '../../src/pipeline/sql-events.js';
import { SqlReader } from '../../src/pipeline/sql-reader.js';
import { countInsertRows } from '../../src/pipeline/sql-rows.js';

function read(text: string, sizes: number[]): SqlEvent[] {
  const r = new SqlReader('mysql');
  const out: SqlEvent[] = [];
  let i = 0;
  let k = 0;
  while (i < text.length) {
    const n = sizes[k++ % sizes.length]!;
    out.push(...r.push(text.slice(i, i + n)));
    i += n;
  }
  out.push(...r.end());
  return out;
}

const statements = (events: SqlEvent[]) => events.filter((e) => e.type === 'statement').map((e) => ({ head: (e as { head: string }).head, line: (e as { line: number }).line }));

// Each row holds a trap for a scanner that skips too much: `;` in strings and names,
// doubled quotes, backslash escapes (an escaped quote, a trailing backslash), a
// `--` that is a comment and a `--5` that is not, a `/*` comment holding `;`, `#`.
const INSERT = [
  "INSERT INTO `t;x` VALUES (1,'a;b','it''s; fine','2026-01-01'),",
  "(2,'x\\'; y','\\\\','\";\"'),",
  '(3,"q;""r",`c;``d`,-5), -- a comment; not an end',
  "(4,'multi",
  "line; string',--5,'e'),",
  "(5,/* a; comment */'f',8/2,2*3), # another; comment",
  "(6,'');",
].join('\n');
const TEXT = `SET NAMES utf8mb4;\n${INSERT}\nINSERT INTO \`t;x\` VALUES (7,'z;');\nSELECT ';' ; \n`;

describe('mysql: the fast runs of the reader', () => {
  test('the statements and their lines, read whole', () => {
    expect(statements(read(TEXT, [TEXT.length]))).toEqual([
      { head: 'SET NAMES utf8mb4;', line: 1 },
      { head: INSERT, line: 2 },
      { head: "INSERT INTO `t;x` VALUES (7,'z;');", line: 9 },
      { head: "SELECT ';' ;", line: 10 },
    ]);
  });

  test('the same events at every chunk size from 1 to 64 characters, and at every single cut', () => {
    const whole = JSON.stringify(read(TEXT, [TEXT.length]));
    for (let n = 1; n <= 64; n++) expect(JSON.stringify(read(TEXT, [n])), `chunks of ${n}`).toBe(whole);
    for (let cut = 1; cut < TEXT.length; cut++) expect(JSON.stringify(read(TEXT, [cut, TEXT.length])), `cut at ${cut}`).toBe(whole);
  });

  test('a doubled quote split across two chunks does not close the string', () => {
    const text = "INSERT INTO t VALUES ('a'';' );\nSELECT 1;\n";
    const cut = text.indexOf("''") + 1; // the first chunk ends with the first of the two quotes
    const events = statements(read(text, [cut, text.length]));
    expect(events.map((e) => e.head)).toEqual(["INSERT INTO t VALUES ('a'';' );", 'SELECT 1;']);
  });

  test('the tuples of the INSERT, counted with nested parentheses, comments and escapes', () => {
    expect(countInsertRows(INSERT, 'mysql')).toEqual({ table: 't;x', rows: 6 });
    expect(countInsertRows("INSERT INTO t VALUES (1,'a)'),(f(2),'(('),(3,')'),(4,'\\')'),(5,'x'/* ) */)", 'mysql')).toEqual({ table: 't', rows: 5 });
    expect(countInsertRows("INSERT INTO t VALUES (1,E'\\')'),(2,'a''b'),(3,$$)$$)", 'postgres')).toEqual({ table: 't', rows: 3 });
  });
});
