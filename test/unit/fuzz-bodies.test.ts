// Property: whatever the service answers (fields missing, null, of the wrong
// type, huge, unicode, control characters, ANSI escapes, not even a record),
// parsing and printing never throw, tables and TSV keep their shape and carry
// no control characters, and JSON gives back exactly what was received, with
// control characters escaped. Also the page walker and the error mapping on
// hostile bodies. In-process, with the modules' own schemas and columns.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lenient } from '../../src/cli/lenient.js';
import type { Column, Context, OutputFormat, OutputOptions, QueryValue, RequestSpec, Result } from '../../src/contract/context.js';
import { CliError, ExitCode } from '../../src/errors.js';
import { createClient } from '../../src/http/client.js';
import { errorForResponse } from '../../src/http/failures.js';
import { nextPageQuery } from '../../src/http/paging.js';
import { render, sanitize } from '../../src/output/index.js';
import { moduleLoaders } from '../../src/commands/registry.js';
import { type LoadedModule } from '../../src/contract/context.js';
import { ANSI_SAMPLES, UNSAFE_IN_TERMINAL, controlChar, hostileString, memoryIO } from '../helpers/fuzz.js';

const BODY_RUNS = 10_000;
const PAGING_RUNS = 5_000;
const ERROR_RUNS = 5_000;
const WALK_RUNS = 200;
const NOW = new Date('2026-11-22T10:00:00Z');

/** A record kind a command prints: its module, schema name and columns. */
interface Kind {
  name: string;
  mod: LoadedModule;
  schema: string | undefined;
  columns: Column[];
  idField: string;
  /** Field names worth generating: column keys (top level) and schema fields. */
  keys: string[];
}

let kinds: Kind[] = [];

