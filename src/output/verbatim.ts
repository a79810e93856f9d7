// The records of a list page as the service wrote them (issue 31, the transport at the floor):
// `--all -o ndjson` and compact `--json` copy each record's own bytes from the answer instead
// of serialising again what JSON.parse made of it.
//
// Where the records are in the answer: src/http/scan.ts. What is kept is tied to the very array
// of records the client parsed (a property of that array: a copy of it has none) and to the very
// record objects in it (checked one by one when the page is written), and only for pages whose
// caller asked for it (`pages(req, { verbatim: true })`): the generic list handler, which hands
// the client's records to the renderer untouched. A record built or copied anywhere else is
// serialised as before; code that changes a record in place must not ask for verbatim pages.
//
// Byte for byte what serialising would write, except where JSON spells one value two ways:
// numbers as the service wrote them (`1.0`, `1e3`, `-0`; integers past 2^53 keep their digits),
// string escapes as the service wrote them (`\u00e9`, `\/`), and a key the service wrote twice
// in one object is written twice (JSON.parse, jq and Python keep the last one, as serialising
// would). A record written with whitespace outside its strings (a pretty answer), and every
// record of a page holding a DEL, C1 or bidi character, is serialised (docs/output.md,
// "Records as the service sent them").

/** Where the elements of an answer's `data` array are in its text (src/http/scan.ts). */
export interface DataSpans {
  /** Index of each element's first character in the text; -1 for one that is not an object written compactly. */
  starts: number[];
  /** Index after each element's last character. */
  ends: number[];
}

/** A page kept: the answer's bytes, each record's span in them (start -1: serialise it), the records. */
interface KeptPage {
  bytes: Buffer;
  starts: number[];
  ends: number[];
  records: readonly unknown[];
  /** Every record kept, one comma between two, and the array's brackets around them: the page is one span (until written once). */
  whole: boolean;
}

/** Where a page's KeptPage is: a non-enumerable property of the very array of records. */
const KEPT = Symbol('verbatim page');

// JSON.stringify escapes C0 controls (ESC included) but leaves DEL, the C1 controls (U+009B is
// a one-byte CSI) and bidi overrides raw; the renderer writes them as \uXXXX (render.ts). A page
// holding one is not kept: the renderer's own path escapes it.
export const JSON_UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// A separate, non-global pattern for the test: .test() on a /g pattern keeps lastIndex.
export const HAS_JSON_UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/**
 * Keeps the page `records`, the `data` array JSON.parse made of `text` (decoded from `bytes`),
 * with the span in `bytes` of each element written as a compact object (`data`: the spans in
 * `text`). A page holding a DEL, C1 or bidi character is not kept: the renderer escapes those.
 */
export function keepPage(records: readonly unknown[], text: string, bytes: Buffer, data: DataSpans): void {
  const n = records.length;
  if (data.starts.length !== n || n === 0) return;
  // Bytes that are not UTF-8 were decoded as U+FFFD: the answer's bytes are not its text (a lone
  // 0x9b byte would even reach the terminal as a CSI), so such a page is serialised. Without
  // one, as many characters as bytes means ASCII, where character and byte indexes agree.
  if (text.includes('\ufffd')) return;
  const ascii = text.length === bytes.length;
  // ASCII text holds no C1 or bidi character, and a DEL is found at once.
  if (text.includes('\x7f') || (!ascii && HAS_JSON_UNSAFE.test(text))) return;
  let starts = data.starts;
  let ends = data.ends;
  if (!ascii) {
    // Character indexes are byte indexes in ASCII text; else each span is measured in UTF-8.
    starts = new Array<number>(n);
    ends = new Array<number>(n);
    let charAt = 0;
    let byteAt = 0;
    for (let i = 0; i < n; i++) {
      const start = data.starts[i]!;
      starts[i] = -1;
      if (start < 0) continue;
      byteAt += Buffer.byteLength(text.slice(charAt, start));
      starts[i] = byteAt;
      byteAt += Buffer.byteLength(text.slice(start, data.ends[i]));
      ends[i] = byteAt;
      charAt = data.ends[i]!;
    }
  }
  // Every element a compact object: they follow one another, a comma between two, inside the brackets.
  const whole = !starts.includes(-1);
  if (!whole && starts.every((s) => s < 0)) return;
  Object.defineProperty(records, KEPT, { value: { bytes, starts, ends, records: records.slice(), whole } satisfies KeptPage, configurable: true });
}

const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const NEWLINE = 0x0a;

/**
 * The page as ndjson: each record and a newline. Undefined when the client kept nothing of the
 * page (the caller writes it its own way); a record not kept is serialised by `serialise`.
 */
export function ndjsonBytes(page: readonly unknown[], serialise: (record: unknown) => string): Buffer | undefined {
  const k = keptPage(page);
  if (!k) return undefined;
  if (!k.whole) return joined(k, page, '', '\n', '\n', serialise);
  // The answer's own bytes from the first record to the closing bracket, each comma between two
  // records and the bracket made a newline: no copy. (The answer is ours: read once, decoded.)
  const { bytes, ends } = k;
  for (let i = 0; i < ends.length; i++) bytes[ends[i]!] = NEWLINE;
  // The separators are changed: written again, the page is copied span by span (spans hold none).
  k.whole = false;
  return bytes.subarray(k.starts[0], ends[ends.length - 1]! + 1);
}

/**
 * The page as part of one JSON array: `[` (the first page) or `,`, then the records separated by
 * commas. Undefined when the client kept nothing of the page, as ndjsonBytes.
 */
export function jsonArrayBytes(page: readonly unknown[], first: boolean, serialise: (record: unknown) => string): Buffer | undefined {
  const k = keptPage(page);
  if (!k) return undefined;
  if (!k.whole) return joined(k, page, first ? '[' : ',', ',', '', serialise);
  // The answer's own bytes from its `[` to the last record, the bracket made a comma after the first page.
  const start = k.starts[0]! - 1;
  k.bytes[start] = first ? OPEN_BRACKET : COMMA;
  k.whole = false;
  return k.bytes.subarray(start, k.ends[k.ends.length - 1]);
}

/** What was kept of `page`, if it is still the array of the very records kept. */
function keptPage(page: readonly unknown[]): KeptPage | undefined {
  const k = (page as { [KEPT]?: KeptPage })[KEPT];
  if (!k || k.records.length !== page.length) return undefined;
  for (let i = 0; i < page.length; i++) if (page[i] !== k.records[i]) return undefined;
  return k;
}

/** `lead`, the records separated by `sep`, then `tail` (ASCII all three): kept ones copied, the others serialised. */
function joined(k: KeptPage, page: readonly unknown[], lead: string, sep: string, tail: string, serialise: (record: unknown) => string): Buffer {
  const n = page.length;
  let size = lead.length + tail.length + sep.length * (n - 1);
  const others: Array<Buffer | undefined> = [];
  for (let i = 0; i < n; i++) {
    if (k.starts[i]! >= 0) size += k.ends[i]! - k.starts[i]!;
    else {
      const b = Buffer.from(serialise(page[i]), 'utf8');
      others[i] = b;
      size += b.length;
    }
  }
  const out = Buffer.allocUnsafe(size);
  let at = ascii(out, 0, lead);
  for (let i = 0; i < n; i++) {
    if (i > 0) at = ascii(out, at, sep);
    const other = others[i];
    at += other ? other.copy(out, at) : k.bytes.copy(out, at, k.starts[i]!, k.ends[i]!);
  }
  ascii(out, at, tail);
  return out;
}

function ascii(out: Buffer, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) out[at++] = s.charCodeAt(i);
  return at;
}
