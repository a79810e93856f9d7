// The handler every endpoint gets unless its spec names a custom one: send the
// request, parse the answer leniently with the resource's schema, and hand the
// output layer records and columns.
import { wordParts, wrapParts } from '../util/wrap.js';
import type { CommandSpec } from '../contract/spec.js';
import type { LoadedModule } from '../contract/context.js';
import type { Column, CommandInput, Context, Page, QueryValue, Result, Section } from '../contract/context.js';
import { nextPageQuery, toInt } from '../http/paging.js';
import { EmptyResultError } from '../errors.js';
import { parseServiceTime } from '../util/time.js';
import { fillTemplate } from './request.js';
import { lenient } from './lenient.js';
import { listField, recordOf } from '../http/shape.js';
import { tsvField } from '../output/sanitize.js';

/** The page size of a walk of every page when none is given: the largest the service takes (15..100). */
export const WALK_PAGE_SIZE = 100;

export async function runEndpoint(input: CommandInput, ctx: Context, loadModule: () => Promise<LoadedModule>): Promise<Result> {
  const { spec, values } = input;
  if (!input.request) throw new Error(`command ${spec.path.join(' ')} has no endpoint and no handler`);
  const request = input.request;
  const client = await ctx.client();
  const idField = spec.output.idField ?? 'id';
  switch (spec.output.kind) {
    case 'list': {
      // Configuration lists are read whole unless one page is asked for (issue 29).
      const all = values.all === true || (spec.list?.whole === true && values.page === undefined);
      // A walk of every page asks for the largest page the service gives (100) unless --page-size
      // says otherwise: the 20 demo servers are one round trip, not two, and 1,000 records 10, not 67.
      const request = all && input.request!.query?.page_size === undefined && spec.list?.pageSize !== false
        ? { ...input.request!, query: { ...input.request!.query, page_size: WALK_PAGE_SIZE } }
        : input.request!;
      // The first page is asked for now; the module (its schemas build on load) loads while
      // the answer travels, and the output layer after it, so a slow service hides both.
      const out = ctx.output;
      const asJson = (out.format === 'json' || out.format === 'ndjson') && !out.quiet && out.jq === undefined;
      // Compact JSON and ndjson print each record as the service wrote it: mapPages below hands
      // the records on untouched (it never changes one in place), the condition of `verbatim`.
      const verbatim = asJson && (out.format === 'ndjson' || !out.pretty);
      const pages = started(client.pages(request, { all, signal: ctx.signal, verbatim }));
      if (asJson) {
        // JSON and ndjson print the records as the service sent them and need no columns: the
        // module (its schemas build on load, ~10 ms of CPU) loads after the first page is
        // handed on, so the first record waits for the answer only (issue 31, first record).
        const parser = async () => lenient(await loadWhileSending(loadModule), spec.output.schema, ctx);
        return { kind: 'list', pages: mapPages(pages, parser, spec, values, ctx, request.query ?? {}), columns: [], idField };
      }
      const mod = await loadWhileSending(loadModule);
      const parse = lenient(mod, spec.output.schema, ctx);
      return { kind: 'list', pages: mapPages(pages, async () => parse, spec, values, ctx, request.query ?? {}), columns: columnsOf(mod, spec), idField };
    }
    case 'record': {
      const spinner = ctx.spinner('Loading…');
      const answer = client.request(request, { signal: ctx.signal }).finally(() => spinner.stop());
      answer.catch(() => {}); // awaited below
      const mod = await loadWhileSending(loadModule);
      const res = await answer;
      const raw = recordOf(res);
      if (spec.output.entries) return entriesResult(raw, spec.output.entries, mod, spec, ctx);
      const record = lenient(mod, spec.output.schema, ctx)(raw);
      // A record with sub-tables: each list field as a table below it (`files` of a backup).
      const sections: Section[] | undefined = spec.output.sections?.map((s) => {
        const rows = listField(res, raw, s.field, spec.output.schema ?? 'record');
        if (!s.newestFirst) return { title: s.title, rows, columns: mod.columns?.[s.columns] ?? [] };
        const inRecord = (record as Record<string, unknown>)[s.field];
        if (Array.isArray(inRecord)) (record as Record<string, unknown>)[s.field] = byNewest(inRecord);
        return { title: s.title, rows: byNewest(rows), columns: mod.columns?.[s.columns] ?? [] };
      });
      return { kind: 'record', record, columns: withFallbacks(columnsOf(mod, spec), spec, values), idField, ...(sections ? { sections } : {}) };
    }
    case 'object': {
      const res = await client.request(request, { signal: ctx.signal });
      const value = res.body ?? {};
      if (spec.output.textField !== undefined) {
        const text = (value as Record<string, unknown>)[spec.output.textField];
        return { kind: 'text', text: `${typeof text === 'string' ? text : JSON.stringify(value)}\n`, value };
      }
      const field = spec.output.messageField;
      if (field !== undefined && (ctx.output.format === 'table' || value === '' || (typeof value === 'object' && !Object.keys(value as object).length))) {
        // A confirmation, not a record: the service's message (else ours) on stderr; -q prints the id acted on.
        const said = (value as Record<string, unknown>)[field];
        return { kind: 'done', message: typeof said === 'string' ? said : fillTemplate(spec.output.done ?? 'Done.', values), id: firstPathValue(spec, values) };
      }
      return { kind: 'object', value, idField: spec.output.idField };
    }
    case 'none': {
      await client.request(request, { signal: ctx.signal });
      const id = firstPathValue(spec, values);
      return { kind: 'done', message: fillTemplate(spec.output.done ?? 'Done.', values), id };
    }
  }
}