beforeAll(async () => {
  const seen = new Set<string>();
  for (const [name, load] of Object.entries(moduleLoaders)) {
    const mod = await load();
    for (const cmd of mod.module.commands) {
      const columnsKey = cmd.output.columns;
      if (!columnsKey || !mod.columns?.[columnsKey]) continue;
      const key = `${name}/${cmd.output.schema}/${columnsKey}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const columns = mod.columns[columnsKey]!;
      const schema = cmd.output.schema ? (mod.schemas?.[cmd.output.schema] as { shape?: Record<string, unknown> } | undefined) : undefined;
      const keys = new Set<string>([...columns.map((c) => c.key.split('.')[0]!), ...Object.keys(schema?.shape ?? {})]);
      kinds.push({ name: key, mod, schema: cmd.output.schema, columns, idField: cmd.output.idField ?? 'id', keys: [...keys] });
    }
  }
  kinds = kinds.sort((a, b) => a.name.localeCompare(b.name));
});

// ---------------------------------------------------------------------------
// Generators

const datetimeText = fc.oneof(
  fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().replace('Z', '000Z')),
  fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 19).replace('T', ' ')),
  fc.constantFrom('0000-00-00 00:00:00', '2026-13-45T99:99:99Z', '2026-11-22T10:00:00+14:00', ''),
);

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: hostileString },
  { weight: 2, arbitrary: datetimeText },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 0, 1e308, 255.89) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom('completed', 'failed', 'running', 'completed_with_errors', 'weird-new-status', '255.89 MB', '744 bytes') },
);

/**
 * Any value a JSON body can hold, read back through JSON.parse as the client
 * does (so "__proto__" is an ordinary own key, and there are no undefineds).
 */
const jsonValue: fc.Arbitrary<unknown> = fc
  .letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 6, arbitrary: leaf },
      { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 3 }) },
      {
        weight: 1,
        arbitrary: fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('id', 'name', 'manual', 'daily', '__proto__')), tie('value'), {
          maxKeys: 3,
          noNullPrototype: true,
        }),
      },
    ),
  }))
  .value.map((v) => JSON.parse(JSON.stringify(v) ?? 'null') as unknown);

/** A record as the service might send it: known fields (any may be missing or wrong), unknown extras, or not a record at all. */
function recordOf(kind: Kind): fc.Arbitrary<unknown> {
  const known = fc.record(Object.fromEntries(kind.keys.map((k) => [k, jsonValue])), { requiredKeys: [], noNullPrototype: true });
  const extras = fc.dictionary(hostileString.filter((k) => k.length < 40), jsonValue, { maxKeys: 2, noNullPrototype: true });
  return fc.oneof(
    { weight: 12, arbitrary: fc.tuple(known, extras).map(([k, e]) => JSON.parse(JSON.stringify({ ...e, ...k })) as unknown) },
    { weight: 1, arbitrary: jsonValue },
  );
}

interface Case {
  kind: Kind;
  pages: unknown[][];
  format: OutputFormat;
  quiet: boolean;
  noHeaders: boolean;
  color: boolean;
  columns: string[] | undefined;
  width: number;
}

function caseOf(kind: Kind): fc.Arbitrary<Case> {
  const visible = kind.columns.map((c) => c.key);
  return fc.record({
    kind: fc.constant(kind),
    pages: fc.array(fc.array(recordOf(kind), { maxLength: 3 }), { minLength: 1, maxLength: 3 }),
    format: fc.constantFrom<OutputFormat>('table', 'json', 'ndjson', 'tsv'),
    quiet: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    noHeaders: fc.boolean(),
    color: fc.boolean(),
    columns: fc.option(fc.subarray(visible, { minLength: 1 }), { nil: undefined }),
    width: fc.constantFrom(20, 80, 200),
  });
}

// ---------------------------------------------------------------------------
// Rendering

const ctx = (warnings: string[]): Context =>
  ({ globals: { debug: true }, warn: (m: string) => warnings.push(m) }) as unknown as Context;

/** Our own colour codes (chalk's bold, dim, red, green, yellow and their resets). */
const OWN_SGR = /\u001b\[(?:1|2|22|31|32|33|39)m/g;

/** The JSON a record is printed as, read back: what the service sent (minus undefined). */
const roundTrip = (v: unknown): unknown => JSON.parse(JSON.stringify(v) ?? 'null');

async function* asPages(pages: unknown[][]): AsyncIterable<unknown[]> {
  for (const p of pages) yield p;
}

async function renderTo(result: Result, c: Case): Promise<{ out: string; err: string }> {
  const io = memoryIO({ tty: c.color, columns: c.width });
  const out: OutputOptions = {
    format: c.format,
    quiet: c.quiet,
    noHeaders: c.noHeaders,
    color: c.color,
    pretty: c.color,
    ...(c.columns ? { columns: c.columns } : {}),
  };
  await render(result, out, io, { now: NOW });
  return { out: io.out(), err: io.err() };
}

function checkTerminalSafe(text: string, color: boolean): void {
  const plain = color ? text.replace(OWN_SGR, '') : text;
  const bad = UNSAFE_IN_TERMINAL.exec(plain);
  expect(bad, `unsafe character U+${bad?.[0].codePointAt(0)?.toString(16).padStart(4, '0')} in ${JSON.stringify(plain.slice(0, 300))}`).toBeNull();
}

describe('response body fuzzing', () => {
  it(`${BODY_RUNS} generated or mutated bodies parse and print in every format`, async () => {
    expect(kinds.length).toBeGreaterThan(0);
    const stats = { records: 0, table: 0, json: 0, ndjson: 0, tsv: 0, quiet: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...kinds).chain(caseOf),
        async (c) => {
          const warnings: string[] = [];
          const parse = lenient(c.kind.mod, c.kind.schema, ctx(warnings));
          const parsedPages = c.pages.map((p) => p.map(parse));
          const records = parsedPages.flat();
          stats.records += records.length;
          stats[c.quiet ? 'quiet' : c.format]++;

          // As a list, streamed page by page.
          const list = await renderTo(
            { kind: 'list', pages: asPages(parsedPages), columns: c.kind.columns, idField: c.kind.idField },
            c,
          );
          checkTerminalSafe(list.err, false);
          if (c.quiet) {
            checkTerminalSafe(list.out, false);
          } else if (c.format === 'json') {
            expect(JSON.parse(list.out)).toEqual(roundTrip(records));
            checkTerminalSafe(list.out, false);
          } else if (c.format === 'ndjson') {
            const lines = list.out.split('\n').filter((l) => l !== '');
            expect(lines.map((l) => JSON.parse(l))).toEqual(records.map(roundTrip));
            checkTerminalSafe(list.out, false);
          } else if (c.format === 'tsv') {
            const lines = list.out === '' ? [] : list.out.replace(/\n$/, '').split('\n');
            expect(lines).toHaveLength(records.length);
            // A flattened column (retention) is one field per part.
            const fields = (cols: readonly Column[]) => cols.reduce((n, col) => n + (col.flat?.length ?? 1), 0);
            const shown = fields(c.columns ? c.kind.columns.filter((col) => c.columns!.includes(col.key)) : c.kind.columns.filter((col) => !col.extra));
            for (const line of lines) expect(line.split('\t')).toHaveLength(shown);
            checkTerminalSafe(list.out.replace(/\t/g, ' '), false);
          } else {
            checkTerminalSafe(list.out, c.color);
            const lines = list.out === '' ? [] : list.out.replace(/\n$/, '').split('\n');
            const headers = records.length > 0 && !c.noHeaders ? 1 : 0;
            expect(lines).toHaveLength(records.length + headers);
            if (records.length === 0) expect(list.err).toBe('No results.\n');
          }

          // The first record alone, as `get` prints it.
          if (records.length > 0) {
            const one = await renderTo({ kind: 'record', record: records[0], columns: c.kind.columns, idField: c.kind.idField }, c);
            if (!c.quiet && (c.format === 'json' || c.format === 'ndjson')) expect(JSON.parse(one.out)).toEqual(roundTrip(records[0]));
            checkTerminalSafe(c.format === 'tsv' ? one.out.replace(/\t/g, ' ') : one.out, c.color);
            // A whole answer without `data` (start backup, servers code) in table form.
            const raw = c.pages.flat()[0];
            const obj = await renderTo({ kind: 'object', value: raw, idField: c.kind.idField }, c);
            if (!c.quiet && c.format === 'json') expect(JSON.parse(obj.out)).toEqual(roundTrip(raw));
            if (c.format === 'table' || c.format === 'tsv') checkTerminalSafe(obj.out, false);
          }
        },
      ),
      { numRuns: BODY_RUNS },
    );
    console.info(`fuzz-bodies: ${BODY_RUNS} bodies over ${kinds.length} record kinds, ${stats.records} records; per format ${JSON.stringify({ table: stats.table, json: stats.json, ndjson: stats.ndjson, tsv: stats.tsv, quiet: stats.quiet })}`);
    // Every format was exercised, on many records.
    for (const f of ['table', 'json', 'ndjson', 'tsv'] as const) expect(stats[f]).toBeGreaterThan(BODY_RUNS / 10);
    expect(stats.records).toBeGreaterThan(BODY_RUNS);
  }, 240_000);

  it('control characters are stripped in tables and kept, escaped, in JSON', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.stringMatching(/^[a-z ]{0,5}$/), controlChar, fc.constantFrom(...ANSI_SAMPLES)), { minLength: 1, maxLength: 6 }),
        async (parts) => {
          const name = parts.join('');
          const columns: Column[] = [
            { key: 'id', header: 'ID' },
            { key: 'name', header: 'Name' },
          ];
          const record = { id: 1, name };
          const base: Case = { kind: kinds[0]!, pages: [], format: 'table', quiet: false, noHeaders: true, color: false, columns: undefined, width: 500 };
          const table = await renderTo({ kind: 'list', pages: asPages([[record]]), columns, idField: 'id' }, base);
          // Two spaces between columns; the name without a single control character or escape sequence.
          expect(table.out).toBe(`1  ${sanitize(name)}`.trimEnd() + '\n');
          checkTerminalSafe(table.out, false);
          const json = await renderTo({ kind: 'list', pages: asPages([[record]]), columns, idField: 'id' }, { ...base, format: 'json' });
          expect(JSON.parse(json.out)).toEqual([record]);
          checkTerminalSafe(json.out, false);
        },
      ),
      { numRuns: 500 },
    );
  });
});

// ---------------------------------------------------------------------------
// Paging and errors

const intLike = fc.oneof(fc.integer({ min: -3, max: 1_000_000 }), fc.integer({ min: 0, max: 50 }).map(String), leaf);

const pageBody: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        data: fc.oneof(fc.array(jsonValue, { maxLength: 3 }), jsonValue),
        links: fc.oneof(
          fc.record(
            {
              next: fc.oneof(
                fc.integer({ min: 0, max: 60 }).map((n) => `https://api.example.com/v1/servers?page=${n}`),
                fc.constant('https://api.example.com/v1/servers'),
                fc.constant(null),
                hostileString,
                jsonValue,
              ),
            },
            { requiredKeys: [] },
          ),
          jsonValue,
        ),
        meta: fc.oneof(fc.record({ current_page: intLike, last_page: intLike, per_page: intLike }, { requiredKeys: [] }), jsonValue),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: jsonValue },
);

