// The one place that prints results. See index.ts for the rules.
import type { TablePrinter } from './table.js';
import type { Column, IO, OutputOptions, Result, Section } from '../contract/context.js';
import { UsageError } from '../errors.js';
import {
  displayWidth,
  padEnd,
  plainColorizer,
  rawText,
  recordValueText,
  shownValue,
  styleCell,
  truncate,
  tsvValues,
  type Colorizer,
} from './format.js';
import { sanitize, sanitizeMultiline, tsvField } from './sanitize.js';
import { OutputWriter } from './writer.js';
import { HAS_JSON_UNSAFE, JSON_UNSAFE, jsonArrayBytes, ndjsonBytes } from './verbatim.js';

export interface RenderOptions {
  /** The moment relative times are measured from (tests fix it). */
  now?: Date;
  /** Ctrl-C: a large table stops between two of its chunks. */
  signal?: AbortSignal;
}

type ListResult = Extract<Result, { kind: 'list' }>;
type RecordResult = Extract<Result, { kind: 'record' }>;
type ObjectResult = Extract<Result, { kind: 'object' }>;

interface Target {
  out: OutputOptions;
  io: IO;
  stdout: OutputWriter;
  stderr: OutputWriter;
  now: Date;
  signal?: AbortSignal;
}

/**
 * The columns to show: all but the `extra` ones, or those named in
 * --columns (by key or header, any case) in the order named.
 */
export function selectColumns(columns: readonly Column[], names: readonly string[] | undefined): Column[] {
  if (names === undefined || names.length === 0) return columns.filter((c) => !c.extra);
  return names.map((name) => {
    const wanted = name.toLowerCase();
    const found =
      columns.find((c) => c.key.toLowerCase() === wanted) ?? columns.find((c) => c.header.toLowerCase() === wanted);
    if (!found) {
      throw new UsageError(`Unknown column "${name}" in --columns; allowed: ${columns.map((c) => c.key).join(', ')}`);
    }
    return found;
  });
}

async function makeColorizer(out: OutputOptions): Promise<Colorizer> {
  if (!out.color) return plainColorizer;
  const { Chalk, supportsColor } = await import('chalk');
  const detected = supportsColor ? supportsColor.level : 0;
  return new Chalk({ level: detected > 0 ? detected : 1 });
}

// JSON.stringify escapes C0 controls (ESC included) but leaves DEL, the C1
// controls (U+009B is a one-byte CSI) and bidi overrides raw. Outside strings
// JSON has none of them, so writing them as \uXXXX keeps the text the same
// JSON while nothing from the service can steer the terminal it is shown on.
// (The patterns: verbatim.ts, which keeps no page holding one.)

/**
 * `text` with DEL, C1 and bidi characters written as \uXXXX. Most text is plain ASCII:
 * the native byte count tells so at once (every unsafe character but DEL takes two or
 * more UTF-8 bytes), and the pattern runs only on text that may hold one. Applied to a
 * page of records at once, not record by record.
 */
function escapeUnsafe(text: string): string {
  if (Buffer.byteLength(text, 'utf8') === text.length && !text.includes('\x7f')) return text;
  return HAS_JSON_UNSAFE.test(text)
    ? text.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : text;
}

/** JSON.stringify(undefined) is undefined; print what an array would hold. Unescaped: see escapeUnsafe. */
function rawJson(value: unknown, pretty: boolean): string {
  return (pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)) ?? 'null';
}

/** A record of a list as compact JSON, escaped: what a page the client did not keep is written with. */
function compactJson(record: unknown): string {
  return escapeUnsafe(rawJson(record, false));
}

function json(value: unknown, pretty: boolean): string {
  return escapeUnsafe(rawJson(value, pretty));
}

function idOf(record: unknown, idField: string): string | undefined {
  if (record === null || typeof record !== 'object') return undefined;
  const id = (record as Record<string, unknown>)[idField];
  if (id === null || id === undefined) return undefined;
  return sanitize(rawText(id));
}

function tsvLine(record: unknown, columns: readonly Column[]): string {
  return columns.flatMap((c) => tsvValues(record, c).map((v) => tsvField(rawText(v)))).join('\t');
}

// ---------------------------------------------------------------------------
// Lists

/** Walks the pages until they end or the reader of stdout goes away. */
async function eachPage(
  pages: AsyncIterable<unknown[]>,
  target: Target,
  chunkOf: (page: unknown[]) => string | Buffer,
): Promise<number> {
  let count = 0;
  if (!target.stdout.open) return count;
  // Leaving the loop early calls the iterator's return(), so no further page is fetched.
  for await (const page of pages) {
    if (page.length === 0) continue;
    count += page.length;
    if (!(await target.stdout.write(chunkOf(page)))) break;
  }
  return count;
}

