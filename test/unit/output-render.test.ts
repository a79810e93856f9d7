import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Column, IO, OutputFormat, OutputOptions, Result } from '../../src/contract/context.js';
import { UsageError } from '../../src/errors.js';
import { createSpinner, displayWidth, render, sanitize } from '../../src/output/index.js';

const now = new Date('2026-11-22T10:00:00Z');

interface FakeIO extends IO {
  out(): string;
  err(): string;
}

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks).toString('utf8');
}

function fakeIO(opts: { tty?: boolean; columns?: number; stdout?: Writable } = {}): FakeIO {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  return {
    stdout: opts.stdout ?? stdout,
    stderr,
    stdin: new PassThrough(),
    stdoutIsTTY: opts.tty ?? false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    columns: opts.columns ?? 120,
    out,
    err,
  };
}

function options(format: OutputFormat, extra: Partial<OutputOptions> = {}): OutputOptions {
  return { format, quiet: false, noHeaders: false, color: false, pretty: false, ...extra };
}

const columns: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name' },
  { key: 'status', header: 'Status', format: 'status' },
  { key: 'created_at', header: 'Created', format: 'time' },
  { key: 'size', header: 'Size', format: 'size' },
  { key: 'region.slug', header: 'Region' },
  { key: 'notes', header: 'Notes', extra: true },
];

const records = [
  {
    id: 1,
    name: 'web-1',
    status: 'completed',
    created_at: '2026-11-22T07:00:00.000000Z',
    size: 1536,
    region: { slug: 'eu' },
    notes: 'first',
  },
  {
    id: 2,
    name: 'db\t"main"\n\u001b[31mX',
    status: 'failed',
    created_at: '2026-11-20 10:00:00',
    size: '255.89 MB',
    region: null,
    notes: null,
  },
  { id: 3, name: 'cache', status: 'running', created_at: null, size: null, region: { slug: 'us' }, notes: 'third' },
];

async function* pagesOf<T>(...pages: T[][]): AsyncIterable<T[]> {
  for (const page of pages) yield page;
}

function list(pages: AsyncIterable<unknown[]> = pagesOf(records.slice(0, 2), records.slice(2))): Result {
  return { kind: 'list', pages, columns, idField: 'id' };
}

const record: Result = {
  kind: 'record',
  record: records[0],
  columns,
  idField: 'id',
  sections: [
    {
      title: 'Files',
      rows: [{ file: 'dump.sql', size: 2048 }],
      columns: [
        { key: 'file', header: 'File' },
        { key: 'size', header: 'Size', format: 'size' },
      ],
    },
    { title: 'Schedules', rows: [], columns: [{ key: 'id', header: 'ID' }] },
  ],
};