/**
 * Loads the module after the request has gone out: the connection completes
 * (and the request is written) in the event loop's poll phase, and
 * setImmediate runs after it.
 */
async function loadWhileSending(loadModule: () => Promise<LoadedModule>): Promise<LoadedModule> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  return loadModule();
}

/** The iterable with its first step already asked for (the first request goes out at once). */
function started<T>(iterable: AsyncIterable<T>): AsyncIterable<T> {
  const it = iterable[Symbol.asyncIterator]();
  const first = it.next();
  first.catch(() => {}); // handed to the consumer below, which sees the error
  let taken = false;
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        if (taken) return it.next();
        taken = true;
        return first;
      },
      return: (value?: unknown) => (it.return ? it.return(value) : Promise.resolve({ done: true as const, value: undefined as unknown as T })),
    }),
  };
}

async function* mapPages(
  pages: AsyncIterable<Page>,
  parser: () => Promise<(r: unknown) => unknown>,
  spec: CommandSpec,
  values: Record<string, unknown>,
  ctx: Context,
  query: Record<string, QueryValue>,
): AsyncIterable<unknown[]> {
  let count = 0;
  let last: Page | undefined;
  let parse: ((r: unknown) => unknown) | undefined;
  const spinner = ctx.spinner('Loading…');
  const it = pages[Symbol.asyncIterator]();
  let done = false;
  try {
    let pending = it.next();
    for (;;) {
      const step = await pending;
      if (step.done) {
        done = true;
        break;
      }
      const page = step.value;
      spinner.stop();
      last = page;
      count += page.records.length;
      // Records pass through as the service sent them (a loose schema would
      // only copy them); the first of each page is checked so that --debug
      // still reports an answer that drifted from its schema. On a walk over
      // 10,000 records this saves a copy of every record and its garbage.
      // The first page is handed on before it is checked: the parser may
      // still be loading (json/ndjson), and the check never changes a record.
      if (parse) {
        if (page.records.length) parse(page.records[0]);
        yield page.records;
        pending = it.next();
      } else {
        yield page.records;
        // The next pages are asked for first: they travel while the parser loads.
        pending = it.next();
        pending.catch(() => {}); // awaited at the top of the loop
        parse = await parser();
        if (page.records.length) parse(page.records[0]);
      }
    }
  } finally {
    spinner.stop();
    // A consumer that stops early (stdout closed) ends the walk: no further page is fetched.
    if (!done) await it.return?.();
  }
  if (count === 0 && values.fail_if_empty) throw new EmptyResultError(`no ${listedNoun(spec)} matched`);
  // One page of several says so on stderr, in every output mode (a pipe too: `jobs list -q | wc -l`
  // must not count a page as the whole list without a word; the renderer has written it).
  const walked = values.all === true || (spec.list?.whole === true && values.page === undefined);
  if (last && !walked) {
    const hint = morePagesHint(query, last.raw, last.records.length);
    // Wrapped at the terminal's width, as the table above it fits it.
    if (hint) ctx.io.stderr.write((ctx.io.stderrIsTTY ? wrapParts(wordParts(hint), ctx.io.columns).join('\n') : hint) + '\n');
  }
}