async function renderList(result: ListResult, target: Target): Promise<void> {
  const { out } = target;
  if (out.quiet) {
    await eachPage(result.pages, target, (page) => {
      let chunk = '';
      for (const record of page) {
        const id = idOf(record, result.idField);
        if (id !== undefined) chunk += id + '\n';
      }
      return chunk;
    });
    return;
  }
  switch (out.format) {
    case 'ndjson':
      await eachPage(result.pages, target, (page) => {
        // A page the client kept (src/output/verbatim.ts): the records' bytes as the service sent them.
        const kept = ndjsonBytes(page, compactJson);
        if (kept) return kept;
        let chunk = '';
        for (const record of page) chunk += rawJson(record, false) + '\n';
        return escapeUnsafe(chunk);
      });
      return;
    case 'json':
      return renderJsonArray(result.pages, target);
    case 'tsv': {
      const columns = selectColumns(result.columns, out.columns);
      await eachPage(result.pages, target, (page) => {
        let chunk = '';
        for (const record of page) chunk += tsvLine(record, columns) + '\n';
        return chunk;
      });
      return;
    }
    case 'table': {
      const columns = selectColumns(result.columns, out.columns);
      const printer = await tablePrinter(columns, target, (out.columns?.length ?? 0) > 0);
      const count = await eachPage(tableChunks(result.pages, printer, target), target, (chunk) => printer.page(chunk));
      if (count === 0 && target.stdout.open) await target.stderr.write('No results.\n');
      return;
    }
  }
}

/**
 * One JSON array, written record by record. The same text as
 * JSON.stringify(array, null, 2) when pretty. If the pages fail part way the
 * array is left open on purpose: a reader must not take a cut list for a whole one.
 */
async function renderJsonArray(pages: AsyncIterable<unknown[]>, target: Target): Promise<void> {
  const { pretty } = target.out;
  const separator = pretty ? '\n  ' : '';
  let first = true;
  const count = await eachPage(pages, target, (page) => {
    if (!pretty) {
      // A page the client kept (src/output/verbatim.ts): the records' bytes as the service sent them.
      const kept = jsonArrayBytes(page, first, compactJson);
      if (kept) {
        first = false;
        return kept;
      }
    }
    let chunk = '';
    for (const record of page) {
      chunk += first ? '[' + separator : ',' + separator;
      first = false;
      chunk += pretty ? rawJson(record, true).replace(/\n/g, '\n  ') : rawJson(record, false);
    }
    return escapeUnsafe(chunk);
  });
  if (!target.stdout.open) return;
  await target.stdout.write(count === 0 ? '[]\n' : pretty ? '\n]\n' : ']\n');
}

/**
 * Rows for the table printer at most TABLE_CHUNK_ROWS at a time. cli-table3 takes
 * time quadratic in a table's rows (a page of 20,000 took 46 s) and blocks the event
 * loop meanwhile, so Ctrl-C went unheard: a page is measured whole (its widths are the
 * table's), then printed in chunks, with a turn of the event loop between two, where
 * a signal is handled and ends the printing.
 */
async function* tableChunks(pages: AsyncIterable<unknown[]>, printer: TablePrinter, target: Target): AsyncIterable<unknown[]> {
  for await (const page of pages) {
    printer.measure(page);
    for (let i = 0; i < page.length; i += TABLE_CHUNK_ROWS) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      target.signal?.throwIfAborted();
      yield page.length <= TABLE_CHUNK_ROWS ? page : page.slice(i, i + TABLE_CHUNK_ROWS);
    }
  }
}

/** Rows cli-table3 lays out at once: ~5 ms of work at most, linear time overall. */
export const TABLE_CHUNK_ROWS = 200;

/** `chosen`: the user named the columns (--columns), so none is left out to fit the terminal. */
async function tablePrinter(columns: readonly Column[], target: Target, chosen: boolean, noHeaders = target.out.noHeaders) {
  const { createTablePrinter } = await import('./table.js');
  return createTablePrinter(columns, {
    colorizer: await makeColorizer(target.out),
    noHeaders,
    chosen,
    maxWidth: target.out.noTrunc ? Number.POSITIVE_INFINITY : target.io.columns,
    shortIds: target.out.shortIds === true && !target.out.noTrunc,
    now: target.now,
  });
}

// ---------------------------------------------------------------------------
// One record

async function renderRecord(result: RecordResult, target: Target): Promise<void> {
  const { out, stdout } = target;
  if (out.quiet) {
    const id = idOf(result.record, result.idField);
    if (id !== undefined) await stdout.write(id + '\n');
    return;
  }
  switch (out.format) {
    case 'json':
      await stdout.write(json(result.record, out.pretty) + '\n');
      return;
    case 'ndjson':
      await stdout.write(json(result.record, false) + '\n');
      return;
    case 'tsv':
      await stdout.write(tsvLine(result.record, selectColumns(result.columns, out.columns)) + '\n');
      return;
    case 'table':
      await stdout.write(await recordView(result, target));
      return;
  }
}