describe('render list', () => {
  it('json: one array equal to the records, compact when piped', async () => {
    const io = fakeIO();
    await render(list(), options('json'), io, { now });
    expect(io.out()).toBe(JSON.stringify(records) + '\n');
    expect(JSON.parse(io.out())).toEqual(records);
    expect(io.err()).toBe('');
  });

  it('json pretty: the same text as JSON.stringify(array, null, 2)', async () => {
    const io = fakeIO({ tty: true });
    await render(list(), options('json', { pretty: true }), io, { now });
    expect(io.out()).toBe(JSON.stringify(records, null, 2) + '\n');
  });

  it('json: an empty list is []', async () => {
    for (const pretty of [false, true]) {
      const io = fakeIO();
      await render(list(pagesOf([], [])), options('json', { pretty }), io);
      expect(io.out()).toBe('[]\n');
    }
  });

  it('json keeps control characters, escaped', async () => {
    const io = fakeIO();
    await render(list(), options('json'), io);
    expect(io.out()).toContain('\\u001b[31mX');
    expect(io.out()).not.toContain('\u001b');
  });

  it('json ignores --columns, even unknown names', async () => {
    const io = fakeIO();
    await render(list(), options('json', { columns: ['nope'] }), io);
    expect(JSON.parse(io.out())).toEqual(records);
  });

  it('ndjson: one compact record per line', async () => {
    const io = fakeIO();
    await render(list(), options('ndjson'), io);
    const lines = io.out().split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(3);
    expect(lines.map((line) => JSON.parse(line))).toEqual(records);
  });

  it('ndjson: writes each page before the next is fetched', async () => {
    const io = fakeIO();
    const seenBeforePage: string[] = [];
    async function* pages() {
      yield [records[0]];
      seenBeforePage.push(io.out());
      yield [records[1]];
    }
    await render(list(pages()), options('ndjson'), io);
    expect(seenBeforePage).toEqual([JSON.stringify(records[0]) + '\n']);
  });

  it('ndjson: 10,000 records in 100 pages, a line each', async () => {
    const io = fakeIO();
    async function* pages() {
      for (let p = 0; p < 100; p++) {
        yield Array.from({ length: 100 }, (_, i) => ({ id: p * 100 + i, name: `server-${p * 100 + i}` }));
      }
    }
    await render({ kind: 'list', pages: pages(), columns, idField: 'id' }, options('ndjson'), io);
    const lines = io.out().trimEnd().split('\n');
    expect(lines).toHaveLength(10_000);
    expect(JSON.parse(lines[9_999]!)).toEqual({ id: 9_999, name: 'server-9999' });
  });

  it('tsv: raw values, no header, control characters as spaces, extra columns hidden', async () => {
    const io = fakeIO();
    await render(list(), options('tsv'), io, { now });
    expect(io.out()).toBe(
      [
        '1\tweb-1\tcompleted\t2026-11-22T07:00:00.000000Z\t1536\teu',
        '2\tdb "main" X\tfailed\t2026-11-20 10:00:00\t255.89 MB\t',
        '3\tcache\trunning\t\t\tus',
        '',
      ].join('\n'),
    );
  });

  it('tsv honours --columns, by key or header, in the order named, extras included', async () => {
    const io = fakeIO();
    await render(list(), options('tsv', { columns: ['NOTES', 'Id'] }), io);
    expect(io.out()).toBe('first\t1\n\t2\nthird\t3\n');
  });

  it('an unknown column is a usage error naming --columns and the allowed keys', async () => {
    const io = fakeIO();
    const rendering = render(list(), options('table', { columns: ['id', 'colour'] }), io);
    await expect(rendering).rejects.toThrow(UsageError);
    await expect(render(list(), options('tsv', { columns: ['colour'] }), fakeIO())).rejects.toThrow(
      /--columns.*id, name, status, created_at, size, region\.slug, notes/,
    );
    expect(io.out()).toBe('');
  });

  it('quiet prints ids only, whatever the format', async () => {
    for (const format of ['table', 'json', 'ndjson', 'tsv'] as const) {
      const io = fakeIO();
      await render(list(), options(format, { quiet: true }), io);
      expect(io.out()).toBe('1\n2\n3\n');
      expect(io.err()).toBe('');
    }
  });

  it('table: header, formatted cells, no box characters, sanitised', async () => {
    const io = fakeIO();
    await render(list(), options('table'), io, { now });
    const lines = io.out().split('\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toMatch(/^ID {2}Name {2,}Status {2,}Created {2,}Size {2,}Region$/);
    expect(lines[1]).toMatch(/^1 {3}web-1 +completed +3 hours ago +1\.5 KiB +eu$/);
    expect(lines[2]).toMatch(/^2 {3}db "main" X +failed +2 days ago +256 MiB$/);
    expect(lines[3]).toMatch(/^3 {3}cache +running +us$/);
    expect(io.out()).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f│─┌]/);
    expect(io.err()).toBe('');
  });

  it('table: columns stay aligned across pages', async () => {
    const io = fakeIO();
    await render(list(), options('table'), io, { now });
    const lines = io.out().trimEnd().split('\n');
    const statusAt = lines[0]!.indexOf('Status');
    expect(lines[3]!.indexOf('running')).toBe(statusAt);
  });

  it('table: --no-headers drops the header row', async () => {
    const io = fakeIO();
    await render(list(), options('table', { noHeaders: true }), io, { now });
    expect(io.out().split('\n')[0]).toMatch(/^1 +web-1/);
  });

  it('table: fits the terminal width, cutting the widest column with …', async () => {
    const io = fakeIO({ columns: 40 });
    const long = { id: 7, name: 'x'.repeat(200), status: 'active', created_at: null, size: 1, region: { slug: 'eu' } };
    await render(list(pagesOf([long])), options('table'), io, { now });
    const lines = io.out().trimEnd().split('\n');
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(40);
    expect(lines[1]).toContain('…');
    expect(lines[1]).toContain('active');
  });

  it('table: a later, longer cell is cut to the width the first page set', async () => {
    const io = fakeIO();
    const first = { id: 1, name: 'short' };
    const later = { id: 2, name: 'a much longer name' };
    await render(
      { kind: 'list', pages: pagesOf([first], [later]), columns: columns.slice(0, 2), idField: 'id' },
      options('table'),
      io,
    );
    expect(io.out()).toBe('ID  Name\n1   short\n2   a mu…\n');
  });

  it('table: an empty list prints nothing on stdout and No results. on stderr', async () => {
    const io = fakeIO();
    await render(list(pagesOf([])), options('table'), io);
    expect(io.out()).toBe('');
    expect(io.err()).toBe('No results.\n');
  });

  it('table: colour only when asked, status words and bold headers', async () => {
    const plain = fakeIO();
    await render(list(), options('table'), plain, { now });
    expect(plain.out()).not.toContain('\u001b');

    const coloured = fakeIO({ tty: true });
    await render(list(), options('table', { color: true }), coloured, { now });
    const text = coloured.out();
    expect(text).toMatch(/\u001b\[1mID\u001b\[22m/);
    expect(text).toMatch(/\u001b\[32mcompleted\u001b\[39m/);
    expect(text).toMatch(/\u001b\[31mfailed\u001b\[39m/);
    expect(text).toMatch(/\u001b\[33mrunning\u001b\[39m/);
    // The hostile escape in a name never reaches the terminal.
    expect(text).not.toContain('\u001b[31mX');
    expect(sanitize(text)).toContain('db "main" X');
  });
});

describe('render record', () => {
  it('table: aligned Key: value lines, absolute and relative times, then sections', async () => {
    const io = fakeIO();
    await render(record, options('table'), io, { now });
    expect(io.out()).toBe(
      [
        'ID:       1',
        'Name:     web-1',
        'Status:   completed',
        'Created:  2026-11-22 07:00 UTC (3 hours ago)',
        'Size:     1.5 KiB',
        'Region:   eu',
        '',
        'Files',
        'File      Size',
        'dump.sql  2 KiB',
        '',
        'Schedules',
        '(none)',
        '',
      ].join('\n'),
    );
  });

  it('json, ndjson, tsv and quiet', async () => {
    const cases: Array<[OutputOptions, string]> = [
      [options('json'), JSON.stringify(records[0]) + '\n'],
      [options('json', { pretty: true }), JSON.stringify(records[0], null, 2) + '\n'],
      [options('ndjson'), JSON.stringify(records[0]) + '\n'],
      [options('tsv'), '1\tweb-1\tcompleted\t2026-11-22T07:00:00.000000Z\t1536\teu\n'],
      [options('tsv', { columns: ['name', 'notes'] }), 'web-1\tfirst\n'],
      [options('table', { quiet: true }), '1\n'],
      [options('json', { quiet: true }), '1\n'],
    ];
    for (const [out, expected] of cases) {
      const io = fakeIO();
      await render(record, out, io, { now });
      expect(io.out()).toBe(expected);
    }
  });
});

describe('render object', () => {
  const value = { status: 'starting', backup_id: 'b-1', config: [], tags: { is_manual: true } };

  it('json and ndjson print the whole value', async () => {
    const json = fakeIO();
    await render({ kind: 'object', value }, options('json', { pretty: true }), json);
    expect(json.out()).toBe(JSON.stringify(value, null, 2) + '\n');
    const ndjson = fakeIO();
    await render({ kind: 'object', value, text: 'ignored' }, options('ndjson'), ndjson);
    expect(ndjson.out()).toBe(JSON.stringify(value) + '\n');
  });

  it('table and tsv print the text, else key: value lines', async () => {
    const withText = fakeIO();
    await render({ kind: 'object', value, text: 'Backup b-1 started' }, options('table'), withText);
    expect(withText.out()).toBe('Backup b-1 started\n');
    const lines = fakeIO();
    await render({ kind: 'object', value }, options('tsv'), lines);
    expect(lines.out()).toBe('status: starting\nbackup_id: b-1\nconfig: []\ntags: {"is_manual":true}\n');
  });

  it('quiet prints the id field, or nothing without one', async () => {
    const io = fakeIO();
    await render({ kind: 'object', value, idField: 'backup_id' }, options('table', { quiet: true }), io);
    expect(io.out()).toBe('b-1\n');
    const none = fakeIO();
    await render({ kind: 'object', value }, options('table', { quiet: true }), none);
    expect(none.out()).toBe('');
  });
});

describe('render done, text, empty', () => {
  const done: Result = { kind: 'done', message: 'Deleted SSH key 12', id: 12 };

  it('done: message on stderr, stdout empty in every format', async () => {
    for (const format of ['table', 'json', 'ndjson', 'tsv'] as const) {
      const io = fakeIO();
      await render(done, options(format), io);
      expect(io.out()).toBe('');
      expect(io.err()).toBe('Deleted SSH key 12\n');
    }
  });

  it('done with -q: the id on stdout and nothing else', async () => {
    const io = fakeIO();
    await render(done, options('table', { quiet: true }), io);
    expect(io.out()).toBe('12\n');
    expect(io.err()).toBe('');
  });

  it('text: as given with one trailing newline; value as JSON with --json', async () => {
    const plain = fakeIO();
    await render({ kind: 'text', text: 'tok-123' }, options('tsv'), plain);
    expect(plain.out()).toBe('tok-123\n');
    const script = fakeIO();
    await render({ kind: 'text', text: 'line1\nline2\n' }, options('table'), script);
    expect(script.out()).toBe('line1\nline2\n');
    const json = fakeIO();
    await render({ kind: 'text', text: 'tok-123', value: { token: 'tok-123' } }, options('json'), json);
    expect(JSON.parse(json.out())).toEqual({ token: 'tok-123' });
  });

  it('empty prints nothing', async () => {
    const io = fakeIO();
    await render({ kind: 'empty' }, options('table'), io);
    expect(io.out()).toBe('');
    expect(io.err()).toBe('');
  });
});

describe('streams', () => {
  it('a reader that goes away (EPIPE) ends rendering quietly and stops fetching pages', async () => {
    let writes = 0;
    const stdout = new Writable({
      write(_chunk, _encoding, callback) {
        writes++;
        if (writes === 1) callback();
        else callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const io = fakeIO({ stdout });
    let fetched = 0;
    let closed = false;
    async function* pages() {
      try {
        for (let i = 0; i < 1000; i++) {
          fetched++;
          yield [{ id: i }];
        }
      } finally {
        closed = true;
      }
    }
    await render({ kind: 'list', pages: pages(), columns, idField: 'id' }, options('ndjson'), io);
    expect(fetched).toBeLessThan(10);
    expect(closed).toBe(true);
    expect(io.err()).toBe('');
    // Later output to the same closed stream is dropped, not thrown.
    await render({ kind: 'text', text: 'more' }, options('tsv'), io);
  });

  it('waits for a slow reader instead of buffering without bound', async () => {
    const received: string[] = [];
    let maxBuffered = 0;
    const stdout = new Writable({
      highWaterMark: 64,
      write(chunk: Buffer, _encoding, callback) {
        received.push(chunk.toString());
        setImmediate(callback);
      },
    });
    const io = fakeIO({ stdout });
    async function* pages() {
      for (let p = 0; p < 50; p++) {
        maxBuffered = Math.max(maxBuffered, stdout.writableLength);
        yield Array.from({ length: 10 }, (_, i) => ({ id: p * 10 + i }));
      }
    }
    await render({ kind: 'list', pages: pages(), columns, idField: 'id' }, options('ndjson'), io);
    expect(received.join('').trimEnd().split('\n')).toHaveLength(500);
    // A page is at most one chunk ahead of the reader.
    expect(maxBuffered).toBeLessThan(200);
  });
});

describe('createSpinner', () => {
  it('is a no-op when stderr is not a terminal', () => {
    const io = fakeIO();
    const spinner = createSpinner('Loading', io);
    spinner.update('Still loading');
    spinner.stop();
    expect(io.err()).toBe('');
  });

  it('draws on stderr only, with the latest text, once ora has loaded', async () => {
    const io = { ...fakeIO(), stderrIsTTY: true };
    const err = collect(io.stderr as PassThrough);
    const spinner = createSpinner('Loading', io);
    spinner.update('Fetching page 2');
    await import('ora');
    await new Promise((resolve) => setImmediate(resolve));
    spinner.stop();
    expect(err()).toContain('Fetching page 2');
    expect(io.out()).toBe('');
  });

  it('never starts when stopped before ora has loaded', async () => {
    const io = { ...fakeIO(), stderrIsTTY: true };
    const err = collect(io.stderr as PassThrough);
    const spinner = createSpinner('Loading', io);
    spinner.update('Still loading');
    spinner.stop();
    await import('ora');
    await new Promise((resolve) => setImmediate(resolve));
    expect(err()).toBe('');
  });
});
