// Borderless tables in the style of gh and doctl: a header row, columns
// separated by two spaces, no box characters. Loaded only for table output,
// so cli-table3 costs nothing to the json/ndjson/tsv paths.
import type { Column } from '../contract/context.js';
import { cellText, displayWidth, shownValue, styleCell, truncate, type Colorizer } from './format.js';

/** Spaces between columns. */
export const COLUMN_GAP = 2;

/**
 * Widths that fit `available` terminal cells: the widest columns give way
 * first, down to a floor of a few characters (or the header, if shorter), so
 * ids and statuses keep their width while names and descriptions are cut.
 */
export function fitWidths(natural: readonly number[], minimums: readonly number[], available: number): number[] {
  const widths = [...natural];
  const gaps = COLUMN_GAP * Math.max(0, widths.length - 1);
  let excess = widths.reduce((sum, w) => sum + w, 0) + gaps - available;
  while (excess > 0) {
    let widest = -1;
    let second = 0;
    for (let i = 0; i < widths.length; i++) {
      if (widths[i]! <= minimums[i]!) continue;
      if (widest === -1 || widths[i]! > widths[widest]!) {
        if (widest !== -1) second = Math.max(second, widths[widest]!);
        widest = i;
      } else {
        second = Math.max(second, widths[i]!);
      }
    }
    if (widest === -1) break;
    const floor = Math.max(second, minimums[widest]!);
    const cut = Math.min(excess, Math.max(1, widths[widest]! - floor));
    widths[widest] = widths[widest]! - cut;
    excess -= cut;
  }
  return widths;
}

/**
 * The columns to show and their widths, to fit `available` cells: while even
 * the narrowest widths (`minimums`) do not fit, whole columns go, those in
 * `dropOrder` first in its order; then the widest of the rest give way
 * (fitWidths). A column cut below its minimum would read as noise.
 */
export function fitColumns(
  natural: readonly number[],
  minimums: readonly number[],
  available: number,
  dropOrder: readonly number[],
  early: readonly number[] = [],
): { keep: number[]; widths: number[] } {
  let keep = natural.map((_, i) => i);
  const fitsAt = (widths: readonly number[]) => keep.reduce((sum, i) => sum + widths[i]!, 0) + COLUMN_GAP * Math.max(0, keep.length - 1) <= available;
  // The columns that matter less go whole while the rest would have to be cut.
  for (const drop of early) {
    if (fitsAt(natural)) break;
    keep = keep.filter((i) => i !== drop);
  }
  for (const drop of dropOrder) {
    if (fitsAt(minimums)) break;
    keep = keep.filter((i) => i !== drop);
  }
  return { keep, widths: fitWidths(keep.map((i) => natural[i]!), keep.map((i) => minimums[i]!), available) };
}

/**
 * The narrowest a column is cut to: its header or 8 cells, 16 for a name (what people read a table for), never wider
 * than its cells. An id, or an id or hash already shortened (`short`), a status and a time are never cut: a cut one reads as noise.
 */
function minimumWidth(column: Column, natural: number, headerWidth: number, cellsWidth: number): number {
  if (column.key === 'id' || column.short !== undefined) return natural;
  // A status or a time ("12 hours ago") cut reads as noise too: its cells stay whole (a longer header is cut).
  if (column.format === 'status' || column.format === 'time') return Math.min(natural, Math.max(cellsWidth, 8));
  return Math.min(natural, Math.max(column.key === 'name' ? 16 : 8, Math.min(headerWidth, 12)));
}

/**
 * Which columns go first on a narrow terminal: from the right, never the id
 * nor the first column (what a row is about). Named in --columns, none goes.
 */
function dropOrderOf(columns: readonly Column[], chosen: boolean): number[] {
  if (chosen) return [];
  return columns.map((_, i) => i).filter((i) => i > 0 && columns[i]!.key !== 'id').reverse();
}

/** The columns marked dropEarly, from the right: they go whole before any other column is cut. */
function earlyDropsOf(columns: readonly Column[], chosen: boolean): number[] {
  return dropOrderOf(columns, chosen).filter((i) => columns[i]!.dropEarly);
}

