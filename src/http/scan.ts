// One pass over a JSON answer that JSON.parse accepted: how deep it nests (the limit on an
// answer's depth, see client.ts) and where the elements of its `data` array begin and end, so
// that src/output/verbatim.ts can keep each record's own text (issue 31).
import type { AnswerScan, ScannedElement } from '../output/verbatim.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * One pass over `text`, which JSON.parse has accepted (the scanner does not validate): how
 * deep it nests, stopping once past `maxDepth`, and where the `data` array's elements begin
 * and end when the text is an object holding one. Strings are skipped with indexOf (most of
 * an answer is strings); the characters between them are looked at one by one.
 */
export function scanAnswer(text: string, maxDepth: number): AnswerScan {
  const n = text.length;
  let depth = 0;
  let deepest = 0;
  let elements: ScannedElement[] | undefined;
  // Inside the data array: the depth of its elements, where the current one began, and its state.
  let inData = false;
  let elementStart = -1;
  let keys = 0;
  let compact = true;
  // At depth 1 of a top-level object: the last key read, whether it was "data".
  let keyIsData = false;
  let expectKey = false;
  let topIsObject = false;
  const finish = (end: number) => {
    if (elementStart >= 0) {
      const slice = text.slice(elementStart, end);
      elements!.push({ text: slice, keys: compact && text.charCodeAt(elementStart) === OPEN_BRACE ? keys : -1 });
    }
    elementStart = -1;
  };
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // The end of the string: the next quote not escaped (an odd run of backslashes before it).
      let end = text.indexOf('"', i + 1);
      for (;;) {
        if (end < 0) return { depth: deepest };
        let b = end - 1;
        while (text.charCodeAt(b) === BACKSLASH) b--;
        if ((end - 1 - b) % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (inData && depth === 2 && elementStart < 0) {
        elementStart = i;
        keys = 0;
        compact = true;
      }
      if (depth === 1 && topIsObject && expectKey) {
        const key = text.slice(i + 1, end);
        keyIsData = key === 'data' || (key.includes('\\') && JSON.parse(`"${key}"`) === 'data');
        // A later `data` key replaces an earlier one, as it does in JSON.parse.
        if (keyIsData) elements = undefined;
        expectKey = false;
      }
      i = end;
      continue;
    }
    switch (c) {
      case OPEN_BRACE:
      case OPEN_BRACKET:
        if (inData && depth === 2 && elementStart < 0) {
          elementStart = i;
          keys = 0;
          compact = true;
        }
        depth++;
        if (depth > deepest) {
          deepest = depth;
          if (deepest > maxDepth) return { depth: deepest };
        }
        if (depth === 1) {
          topIsObject = c === OPEN_BRACE;
          expectKey = topIsObject;
        } else if (depth === 2 && keyIsData && c === OPEN_BRACKET) {
          inData = true;
          elements = [];
        }
        break;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        if (inData && depth === 2) {
          // The end of the data array.
          finish(i);
          inData = false;
        }
        depth--;
        if (inData && depth === 2) finish(i + 1);
        if (depth === 1) keyIsData = false;
        break;
      case COMMA:
        if (inData && depth === 2) finish(i);
        else if (depth === 1) {
          expectKey = topIsObject;
          keyIsData = false;
        }
        break;
      case COLON:
        if (inData) keys++;
        break;
      case 0x20:
      case 0x09:
      case 0x0a:
      case 0x0d:
        if (inData) compact = false;
        break;
      default:
        // A number, true, false or null: its first character begins an element of the data array.
        if (inData && depth === 2 && elementStart < 0) {
          elementStart = i;
          keys = 0;
          compact = true;
        }
    }
  }
  return elements ? { depth: deepest, elements } : { depth: deepest };
}
