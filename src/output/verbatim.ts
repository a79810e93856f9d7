// The records of a list page as the service wrote them (issue 31, the transport at the floor):
// `--all -o ndjson` and compact `--json` write each record's own text from the answer instead
// of JSON.stringify(JSON.parse(text)), which cost about as much CPU as the rest of a long walk.
//
// The answer is scanned by src/http/scan.ts. The text is tied to the very record object the client parsed it into (a WeakMap), and only
// for pages whose caller asked for it (`pages(req, { verbatim: true })`): the generic list
// handler, which hands the client's records to the renderer untouched. A record built or
// copied anywhere else has no text here, so it is serialised as before. Code that changes a
// record in place must not ask for verbatim pages (see docs/output.md, "Records as sent").
//
// Byte for byte what the renderer would write, except where JSON has two spellings of one
// value: numbers as the service wrote them (`1.0`, `1e3`, integers past 2^53 keep their digits),
// string escapes as the service wrote them (`\u00e9`, `\/`). A record written with whitespace
// outside its strings (a pretty answer), or with a key twice in one object, is serialised.

/** The text of each record the client asked to keep: set by the client, read by the renderer. */
const texts = new WeakMap<object, string>();

/** The service's own text of `record`, when the client kept it (see the module comment). */
export function verbatimText(record: unknown): string | undefined {
  return record !== null && typeof record === 'object' ? texts.get(record) : undefined;
}

/**
 * Keeps each element's text for its record: `records` is the `data` array JSON.parse made of
 * `text`, `scan` the scan of the same text. An element is kept only when it is an object
 * written compactly whose parsed record has as many keys (at every level) as the text names:
 * fewer means a key written twice, which JSON.parse collapsed.
 */
export function keepTexts(records: readonly unknown[], scan: AnswerScan): void {
  const { elements } = scan;
  if (!elements || elements.length !== records.length) return;
  for (let i = 0; i < records.length; i++) {
    const el = elements[i]!;
    const record = records[i];
    if (el.keys < 0 || record === null || typeof record !== 'object' || Array.isArray(record)) continue;
    if (countKeys(record, el.keys) !== el.keys) continue;
    texts.set(record, el.text);
  }
}

/** Keys of `value` at every level, stopping once past `limit`. */
function countKeys(value: object, limit: number): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (v[i] !== null && typeof v[i] === 'object') stack.push(v[i]);
      continue;
    }
    for (const key in v) {
      if (++n > limit) return n;
      const child = (v as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return n;
}

export interface ScannedElement {
  /** The element's text in the answer. */
  text: string;
  /** Keys written in it at every level, or -1 when it is not a compact object. */
  keys: number;
}

export interface AnswerScan {
  /** How deep the text nests (the outermost array or object is 1), up to `maxDepth` + 1. */
  depth: number;
  /** The top-level elements of the answer's `data` array (the last `data` key wins, as in JSON.parse). */
  elements?: ScannedElement[];
}