/** The page just read: the one asked for, else the one the answer names (a number that can still grow), else 1. */
function pageOf(query: Record<string, QueryValue>, raw: unknown): number {
  const asInt = (v: unknown) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
    return Number.isSafeInteger(n) ? n : undefined;
  };
  return asInt(query.page) ?? asInt((raw as { meta?: { current_page?: unknown } } | null)?.meta?.current_page) ?? 1;
}

describe('paging on hostile bodies', () => {
  it(`${PAGING_RUNS} page bodies: the walk either stops or moves forward, keeping the filters`, () => {
    fc.assert(
      fc.property(
        fc.record({ page: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }), page_size: fc.option(fc.integer({ min: 15, max: 100 }), { nil: undefined }), name: fc.option(hostileString, { nil: undefined }) }),
        pageBody,
        fc.nat({ max: 120 }),
        (q, raw, received) => {
          const query: Record<string, QueryValue> = Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined));
          const next = nextPageQuery(query, raw, received);
          if (next === undefined) return;
          // Moving forward is what ends --all: a page that does not advance would loop forever.
          expect(typeof next.page).toBe('number');
          expect(next.page as number).toBeGreaterThan(pageOf(query, raw));
          for (const [k, v] of Object.entries(query)) if (k !== 'page') expect(next[k]).toEqual(v);
        },
      ),
      { numRuns: PAGING_RUNS },
    );
  });
});

