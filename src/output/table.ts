// Borderless tables in the style of gh and doctl: a header row, columns
// separated by two spaces, no box characters. Loaded only for table output,
// so cli-table3 costs nothing to the json/ndjson/tsv paths.
import type { Column } from '../cli/types.js';
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

function minimumWidth(natural: number, headerWidth: number): number {
  return Math.min(natural, Math.max(5, Math.min(headerWidth, 10)));
}

export interface TablePrinter {
  /** The text of one page of rows (with the header on the first page unless noHeaders), '' for no rows. */
  page(records: readonly unknown[]): string;
}

export interface TablePrinterOptions {
  colorizer: Colorizer;
  noHeaders: boolean;
  /** Terminal width. */
  maxWidth: number;
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
export async function createTablePrinter(columns: readonly Column[], options: TablePrinterOptions): Promise<TablePrinter> {
  const { default: Table } = (await import('cli-table3')) as unknown as { default: TableConstructor };
  let widths: number[] | undefined;
  let headerDone = options.noHeaders;

  const texts = (records: readonly unknown[]): Array<{ text: string; value: unknown }[]> =>
    records.map((record) =>
      columns.map((column) => {
        const value = shownValue(record, column);
        return { text: cellText(value, column, options.now), value };
      }),
    );

  return {
    page(records) {
      if (records.length === 0) return '';
      const rows = texts(records);
      if (widths === undefined) {
        const headerWidths = columns.map((c) => displayWidth(c.header));
        const natural = columns.map((_, i) =>
          rows.reduce((max, row) => Math.max(max, displayWidth(row[i]!.text)), options.noHeaders ? 1 : headerWidths[i]!),
        );
        // Ids are what people copy from a table: the id column is never cut, other columns give way.
        const minimums = natural.map((n, i) => (columns[i]!.key === 'id' ? n : minimumWidth(n, headerWidths[i]!)));
        widths = fitWidths(natural, minimums, options.maxWidth);
      }
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
