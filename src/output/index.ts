/**
 * The output layer: every result reaches stdout through `render`.
 *
 * Choosing the format (`resolveOutputOptions`): `--json` > `-o/--output` >
 * BACKUPCTL_OUTPUT > the profile's `output` > `table` on a terminal, `tsv`
 * when piped. Colour only when stdout is a terminal (FORCE_COLOR cannot
 * override that); off with --no-color, a non-empty NO_COLOR or FORCE_COLOR=0.
 * JSON is pretty on a terminal and compact otherwise.
 *
 * What each format prints:
 * - json: exactly the data: a list is one array (streamed record by record,
 *   byte-identical to JSON.stringify(array, null, 2) when pretty), a record
 *   or object is itself. --columns does not apply. Values are as the service
 *   sent them; control characters survive, escaped by JSON.
 * - ndjson: one compact record per line, written as pages arrive.
 * - tsv: one line per record, the visible columns' raw values (ISO times,
 *   sizes as given, a column's `flat` parts as fields of their own, other
 *   objects as compact JSON, null as empty; never a column's `show` text), tab-separated,
 *   no header; tabs, newlines and other control characters become a space.
 * - table: borderless columns (cli-table3), a header unless --no-headers,
 *   widths set from the first page and kept for later pages, fitted to the
 *   terminal by cutting the widest columns with `…`. Cells: times relative,
 *   sizes in binary units (1 KiB = 1024 B, the service's own size texts converted), statuses coloured, booleans
 *   yes/no, tags as the names set, objects as compact JSON. An empty list
 *   prints `No results.` on stderr. A record prints `Key:  value` lines (times
 *   absolute and relative) and then its sections.
 * - -q: only ids, one per line, whatever the format.
 * - Confirmations (`done`) go to stderr; `-q` prints the id on stdout instead.
 *
 * Every value from the service shown in a table, tsv or key/value line is
 * stripped of ANSI escapes and control characters: only our own colouring
 * emits escape codes. Writes wait for the stream to drain; when the reader
 * goes away (EPIPE, `| head -1`) rendering stops fetching pages and resolves.
 *
 * `render`'s optional fourth argument fixes the moment relative times are
 * measured from (tests).
 *
 * `createSpinner` returns at once and loads ora in the background (see spinner.ts).
 */
export { render, selectColumns, type RenderOptions } from './render.js';
export { resolveOutputOptions, OUTPUT_FORMATS } from './options.js';
export { createSpinner } from './spinner.js';
export { isBrokenPipe } from './writer.js';
export {
  absoluteAndRelativeTime,
  cellText,
  columnValue,
  displayWidth,
  formatCell,
  humanBytes,
  parseDateTime,
  plainColorizer,
  rawText,
  relativeTime,
  truncate,
  type Colorizer,
} from './format.js';
export { sanitize, sanitizeMultiline, tsvField } from './sanitize.js';