describe('--all against a service that answers hostile pages', () => {
  const CONCURRENCY = 6;
  let server: http.Server;
  let base = '';
  let script: unknown[] = [];
  let served = 0;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? 1);
      // The scripted answers first; then a service that claims a trillion pages but has no records.
      const body =
        served < script.length
          ? script[served]
          : { data: [], links: { next: `${base}/v1/things?page=${page + 1}` }, meta: { current_page: page, last_page: 1e12 } };
      served++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it(`${WALK_RUNS} scripted walks end, in few requests, with records or a documented error`, async () => {
    const record = fc.record({ id: fc.nat() });
    const page = fc.oneof(
      { weight: 5, arbitrary: fc.record({ data: fc.array(record, { minLength: 1, maxLength: 3 }), links: fc.record({ next: fc.oneof(fc.constant(null), fc.nat({ max: 9 }).map((n) => `PAGE${n}`)) }, { requiredKeys: [] }), meta: fc.record({ current_page: intLike, last_page: intLike }, { requiredKeys: [] }) }, { requiredKeys: ['data'] }) },
      { weight: 1, arbitrary: pageBody },
      { weight: 1, arbitrary: fc.constantFrom('<html>captive portal</html>', '{"data": [', 'null', '[]', '[{"id": 1}]') },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(page, { maxLength: 4 }), async (pages) => {
        script = pages.map((p) => (typeof p === 'object' && p ? JSON.parse(JSON.stringify(p).replace(/"PAGE(\d)"/g, `"${base}/v1/things?page=$1"`)) : p));
        served = 0;
        const client = createClient({
          baseUrl: base,
          token: 'walk-token',
          timeoutMs: 5_000,
          debug: false,
          stderr: memoryIO().stderr,
          retry: { maxRetries: 4, baseDelayMs: 1, maxDelayMs: 1, sleep: async () => {} },
          pageConcurrency: CONCURRENCY,
        });
        // The records the script holds: the walk may yield some of them, never one it was not sent.
        const scripted = script.flatMap(recordsSent);
        try {
          const yielded: unknown[] = [];
          for await (const p of client.pages({ method: 'GET', path: '/things' }, { all: true })) yielded.push(...p.records);
          // Each scripted answer is served once, so each of its records is yielded at most once.
          const left = scripted.map((r) => JSON.stringify(r));
          for (const r of yielded) {
            const at = left.indexOf(JSON.stringify(r));
            expect(at, `a record the service never sent: ${JSON.stringify(r)}`).toBeGreaterThanOrEqual(0);
            left.splice(at, 1);
          }
          // The first answer is page 1: when it is a page of records, the walk starts with them, in order.
          const first = recordsSent(script[0]);
          expect(yielded.slice(0, first.length)).toEqual(first);
          // Past the script the service has no records: a walk of no scripted records yields none.
          if (scripted.length === 0) expect(yielded).toEqual([]);
        } catch (err) {
          if (!(err instanceof CliError)) throw err;
          expect(DOCUMENTED.has(err.exitCode)).toBe(true);
        } finally {
          await client.close();
        }
        // Every scripted answer may be tried five times; past the script, the first empty page ends the walk.
        expect(served).toBeLessThanOrEqual((script.length + CONCURRENCY + 1) * 5);
      }),
      { numRuns: WALK_RUNS },
    );
  }, 120_000);
});

