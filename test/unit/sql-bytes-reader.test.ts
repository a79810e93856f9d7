// SqlBytesReader (src/pipeline/sql-reader.ts): the content stage's statement reader over a dump's
// bytes. A COPY block's data lines are found and counted as bytes and handed on undecoded; the rest
// is SqlReader's. Whatever the chunks (cut inside a character, inside "\.", between "\r" and "\n"),
// its events must be SqlReader's over the whole text: the same statements at the same lines, the
// same end of every COPY block, the same rows, the same bytes.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SqlBytesReader, utf8Boundary } from '../../src/pipeline/sql-bytes.js';
import type { SqlEvent } from '../../src/pipeline/sql-events.js';
import { SqlReader } from '../../src/pipeline/sql-reader.js';
import type { SqlDialect } from '../../src/pipeline/kinds.js';

type Norm = { type: string; text: string; line?: number; rows?: number; head?: string };

/** Events with a COPY block's data (text or bytes, however many pieces) merged into one, for comparison. */
function normalize(events: SqlEvent[]): Norm[] {
  const out: Norm[] = [];
  for (const e of events) {
    if (e.type === 'copy-data' || e.type === 'copy-bytes') {
      const text = e.type === 'copy-bytes' ? e.bytes.toString('utf8') : e.text;
      const last = out.at(-1);
      if (last?.type === 'copy') {
        last.text += text;
        last.rows! += e.rows;
      } else out.push({ type: 'copy', text, rows: e.rows });
      continue;
    }
    const n: Norm = { type: e.type, text: 'text' in e ? e.text : '' };
    if ('line' in e) n.line = e.line;
    if ('head' in e) n.head = e.head;
    out.push(n);
  }
  return out;
}

function byText(dialect: SqlDialect, text: string): Norm[] {
  const r = new SqlReader(dialect);
  return normalize([...r.push(text), ...r.end()]);
}

function byBytes(dialect: SqlDialect, bytes: Buffer, cuts: number[]): { events: Norm[]; raw: SqlEvent[] } {
  const r = new SqlBytesReader(dialect);
  const raw: SqlEvent[] = [];
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    if (cut <= at) continue;
    raw.push(...r.push(bytes.subarray(at, cut)));
    at = cut;
  }
  raw.push(...r.end());
  return { events: normalize(raw), raw };
}

const DUMP = [
  '-- PostgreSQL database dump\n',
  "SET client_encoding = 'UTF8';\n",
  'CREATE TABLE public.t (a text, b text);\n',
  'COPY public.t (a, b) FROM stdin;\n',
  'é\tün\n',
  '😀\t\\N\n',
  '\\.x\tnot the end\n',
  '\\\\.\tnot the end either\n',
  '\r\n',
  '\n',
  'last\tline\r\n',
  '\\.\n',
  "INSERT INTO public.t VALUES ('a;b', 'ç');\n",
  'COPY public.u FROM stdin;\n',
  '1\n2\n3\n',
  '\\.\r\n',
  'SELECT 1;\n',
  'COPY public.v FROM stdin;\n',
  'x\n',
  '\\.\n',
].join('');

describe('SqlBytesReader', () => {
  it('gives SqlReader\'s events for a dump cut in two at every byte', () => {
    const bytes = Buffer.from(DUMP);
    const want = byText('postgres', DUMP);
    expect(want.filter((e) => e.type === 'copy').map((e) => e.rows)).toEqual([7, 3, 1]);
    for (let cut = 0; cut <= bytes.length; cut++) expect(byBytes('postgres', bytes, [cut]).events, `cut at ${cut}`).toEqual(want);
  });

  it('hands most of a long COPY block on as bytes, never decoded', () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `${i}\tnaïve ${'x'.repeat(i % 50)}\n`).join('');
    const dump = `COPY public.big (id, s) FROM stdin;\n${rows}\\.\nSELECT 2;\n`;
    const bytes = Buffer.from(dump);
    const cuts = Array.from({ length: 40 }, (_, i) => Math.floor((bytes.length * (i + 1)) / 41));
    const { events, raw } = byBytes('postgres', bytes, cuts);
    expect(events).toEqual(byText('postgres', dump));
    const asBytes = raw.filter((e) => e.type === 'copy-bytes').reduce((n, e) => n + (e as { bytes: Buffer }).bytes.length, 0);
    expect(asBytes).toBeGreaterThan(Buffer.byteLength(rows) * 0.9);
  });

  it('a dump that ends inside a COPY block: the same rows and the same error', () => {
    const dump = 'COPY public.t FROM stdin;\n1\n2\npartial';
    for (let cut = 0; cut <= dump.length; cut++) expect(byBytes('postgres', Buffer.from(dump), [cut]).events).toEqual(byText('postgres', dump));
  });

  it('property: any dump of statements and COPY blocks, cut anywhere, gives SqlReader\'s events', () => {
    const cell = fc.constantFrom('a', 'é', '😀', '\\.', '\\', '.', '\\N', 'x\\.y', '\r', '', 'ü\t2');
    const line = fc.array(cell, { maxLength: 4 }).map((cs) => cs.join(''));
    const copy = fc.tuple(fc.array(line, { maxLength: 8 }), fc.constantFrom('\\.\n', '\\.\r\n')).map(([lines, end]) => `COPY public.t (a) FROM stdin;\n${lines.map((l) => `${l}\n`).join('')}${end}`);
    const statement = fc.constantFrom("INSERT INTO public.t VALUES ('é;😀');\n", 'CREATE TABLE public.t (a text);\n', '-- a comment é\n', 'SELECT 1;\n', '\n');
    const dump = fc.tuple(fc.array(fc.oneof(copy, statement), { minLength: 1, maxLength: 6 }), fc.boolean()).map(([parts, cutShort]) => {
      const text = parts.join('');
      return cutShort ? `${text}COPY public.w FROM stdin;\n1\n` : text;
    });
    fc.assert(
      fc.property(dump, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
        const bytes = Buffer.from(text);
        const got = byBytes('postgres', bytes, cuts.map((c) => c % (bytes.length + 1))).events;
        expect(got).toEqual(byText('postgres', text));
      }),
      { numRuns: 400 },
    );
  });

  it('MySQL dumps (no COPY) read as SqlReader reads them', () => {
    const dump = "-- MariaDB dump 10.19\nCREATE TABLE `t` (a text);\nINSERT INTO `t` VALUES ('é;x'),('😀');\n/*!40101 SET NAMES utf8mb4 */;\n";
    const bytes = Buffer.from(dump);
    for (let cut = 0; cut <= bytes.length; cut++) expect(byBytes('mysql', bytes, [cut]).events).toEqual(byText('mysql', dump));
  });

  it('utf8Boundary keeps an incomplete character for the next chunk, and only that', () => {
    const s = Buffer.from('aé😀');
    expect(utf8Boundary(s)).toBe(s.length);
    expect(utf8Boundary(s.subarray(0, s.length - 1))).toBe(3);
    expect(utf8Boundary(s.subarray(0, s.length - 3))).toBe(3);
    expect(utf8Boundary(s.subarray(0, 2))).toBe(1);
    expect(utf8Boundary(Buffer.from([0x61, 0xff]))).toBe(2);
    expect(utf8Boundary(Buffer.alloc(0))).toBe(0);
  });
});