const WHOLE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How many characters of a UUID a table shows on a terminal: enough to be unique in practice, and what an id argument accepts as a prefix. */
export const SHORT_ID_LENGTH = 8;

/** A UUID's first 8 characters (docker's and git's short ids); any other text as it is. */
export function shortId(text: string): string {
  return WHOLE_UUID.test(text) ? text.slice(0, SHORT_ID_LENGTH) : text;
}

export interface TablePrinter {
  /** The text of one page of rows (with the header on the first page unless noHeaders), '' for no rows. */
  page(records: readonly unknown[]): string;
  /**
   * Sets the column widths from these records when none are set yet (page() does so
   * from its own): a large page printed in chunks is measured whole, then each chunk
   * keeps those widths.
   */
  measure(records: readonly unknown[]): void;
}

export interface TablePrinterOptions {
  colorizer: Colorizer;
  noHeaders: boolean;
  /** The user named the columns (--columns): none is left out to fit. */
  chosen?: boolean;
  /** Terminal width (Infinity: nothing is cut, --no-trunc). */
  maxWidth: number;
  /** UUIDs shown as their first 8 characters (a table on a terminal, without --no-trunc). */
  shortIds?: boolean;
  now?: Date;
}

type TableConstructor = typeof import('cli-table3');

const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '',
};

/**
 * A printer that sets the column widths from the header and the first page,
 * then keeps them for every later page (cutting longer cells), so a streamed
 * list stays aligned without holding every record.
 */
export async function createTablePrinter(allColumns: readonly Column[], options: TablePrinterOptions): Promise<TablePrinter> {
  const { default: Table } = (await import('cli-table3')) as unknown as { default: TableConstructor };
  let widths: number[] | undefined;
  let columns = allColumns;
  let headerDone = options.noHeaders;

  const texts = (records: readonly unknown[], of: readonly Column[]): Array<{ text: string; value: unknown }[]> =>
    records.map((record) =>
      of.map((column) => {
        const value = shownValue(record, column);
        const text = cellText(value, column, options.now);
        return { text: options.shortIds ? shortId(text) : text, value };
      }),
    );

  /** The first page (all of it, when it is printed in chunks) sets the columns and their widths for every page after it. */
  const measure = (records: readonly unknown[]): number[] => {
    const first = texts(records, allColumns);
    const headerWidths = allColumns.map((c) => displayWidth(c.header));
    const natural = allColumns.map((_, i) =>
      first.reduce((max, row) => Math.max(max, displayWidth(row[i]!.text)), options.noHeaders ? 1 : headerWidths[i]!),
    );
    // Ids are what people copy from a table: the id column is never cut, other columns give way or go.
    const cellsWidths = allColumns.map((_, i) => first.reduce((max, row) => Math.max(max, displayWidth(row[i]!.text)), 1));
    const minimums = allColumns.map((c, i) => minimumWidth(c, natural[i]!, headerWidths[i]!, cellsWidths[i]!));
    const chosen = options.chosen === true;
    const fitted = fitColumns(natural, minimums, options.maxWidth, dropOrderOf(allColumns, chosen), earlyDropsOf(allColumns, chosen));
    columns = fitted.keep.map((i) => allColumns[i]!);
    return fitted.widths;
  };

  return {
    measure(records) {
      if (widths === undefined && records.length) widths = measure(records);
    },
    page(records) {
      if (records.length === 0) return '';
      widths ??= measure(records);
      const rows = texts(records, columns);
      const fixed = widths;
      const table = new Table({
        chars: BORDERLESS,
        style: { head: [], border: [], 'padding-left': 0, 'padding-right': COLUMN_GAP, compact: true },
        colWidths: fixed.map((w) => w + COLUMN_GAP),
        wordWrap: false,
        truncate: '…',
      });
      if (!headerDone) {
        headerDone = true;
        table.push(columns.map((c, i) => options.colorizer.bold(truncate(c.header, fixed[i]!))));
      }
      for (const row of rows) {
        table.push(row.map((cell, i) => styleCell(truncate(cell.text, fixed[i]!), cell.value, columns[i]!, options.colorizer)));
      }
      return (
        table
          .toString()
          .split('\n')
          .map((line) => line.trimEnd())
          .join('\n') + '\n'
      );
    },
  };
}
