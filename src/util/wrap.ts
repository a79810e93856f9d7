// Greedy line filling, for help text and the status view's summary lines:
// parts joined by a separator while they fit, a new line when the next does not.

/** One unit of text kept whole: its plain text (for measuring) and what is printed (it may carry colour). */
export interface Part {
  plain: string;
  shown: string;
}

/**
 * `parts` in lines of at most `width` cells (measured by `measure` on the
 * plain text), joined by `separator`; lines after the first start with
 * `indent`. A part wider than a line gets a line of its own.
 */
export function wrapParts(
  parts: readonly Part[],
  width: number,
  separator = ' ',
  measure: (text: string) => number = (t) => t.length,
  indent = '',
): string[] {
  const lines: string[] = [];
  let line = '';
  let used = -1;
  for (const part of parts) {
    const w = measure(part.plain);
    if (used >= 0 && used + measure(separator) + w > width) {
      lines.push(line);
      used = -1;
    }
    if (used < 0) {
      const lead = lines.length ? indent : '';
      line = lead + part.shown;
      used = measure(lead) + w;
    } else {
      line += separator + part.shown;
      used += measure(separator) + w;
    }
  }
  if (used >= 0) lines.push(line);
  return lines;
}

/** Plain words as parts. */
export function wordParts(text: string): Part[] {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => ({ plain: word, shown: word }));
}

/**
 * A line of plain text in lines of at most `width` cells, words kept whole;
 * lines after the first start with the line's own leading spaces plus
 * `indent`. An infinite width (piped output) leaves the line as it is.
 */
export function wrapHanging(text: string, width: number, indent = '  ', measure: (text: string) => number = (t) => t.length): string[] {
  const parts = wordParts(text);
  if (!Number.isFinite(width) || measure(text) <= width || !parts.length) return [text];
  const lead = /^ */.exec(text)![0];
  parts[0] = { plain: lead + parts[0]!.plain, shown: lead + parts[0]!.shown };
  return wrapParts(parts, width, ' ', measure, lead + indent);
}
