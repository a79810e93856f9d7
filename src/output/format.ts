// Cell formatting shared by the table, record and key/value views. Nothing
// here imports a heavy module: colour arrives as a Colorizer so that the
// paths that never colour (json, ndjson, tsv, piped tables) never load chalk.
import type { Column } from '../contract/context.js';

/** The few styles the output layer uses; a chalk instance satisfies it. */
export interface Colorizer {
  bold(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  dim(text: string): string;
}

const identity = (text: string): string => text;
export const plainColorizer: Colorizer = { bold: identity, green: identity, yellow: identity, red: identity, dim: identity };

// ---------------------------------------------------------------------------
// Sanitising: in ./sanitize.ts (small, loaded by the stderr writer of every command)

import { sanitize } from './sanitize.js';
import { parseStatedSize } from '../util/stated-size.js';
import { parseServiceTime } from '../util/time.js';

// ---------------------------------------------------------------------------
// Display width

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function codePointWidth(cp: number): number {
  // Combining marks, zero-width spaces/joiners and variation selectors take no cell.
  if (
    (cp >= 0x0300 && cp <= 0x036f) ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0x20d0 && cp <= 0x20ff)
  ) {
    return 0;
  }
  // East Asian Wide and Fullwidth blocks, plus the common emoji planes.
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/** Terminal cells a (sanitised, uncoloured) string takes; wide CJK characters count 2. */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let width = 0;
  for (const ch of text) width += codePointWidth(ch.codePointAt(0)!);
  return width;
}

/** Cuts text to at most `width` terminal cells, ending with `…` when something was cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  if (width === 1) return '…';
  let used = 0;
  let out = '';
  for (const ch of text) {
    const w = codePointWidth(ch.codePointAt(0)!);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return out + '…';
}

/** Pads with spaces on the right to `width` terminal cells. */
export function padEnd(text: string, width: number): string {
  const missing = width - displayWidth(text);
  return missing > 0 ? text + ' '.repeat(missing) : text;
}

// ---------------------------------------------------------------------------
// Times

/**
 * The service's datetimes as a Date: parseServiceTime's rule (src/util/time.ts,
 * the one parser: a time with no zone is UTC); undefined when the text is not one.
 */
export function parseDateTime(value: string | Date | null | undefined): Date | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value;
  const ms = parseServiceTime(value);
  return ms === undefined ? undefined : new Date(ms);
}

const UNITS: Array<[name: string, seconds: number]> = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
];

/**
 * "3 hours ago", "in 2 days", "just now" (within 45 seconds). At most 14
 * characters below a century. Text that is not a datetime comes back
 * sanitised and unchanged; null and undefined give ''.
 */
/**
 * A service time for a summary line: ["2026-11-26 01:00 UTC", "2 hours ago"], never the
 * service's raw ISO text; undefined when it is not a time (the caller shows it as sent).
 */
export function whenAndAge(value: string | null | undefined, now: Date = new Date()): [string, string] | undefined {
  const date = value ? parseDateTime(value) : undefined;
  if (!date) return undefined;
  return [utcMinute(date), relativeTime(date, now)];
}

/**
 * A moment to the minute in UTC: "2026-11-24 02:30 UTC" (summary lines, anomalies, ls, find, diff).
 * Text that is not a time comes back sanitised; none gives `unknown`.
 */