/** `Key:  value` lines, then each section as a titled table. */
async function recordView(result: RecordResult, target: Target): Promise<string> {
  const colorizer = await makeColorizer(target.out);
  const columns = selectColumns(result.columns, target.out.columns);
  const labelWidth = columns.reduce((max, c) => Math.max(max, displayWidth(c.header) + 1), 0) + 2;
  // Values are cut to the terminal (never the id, nothing with --no-trunc); in a pipe the width is unbounded.
  const room = target.out.noTrunc ? Number.POSITIVE_INFINITY : Math.max(8, target.io.columns - labelWidth);
  let text = '';
  for (const column of columns) {
    const value = shownValue(result.record, column);
    const whole = recordValueText(value, column, target.now);
    const shown = styleCell(column.key === 'id' ? whole : truncate(whole, room), value, column, colorizer);
    text += `${padEnd(column.header + ':', labelWidth)}${shown}`.trimEnd() + '\n';
  }
  for (const section of result.sections ?? []) text += await sectionView(section, target, colorizer);
  return text;
}

async function sectionView(section: Section, target: Target, colorizer: Colorizer): Promise<string> {
  const title = '\n' + colorizer.bold(sanitize(section.title)) + '\n';
  if (section.rows.length === 0) return title + '(none)\n';
  const printer = await tablePrinter(selectColumns(section.columns, undefined), target, false, false);
  let text = title;
  for await (const chunk of tableChunks(single(section.rows), printer, target)) text += printer.page(chunk);
  return text;
}

async function* single(rows: unknown[]): AsyncIterable<unknown[]> {
  yield rows;
}

// ---------------------------------------------------------------------------
// Whole answers, confirmations, text

function keyValueLines(value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => sanitize(rawText(item)) + '\n').join('');
  if (value === null || typeof value !== 'object') return value === undefined ? '' : sanitize(rawText(value)) + '\n';
  return Object.entries(value as Record<string, unknown>)
    .map(([key, field]) => `${sanitize(key)}: ${sanitize(rawText(field))}`.trimEnd() + '\n')
    .join('');
}

async function renderObject(result: ObjectResult, target: Target): Promise<void> {
  const { out, stdout } = target;
  if (out.quiet) {
    // No id to show means nothing to show: -q promises ids only.
    const id = result.idField === undefined ? undefined : idOf(result.value, result.idField);
    if (id !== undefined) await stdout.write(id + '\n');
    return;
  }
  switch (out.format) {
    case 'json':
      await stdout.write(json(result.value, out.pretty) + '\n');
      return;
    case 'ndjson':
      await stdout.write(json(result.value, false) + '\n');
      return;
    case 'table':
    case 'tsv':
      await stdout.write(result.text !== undefined ? withNewline(sanitizeMultiline(result.text)) : keyValueLines(result.value));
      return;
  }
}

function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : text + '\n';
}

/** --jq: the JSON the command would print, through jq. */
async function renderJq(result: Result, expr: string, target: Target): Promise<void> {
  let value: unknown;
  switch (result.kind) {
    case 'list': {
      const records: unknown[] = [];
      for await (const page of result.pages) records.push(...page);
      value = records;
      break;
    }
    case 'record':
      value = result.record;
      break;
    case 'object':
      value = result.value;
      break;
    case 'text':
      if (result.value === undefined) throw new UsageError('--jq: this command prints no JSON');
      value = result.value;
      break;
    case 'done':
      throw new UsageError('--jq: this command prints no JSON');
    case 'empty':
      return;
  }
  const { applyJq } = await import('./jq.js');
  const { text, error } = await applyJq(value, expr, target.io.stdoutIsTTY);
  if (text) await target.stdout.write(text);
  if (error) throw error;
}

export async function render(result: Result, out: OutputOptions, io: IO, options: RenderOptions = {}): Promise<void> {
  const target: Target = {
    out,
    io,
    stdout: new OutputWriter(io.stdout),
    stderr: new OutputWriter(io.stderr),
    now: options.now ?? new Date(),
    signal: options.signal,
  };
  if (out.jq !== undefined) return renderJq(result, out.jq, target);
  switch (result.kind) {
    case 'list':
      return renderList(result, target);
    case 'record':
      return renderRecord(result, target);
    case 'object':
      return renderObject(result, target);
    case 'done':
      if (out.quiet) {
        if (result.id !== undefined && result.id !== null && result.id !== '') {
          await target.stdout.write(sanitize(String(result.id)) + '\n');
        }
        return;
      }
      await target.stderr.write(withNewline(sanitizeMultiline(result.message)));
      return;
    case 'text':
      if ((out.format === 'json' || out.format === 'ndjson') && result.value !== undefined) {
        await target.stdout.write(json(result.value, out.format === 'json' && out.pretty) + '\n');
        return;
      }
      await target.stdout.write(withNewline(result.text));
      return;
    case 'empty':
      return;
  }
}
