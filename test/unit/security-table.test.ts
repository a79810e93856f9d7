// Issue 18, finding 9: a table of one oversized page. cli-table3 lays a table out in
// time quadratic in its rows (20,000 rows: 46 s of CPU); a page is now measured whole
// and laid out in chunks of TABLE_CHUNK_ROWS, which prints the very same bytes.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Column, IO, OutputOptions } from '../../src/contract/context.js';
import { render } from '../../src/output/index.js';
import { createTablePrinter } from '../../src/output/table.js';
import { TABLE_CHUNK_ROWS } from '../../src/output/render.js';
import { plainColorizer } from '../../src/output/format.js';

const columns: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name' },
  { key: 'host', header: 'Host' },
];
const records = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: i + 1, name: i === n - 1 ? `the-last-and-longest-${'z'.repeat(30)}` : `web-${i + 1}`, host: '198.51.100.7' }));

async function table(rows: unknown[], signal?: AbortSignal): Promise<string> {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (c: Buffer) => chunks.push(c));
  const io: IO = { stdout, stderr: new PassThrough(), stdin: new PassThrough(), stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: 200 };
  const out: OutputOptions = { format: 'table', quiet: false, noHeaders: false, color: false, pretty: false };
  await render({ kind: 'list', pages: (async function* () { yield rows; })(), columns, idField: 'id' }, out, io, { signal });
  return Buffer.concat(chunks).toString('utf8');
}

describe('finding 9: large tables', () => {
  it('a page of several chunks prints the same bytes as one table laid out whole', async () => {
    const rows = records(TABLE_CHUNK_ROWS * 2 + 57);
    const whole = (await createTablePrinter(columns, { colorizer: plainColorizer, noHeaders: false, maxWidth: 200 })).page(rows);
    expect(await table(rows)).toBe(whole);
  });

  it('20,000 rows take linear CPU time (before: 46 s), measured over the whole page', async () => {
    const before = process.cpuUsage();
    const text = await table(records(20_000));
    const used = process.cpuUsage(before);
    const seconds = (used.user + used.system) / 1e6;
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(20_001);
    expect(lines.at(-1)).toContain(`the-last-and-longest-${'z'.repeat(30)}`);
    const hostAt = lines[0]!.indexOf('Host');
    for (const line of [lines[1]!, lines[10_000]!, lines.at(-1)!]) expect(line.indexOf('198.51.100.7')).toBe(hostAt);
    expect(seconds).toBeLessThan(8);
  }, 60_000);

  it('an abort between two chunks ends the printing', async () => {
    const controller = new AbortController();
    const rows = records(TABLE_CHUNK_ROWS * 50);
    const printing = table(rows, controller.signal);
    setImmediate(() => controller.abort(new Error('Interrupted')));
    await expect(printing).rejects.toThrow('Interrupted');
  });
});
