// Issue 42 §14 and issue 45 (planted-bug escapes): the SQL reader's bound (BACKUPCTL_RESTORE_MAX_STATEMENT) holds
// for comments and COPY lines, whatever the chunks, through the content stage that reads every dump
// (src/pipeline/content/stage.ts): the bound error comes, and memory holds the bound, not the comment. Beside it, the
// rule of the row counts (more rows than the dump fails as fewer do), whose e2e test is in hostile-pg.test.ts.
import { createGzip } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { ContentStage } from '../../src/pipeline/content/stage.js';
import type { ContentSink } from '../../src/pipeline/types.js';
import type { SqlEvent } from '../../src/pipeline/sql-events.js';
import { rowsFailure } from '../../src/restore/db-checks.js';

/** A content sink that only listens to the statements, as restore-test's SQL engine and the catalog do. */
function listener(): ContentSink<null> & { errors: string[]; events: number } {
  const s = {
    errors: [] as string[],
    events: 0,
    open: async () => {},
    write: async () => {},
    restart: async () => {},
    end: async () => null,
    abort: async () => {},
    statements: {
      events(batch: readonly SqlEvent[]) {
        s.events += batch.length;
        for (const e of batch) if (e.type === 'error') s.errors.push(e.message);
      },
    },
  };
  return s as unknown as ContentSink<null> & { errors: string[]; events: number };
}

/**
 * A gzipped dump made lazily, piece by piece, into the content stage: `head`, then `piece` up to `total` bytes
 * (2 GiB is never made: it stops at the first bound error). The peak growth of this process's RSS, sampled.
 */
async function stream(head: string, piece: string, total: number, maxStatement: number): Promise<{ errors: string[]; fed: number; peakGrowth: number }> {
  const sink = listener();
  const stage = new ContentStage({ bounds: { maxStatement, maxGzipRatio: 1e9 } }, [sink]);
  const gz = createGzip({ level: 1 });
  const out: Buffer[] = [];
  gz.on('data', (b: Buffer) => out.push(b));
  const flush = async () => {
    await new Promise<void>((r) => gz.flush(() => r()));
    for (const b of out.splice(0)) await stage.write(b);
  };
  global.gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  gz.write(head);
  const chunk = Buffer.from(piece.repeat(Math.ceil((1 << 20) / piece.length)));
  let fed = 0;
  while (fed < total && sink.errors.length === 0) {
    gz.write(chunk);
    fed += chunk.length;
    await flush();
    peak = Math.max(peak, process.memoryUsage.rss());
  }
  gz.end();
  await new Promise((r) => gz.on('end', r));
  return { errors: sink.errors, fed, peakGrowth: peak - base };
}

/** A pg_dump-like start: the one sniffer names the bytes a PostgreSQL plain dump, whose statements are read. */
const HEAD = "--\n-- PostgreSQL database dump\n--\n\nSET statement_timeout = 0;\n";

const TWO_GIB = 2 * 1024 * 1024 * 1024;
const BOUND = 48 * 1024 * 1024;

describe('the statement bound holds for comments (issue 42 §14): a 2 GiB comment in a gzipped dump', () => {
  test.each([
    ['a block comment', `${HEAD}/* `, 'ü'],
    ['a line comment with no end of line', `${HEAD}-- `, 'ü'],
    ['a block comment inside a statement', `${HEAD}SELECT /* `, 'ü'],
  ])(
    '%s: stopped at the bound, with the bound named, and memory well under the bound (not the comment, nor copies of it)',
    async (_name, head, piece) => {
      const t0 = Date.now();
      const r = await stream(head, piece, TWO_GIB, BOUND);
      expect(r.errors).toEqual([expect.stringMatching(new RegExp(`longer than ${BOUND} characters \\(from line 6\\) is over the reader's bound: BACKUPCTL_RESTORE_MAX_STATEMENT=${BOUND}`))]);
      // Stopped near the bound (in characters: ü is 2 bytes), not at 2 GiB.
      expect(r.fed).toBeLessThan(2 * BOUND + 4 * (1 << 20));
      // 48 Mi characters of ü held as a JavaScript string are 96 MB, and each chunk copied it once more.
      expect(r.peakGrowth).toBeLessThan(64 * 1024 * 1024);
      expect(Date.now() - t0).toBeLessThan(60_000);
    },
    120_000,
  );
});

describe('a COPY line longer than the bound, fed in chunks shorter than the line (issue 45)', () => {
  test.each([1000, 4096, 65536])('chunks of %i bytes: the bound error, from the line of the COPY data', async (chunk) => {
    const max = 100_000;
    const dump = Buffer.from(`${HEAD}CREATE TABLE t (x text);\nCOPY t (x) FROM stdin;\nshort\n${'y'.repeat(3 * max)}\n\\.\n`);
    const sink = listener();
    const stage = new ContentStage({ bounds: { maxStatement: max } }, [sink]);
    for (let i = 0; i < dump.length; i += chunk) await stage.write(dump.subarray(i, i + chunk));
    await stage.end();
    expect(sink.errors).toEqual([expect.stringMatching(/^a statement, string, comment run or COPY line longer than 100000 characters \(from line 9\) is over the reader's bound: BACKUPCTL_RESTORE_MAX_STATEMENT=100000/)]);
  });

  test('a COPY line just under the bound, in the same chunks, is read whole', async () => {
    const max = 100_000;
    const dump = Buffer.from(`${HEAD}CREATE TABLE t (x text);\nCOPY t (x) FROM stdin;\n${'y'.repeat(max - 10)}\n\\.\n`);
    const sink = listener();
    const stage = new ContentStage({ bounds: { maxStatement: max } }, [sink]);
    for (let i = 0; i < dump.length; i += 1000) await stage.write(dump.subarray(i, i + 1000));
    await stage.end();
    expect(sink.errors).toEqual([]);
    expect(sink.events).toBeGreaterThan(3);
  });
});

describe('the rule of the row counts (its e2e test: hostile-pg.test.ts, "a table holding MORE rows than the dump")', () => {
  test('more rows than the dump fails, as fewer do; a table that cannot be counted fails; equal counts pass', () => {
    expect(rowsFailure([{ table: 'public.t', expected: 2, restored: 3 }])).toBe('public.t: the dump holds 2 rows, the restored table 3');
    expect(rowsFailure([{ table: 'public.t', expected: 2, restored: 1 }])).toBe('public.t: the dump holds 2 rows, the restored table 1');
    expect(rowsFailure([{ table: 'public.t', expected: 3, restored: null }])).toBe('public.t: the dump holds 3 rows, and the table cannot be counted after the restore');
    expect(rowsFailure([{ table: 'a', expected: 0, restored: 0 }, { table: 'b', expected: 5, restored: 6 }, { table: 'c', expected: 1, restored: 2 }])).toBe('b: the dump holds 5 rows, the restored table 6 (and 1 more tables differ)');
    expect(rowsFailure([{ table: 'a', expected: 4, restored: 4 }])).toBeNull();
    expect(rowsFailure([])).toBeNull();
  });
});