/**
 * "Showing 15 of 42: --all for every page, --page 2 for the next." when the
 * answer (or a full page) says there is a next page; undefined on the last page.
 */
export function morePagesHint(query: Record<string, QueryValue>, raw: unknown, received: number): string | undefined {
  const next = nextPageQuery(query, raw, received);
  if (!next) return undefined;
  const page = toInt(next.page)! - 1;
  const total = toInt((raw as { meta?: { total?: unknown } } | undefined)?.meta?.total);
  const first = (page - 1) * received;
  const shown = page === 1 ? `${received}` : `${first + 1}-${first + received}`;
  return `Showing ${shown}${total !== undefined ? ` of ${total}` : ''}: --all for every page, --page ${page + 1} for the next.`;
}

/** A map shown as rows (output.entries): --json the map, a table `key<TAB>value` lines, tsv and -q the rows. */
function entriesResult(map: Record<string, unknown>, e: { key: string; value: string }, mod: LoadedModule, spec: CommandSpec, ctx: Context): Result {
  if (ctx.output.format === 'json') return { kind: 'object', value: map };
  const rows = Object.entries(map).map(([k, v]) => ({ [e.key]: k, [e.value]: typeof v === 'string' ? v : JSON.stringify(v) }));
  if (ctx.output.format === 'table' && !ctx.output.quiet && !ctx.output.columns) {
    return { kind: 'text', text: rows.map((r) => `${tsvField(r[e.key]!)}\t${tsvField(r[e.value]!)}\n`).join('') };
  }
  return { kind: 'list', pages: (async function* () { yield rows; })(), columns: columnsOf(mod, spec), idField: spec.output.idField ?? e.value };
}

/**
 * Output shaping: a column whose field the answer leaves empty shows the value
 * of the parameter named in `output.fallbacks` (what was sent); --json keeps the answer.
 */
function withFallbacks(columns: Column[], spec: CommandSpec, values: Record<string, unknown>): Column[] {
  const fallbacks = spec.output.fallbacks;
  if (!fallbacks) return columns;
  return columns.map((c) => {
    const param = fallbacks[c.key];
    if (param === undefined || values[param] === undefined) return c;
    const sent = values[param];
    const empty = (v: unknown) => v === undefined || v === null || v === '';
    const raw = (r: any) => (c.get ? c.get(r) : r?.[c.key]);
    return {
      ...c,
      get: (r: any) => (empty(raw(r)) ? sent : raw(r)),
      show: (r: any) => {
        const shown = c.show ? c.show(r) : raw(r);
        return empty(shown) ? sent : shown;
      },
    };
  });
}

export function columnsOf(mod: LoadedModule, spec: CommandSpec): Column[] {
  const key = spec.output.columns;
  return (key && mod.columns?.[key]) || [];
}

function firstPathValue(spec: CommandSpec, values: Record<string, unknown>): string | number | undefined {
  const m = spec.endpoint?.match(/\{(\w+)\}/g);
  if (!m) return undefined;
  const last = m[m.length - 1]!.slice(1, -1);
  const v = values[last];
  return typeof v === 'string' || typeof v === 'number' ? v : undefined;
}

/** What a list command lists, plural: the word before `list` (`jobs backup list` lists backups). */
export function listedNoun(spec: CommandSpec): string {
  const word = spec.path[spec.path.length - 2] ?? spec.path[0]!;
  if (word === 'ssh-keys') return 'SSH keys';
  return word.endsWith('s') || word === 'storage' ? word : `${word}s`;
}

/** Records newest first by created_at (those without a time last), ties kept in their order. */
function byNewest<T>(rows: readonly T[]): T[] {
  const at = (r: T): number => parseServiceTime((r as { created_at?: unknown } | null)?.created_at) ?? Number.NEGATIVE_INFINITY;
  return [...rows].sort((a, b) => at(b) - at(a));
}
