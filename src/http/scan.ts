// Where the records of a list answer are in its text (issue 31, the transport at the floor), so
// that src/output/verbatim.ts can keep each record's own bytes for compact JSON and ndjson.
//
// Small on purpose: one short loop, which V8 compiles in a few milliseconds. A general scanner
// of the whole answer (every key of the top level, its depth) took 30-45 ms of TurboFan
// compiling on a loaded 2-core machine, more than serialising 10,000 records costs.
import type { DataSpans } from '../output/verbatim.js';

/** How a list answer of the API begins: its records first (as Laravel's pagination writes them). */
const DATA_OPEN = '{"data":[';

/**
 * The spans of the `data` array's elements in `text`, which JSON.parse has accepted (nothing
 * here validates JSON), when the text begins `{"data":[` and names no other `data` after the
 * array (a later key would replace it in JSON.parse; an escaped spelling of one is not looked
 * for, so text after the array holding a backslash counts as one). Otherwise undefined.
 */
export function dataSpans(text: string): DataSpans | undefined {
  if (!text.startsWith(DATA_OPEN)) return undefined;
  const starts: number[] = [];
  const ends: number[] = [];
  const n = text.length;
  let start = DATA_OPEN.length;
  if (text.charCodeAt(start) === 0x5d) return afterData(text, start + 1) ? { starts, ends } : undefined;
  let depth = 0;
  let compact = true;
  for (let i = start; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // The end of the string: the next quote not escaped (an odd run of backslashes before it).
      let end = text.indexOf('"', i + 1);
      while (text.charCodeAt(end - 1) === 0x5c) {
        let b = end - 2;
        while (text.charCodeAt(b) === 0x5c) b--;
        if ((end - b) % 2 === 1) break;
        end = text.indexOf('"', end + 1);
      }
      if (end < 0) return undefined;
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) {
        // The array's closing bracket.
        starts.push(compact && text.charCodeAt(start) === 0x7b ? start : -1);
        ends.push(i);
        return afterData(text, i + 1) ? { starts, ends } : undefined;
      }
      depth--;
    } else if (c === 0x2c) {
      if (depth === 0) {
        starts.push(compact && text.charCodeAt(start) === 0x7b ? start : -1);
        ends.push(i);
        start = i + 1;
        compact = true;
      }
    } else if (c <= 0x20) {
      // JSON's whitespace (space, tab, CR, LF): outside strings, the element is not compact.
      compact = false;
    }
  }
  return undefined;
}

/** Whether the text after the data array is free of anything that could be a second `data` key. */
function afterData(text: string, from: number): boolean {
  return text.indexOf('"data"', from) < 0 && text.indexOf('\\', from) < 0;
}