export function utcMinute(value: string | Date | null | undefined, unknown = 'unknown time'): string {
  const date = parseDateTime(value);
  if (!date) return typeof value === 'string' && value !== '' ? sanitize(value) : unknown;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function relativeTime(value: string | Date | null | undefined, now: Date = new Date()): string {
  if (value === null || value === undefined || value === '') return '';
  const date = parseDateTime(value);
  if (!date) return typeof value === 'string' ? sanitize(value) : '';
  const seconds = Math.round((now.getTime() - date.getTime()) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  let phrase = '';
  for (const [name, size] of UNITS) {
    if (abs >= size) {
      const count = Math.floor(abs / size);
      phrase = `${count} ${name}${count === 1 ? '' : 's'}`;
      break;
    }
  }
  // Between 45 and 59 seconds no unit matched: call it a minute.
  if (phrase === '') phrase = '1 minute';
  return seconds >= 0 ? `${phrase} ago` : `in ${phrase}`;
}

/** "2026-11-22 10:00 UTC (3 hours ago)"; for the record view, where there is room. */
export function absoluteAndRelativeTime(value: string | Date | null | undefined, now: Date = new Date()): string {
  if (value === null || value === undefined || value === '') return '';
  const date = parseDateTime(value);
  if (!date) return typeof value === 'string' ? sanitize(value) : '';
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC (${relativeTime(date, now)})`;
}

// ---------------------------------------------------------------------------
// Sizes

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/**
 * The one size formatter (tables, records, progress bars, verify, report):
 * binary multiples labelled as such (1 KiB = 1024 B): 512 B, 1.5 KiB,
 * 15.3 MiB, 152 GiB. One decimal below 100, none above.
 */
export function humanBytes(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const sign = n < 0 ? '-' : '';
  let value = Math.abs(n);
  if (value < 1024) return `${sign}${Math.round(value)} B`;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  // 1023.96 KB must not print as "1024 KB".
  if (Number(value.toFixed(value < 100 ? 1 : 0)) >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = value < 100 ? value.toFixed(1).replace(/\.0$/, '') : value.toFixed(0);
  return `${sign}${text} ${BYTE_UNITS[unit]}`;
}

// ---------------------------------------------------------------------------
// Status colours

const STATUS_COLOUR: Record<string, keyof Colorizer> = {
  completed: 'green',
  verified: 'green',
  'not-inspected': 'yellow',
  active: 'green',
  success: 'green',
  succeeded: 'green',
  running: 'yellow',
  pending: 'yellow',
  in_progress: 'yellow',
  'in-progress': 'yellow',
  paused: 'yellow',
  starting: 'yellow',
  transferring: 'yellow',
  queued: 'yellow',
  completed_with_errors: 'yellow',
  failed: 'red',
  error: 'red',
  expired: 'red',
  inactive: 'red',
  destroyed: 'red',
};

/** Colours `text` by the status word `raw`; unknown statuses stay uncoloured. */
export function colorStatus(text: string, raw: unknown, colorizer: Colorizer): string {
  if (typeof raw !== 'string' || text === '') return text;
  const style = STATUS_COLOUR[raw.trim().toLowerCase()];
  return style ? colorizer[style](text) : text;
}

// ---------------------------------------------------------------------------
// Cells

/** A record's value for a column: `get`, else the key, walking dotted keys through objects. */
export function columnValue(record: unknown, column: Column): unknown {
  return column.get ? safely(column.get, record) : valueAt(record, column.key);
}

/** The value a table or record view shows: the column's display text when it has one, else its raw value. */
export function shownValue(record: unknown, column: Column): unknown {
  return column.show ? safely(column.show, record) : columnValue(record, column);
}

/** The tsv fields of a column: its raw value, or one per `flat` path of it. */
export function tsvValues(record: unknown, column: Column): unknown[] {
  const value = columnValue(record, column);
  return column.flat ? column.flat.map((p) => valueAt(value, p)) : [value];
}

function safely(get: (record: any) => unknown, record: unknown): unknown {
  // Getters are written for well-formed records (`(s) => s.key?.name`); a list holding
  // null or a string, or a field of an unexpected type, must give an empty cell, not a crash.
  try {
    return get(record);
  } catch {
    return undefined;
  }
}

/** `record[key]`, or the walk along a dotted key (`credentials.name`). */
function valueAt(record: unknown, key: string): unknown {
  if (record === null || typeof record !== 'object') return undefined;
  const direct = (record as Record<string, unknown>)[key];
  if (direct !== undefined || !key.includes('.')) return direct;
  let current: unknown = record;
  for (const part of key.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function compactJson(value: unknown): string {
  return JSON.stringify(value) ?? '';
}

function isTruthyFlag(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || (typeof value === 'string' && value.toLowerCase() === 'true');
}

function isFalsyFlag(value: unknown): boolean {
  return value === false || value === 0 || value === '0' || (typeof value === 'string' && value.toLowerCase() === 'false');
}

function tagNames(value: unknown): string {
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : compactJson(v))).join(',');
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .filter(([, set]) => isTruthyFlag(set))
      .map(([name]) => name)
      .join(',');
  }
  return String(value);
}

/** Plain text of a value, with no colour and no truncation, for a table cell. */
function plainText(value: unknown, column: Column, now: Date | undefined, timeStyle: 'relative' | 'both'): string {
  if (value === null || value === undefined) return '';
  if (column.short !== undefined && typeof value === 'string') return sanitize(value).slice(0, column.short);
  switch (column.format) {
    case 'time':
      if (typeof value === 'string' || value instanceof Date) {
        return timeStyle === 'both' ? absoluteAndRelativeTime(value, now) : relativeTime(value, now);
      }
      break;
    case 'size': {
      // The service states sizes as text ('744 bytes', '12.5 MB', 1024-based): shown in the same units as byte counts.
      const bytes = typeof value === 'number' ? value : parseStatedSize(value)?.bytes;
      if (bytes !== undefined) return humanBytes(bytes);
      break;
    }
    case 'bool':
      if (isTruthyFlag(value)) return 'yes';
      if (isFalsyFlag(value)) return 'no';
      break;
    case 'tags':
      return sanitize(tagNames(value));
    case 'json':
      return sanitize(compactJson(value));
    default:
      break;
  }
  if (typeof value === 'string') return sanitize(value);
  if (typeof value === 'object' && !(value instanceof Date)) return sanitize(compactJson(value));
  if (value instanceof Date) return value.toISOString();
  return sanitize(String(value));
}

/** Cell text for the table view, uncoloured. Exported for width computation. */
export function cellText(value: unknown, column: Column, now?: Date): string {
  return plainText(value, column, now, 'relative');
}

/** Value text for the record (`Key:  value`) view: times shown absolute and relative. */
export function recordValueText(value: unknown, column: Column, now?: Date): string {
  return plainText(value, column, now, 'both');
}

/** Colours already-sized cell text; only status columns are coloured. */
export function styleCell(text: string, value: unknown, column: Column, colorizer: Colorizer): string {
  return column.format === 'status' ? colorStatus(text, value, colorizer) : text;
}

/**
 * A value as a table cell shows it: sanitised, formatted by the column's
 * `format`, and coloured (status) through `colorizer`. Not truncated.
 */
export function formatCell(value: unknown, column: Column, colorizer: Colorizer = plainColorizer, now?: Date): string {
  return styleCell(cellText(value, column, now), value, column, colorizer);
}

/** A value as TSV and other raw outputs carry it: as given, objects as compact JSON, null as ''. */
export function rawText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return compactJson(value);
  return String(value);
}

/**
 * The -o ndjson lines of a document of backups with files (verify, restore-test): each file
 * ({"type":"file", ...}) unless they were streamed as judged, then each backup without its files.
 */
export function backupsNdjson(backups: ReadonlyArray<{ files: readonly object[] }>, filesStreamed: boolean): string {
  const lines = filesStreamed ? [] : backups.flatMap((b) => b.files.map((f) => JSON.stringify({ type: 'file', ...f })));
  for (const { files: _files, ...b } of backups) lines.push(JSON.stringify({ type: 'backup', ...b }));
  return `${lines.join('\n')}\n`;
}