const DOCUMENTED = new Set<number>(Object.values(ExitCode));

/** The records one scripted answer holds, as a client may read them: a page's `data`, or a bare JSON array. */
function recordsSent(answer: unknown): unknown[] {
  let value = answer;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return [];
    }
  }
  if (Array.isArray(value)) return value;
  if (typeof value === 'object' && value !== null && Array.isArray((value as { data?: unknown }).data)) return (value as { data: unknown[] }).data;
  return [];
}

describe('error answers on hostile bodies', () => {
  const REQ: RequestSpec = { method: 'GET', path: '/servers' };
  const allowed = new Set<number>([ExitCode.refused, ExitCode.auth, ExitCode.notFound, ExitCode.transient]);

  it(`${ERROR_RUNS} error bodies map to a documented exit code and a printable message`, () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 400, max: 599 }),
        fc.oneof(
          { weight: 4, arbitrary: fc.record({ message: jsonValue, errors: fc.oneof(fc.dictionary(hostileString, fc.oneof(fc.array(jsonValue, { maxLength: 3 }), jsonValue), { maxKeys: 3 }), jsonValue) }, { requiredKeys: [] }) },
          { weight: 2, arbitrary: hostileString },
          { weight: 1, arbitrary: fc.constantFrom('<!DOCTYPE html><html><body>502</body></html>', '<HTML>', undefined) },
          { weight: 1, arbitrary: jsonValue },
        ),
        (status, body) => {
          const err = errorForResponse(REQ, { status, headers: {}, body }, 'GET /v1/servers?page=2') as Error & {
            exitCode: number;
            details: string[];
          };
          expect(allowed.has(err.exitCode)).toBe(true);
          expect(err.message).toContain(`${status} `);
          expect(err.message).toContain('GET /v1/servers?page=2');
          for (const line of [err.message, ...err.details]) {
            expect(typeof line).toBe('string');
            // main.ts prints each line through sanitize(): nothing of the service's text may control the terminal.
            checkTerminalSafe(sanitize(line), false);
          }
        },
      ),
      { numRuns: ERROR_RUNS },
    );
  });
});
