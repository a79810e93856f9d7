// A fitted table for the views of status and report: columns sized to their
// cells, whole columns dropped in a stated order before the rest are cut past
// reading, each cell styled after it is cut; and the palette they colour with.
import { displayWidth, truncate } from './format.js';
import { COLUMN_GAP, fitColumns } from './table.js';

export interface Palette {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  blue(text: string): string;
}

const identity = (text: string) => text;
export const plainPalette: Palette = { bold: identity, dim: identity, green: identity, yellow: identity, red: identity, blue: identity };

/** Colours when the output options say so (a terminal, no NO_COLOR); chalk loads only then. */
export async function makePalette(color: boolean): Promise<Palette> {
  if (!color) return plainPalette;
  const { Chalk, supportsColor } = await import('chalk');
  const level = supportsColor ? supportsColor.level : 0;
  return new Chalk({ level: level > 0 ? level : 1 });
}

export interface ViewColumn<R> {
  key: string;
  header: string;
  /** Plain text, sanitised. */
  text(row: R): string;
  /** Colour for the (possibly cut) text. */
  style?(text: string, row: R, palette: Palette): string;
  /** Never cut (health, the strip: a cut strip would hide the newest backups). */
  fixed?: boolean;
  /** Cut no shorter than this, so what is left still reads ("failed 23 hours ago"). */
  floor?: number;
}

/** What table() needs of the view's options. */
export interface TableFitOptions {
  palette: Palette;
  /** Terminal width (Infinity when piped). */
  width: number;
  noHeaders: boolean;
}

interface Fit {
  /** Columns to leave out, in order, while even their floors do not fit. */
  dropOrder?: readonly string[];
  /** Keep columns empty in every row (the user named them in --columns). */
  keepEmpty?: boolean;
}

/**
 * Columns sized to their cells and fitted to the width. A column empty in
 * every row is left out unless asked for (the resource list carries no
 * frequency, for one).
 */
export function table<R>(rows: readonly R[], allCols: readonly ViewColumn<R>[], o: TableFitOptions, fit: Fit = {}): string {
  const present = fit.keepEmpty ? [...allCols] : allCols.filter((c) => rows.some((row) => c.text(row) !== ''));
  const all = rows.map((row) => present.map((c) => c.text(row)));
  const headerWidths = present.map((c) => displayWidth(c.header));
  const natural = present.map((_, i) => all.reduce((max, row) => Math.max(max, displayWidth(row[i]!)), o.noHeaders ? 1 : headerWidths[i]!));
  const minimums = natural.map((n, i) => (present[i]!.fixed ? n : Math.min(n, present[i]!.floor ?? Math.max(8, Math.min(headerWidths[i]!, 12)))));
  const dropOrder = (fit.dropOrder ?? []).map((key) => present.findIndex((c) => c.key === key)).filter((i) => i >= 0);
  const { keep, widths } = fitColumns(natural, minimums, o.width, dropOrder);
  const cols = keep.map((i) => present[i]!);
  const cells = all.map((row) => keep.map((i) => row[i]!));
  const line = (cells: string[], styled: (text: string, i: number) => string) =>
    cells
      .map((cell, i) => {
        const cut = truncate(cell, widths[i]!);
        const pad = i === cells.length - 1 ? '' : ' '.repeat(Math.max(0, widths[i]! - displayWidth(cut)) + COLUMN_GAP);
        return styled(cut, i) + pad;
      })
      .join('')
      .trimEnd();
  let out = '';
  if (!o.noHeaders) out += line(cols.map((c) => c.header), (t) => o.palette.bold(t)) + '\n';
  cells.forEach((t, r) => {
    out += line(t, (cut, i) => cols[i]!.style?.(cut, rows[r]!, o.palette) ?? cut) + '\n';
  });
  return out;
}

