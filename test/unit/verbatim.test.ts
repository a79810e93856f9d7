// The records of a list page as the service wrote them (issue 31): src/http/scan.ts finds the
// `data` array's elements in the answer's text, src/output/verbatim.ts keeps their bytes for the
// very array of records parsed from it, and the ndjson and compact --json renderers write them.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dataSpans } from '../../src/http/scan.js';
import { keepPage } from '../../src/output/verbatim.js';
import { render } from '../../src/output/index.js';
import { memoryIO } from '../helpers/fuzz.js';

// Strings full of what a scanner can trip on: quotes, backslashes, brackets, commas, colons, spaces, non-ASCII.
const tricky = fc.string({ unit: fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\n', 'a', 'é', '€', '😀', '/', 'u') });
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    tricky,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(tricky, tie('v'), { maxKeys: 4 }),
  ),
})).v;
const element = fc.oneof(fc.dictionary(tricky, value, { maxKeys: 5 }), value);

/** Each element's own text, or undefined where the scan says "serialise it". */
function slices(text: string): Array<string | undefined> | undefined {
  const spans = dataSpans(text);
  return spans?.starts.map((s, i) => (s < 0 ? undefined : text.slice(s, spans.ends[i])));
}

describe('dataSpans', () => {
  it('finds every element of a compact answer: objects as their slices, which parse to the same element', () => {
    fc.assert(
      fc.property(fc.array(element, { maxLength: 8 }), tricky, (data, label) => {
        const text = JSON.stringify({ data, links: { next: null, label }, meta: { last_page: 1 } });
        const got = slices(text);
        if (/data|\\/.test(JSON.stringify(label))) {
          // Text after the array that could be a second data key: no spans at all.
          expect(got).toBeUndefined();
          return;
        }
        expect(got).toHaveLength(data.length);
        got!.forEach((slice, i) => {
          const isObject = data[i] !== null && typeof data[i] === 'object' && !Array.isArray(data[i]);
          if (!isObject) return expect(slice).toBeUndefined();
          expect(slice).toBe(JSON.stringify(data[i]));
          expect(JSON.parse(slice!)).toEqual(JSON.parse(JSON.stringify(data[i])));
        });
      }),
      { numRuns: 400 },
    );
  });

  it('an element written with whitespace outside its strings is left to be serialised; its neighbours are still found', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.dictionary(tricky, value, { maxKeys: 4 }), fc.boolean()), { maxLength: 6 }), (items) => {
        const texts = items.map(([el, pretty]) => (pretty ? JSON.stringify(el, null, 1) : JSON.stringify(el)));
        const got = slices(`{"data":[${texts.join(',')}],"meta":{}}`);
        expect(got).toEqual(texts.map((t) => (/^\{\n/.test(t) ? undefined : t)));
      }),
      { numRuns: 300 },
    );
  });

  it('pretty or odd answers give no text to copy', () => {
    const data = [{ id: 'a', n: 1 }, { id: 'b' }];
    expect(dataSpans(JSON.stringify({ data }, null, 2))).toBeUndefined();
    expect(dataSpans(JSON.stringify({ meta: {}, data }))).toBeUndefined();
    expect(dataSpans(JSON.stringify(data))).toBeUndefined();
    // A second data key after the array: JSON.parse keeps that one.
    expect(dataSpans('{"data":[{"a":1}],"data":[{"b":2}]}')).toBeUndefined();
    expect(dataSpans('{"data":[{"a":1}],"d\\u0061ta":[{"b":2}]}')).toBeUndefined();
    // Whitespace inside or around one element: that one is serialised, the others kept.
    expect(slices('{"data":[{"a": 1},{"b":2}, {"c":3},{"d":[4, 5]},{"e":"x y"}]}')).toEqual([undefined, '{"b":2}', undefined, undefined, '{"e":"x y"}']);
    expect(slices('{"data":[]}')).toEqual([]);
    expect(slices('{"data":[1,"x",[2],null,{"k":"\\\\"}]}')).toEqual([undefined, undefined, undefined, undefined, '{"k":"\\\\"}']);
  });
});

/** A page as the client makes it: parsed, and its bytes kept. */
function page(text: string): unknown[] {
  const records = (JSON.parse(text) as { data: unknown[] }).data;
  keepPage(records, text, Buffer.from(text, 'utf8'), dataSpans(text)!);
  return records;
}

async function print(format: 'ndjson' | 'json', pages: unknown[][]): Promise<string> {
  const io = memoryIO();
  await render(
    { kind: 'list', pages: (async function* () { yield* pages; })(), columns: [], idField: 'id' },
    { format, quiet: false, noHeaders: false, color: false, pretty: false },
    io,
  );
  return io.out();
}

describe('records written as sent', () => {
  const text1 = '{"data":[{"id":"a","v":1.0,"big":12345678901234567891},{"id":"b","s":"caf\\u00e9","w":"ü"}],"meta":{"last_page":2}}';
  const text2 = '{"data":[{"id":"c","v":2.50}]}';

  it('ndjson and --json write the kept texts, pages joined as one array', async () => {
    expect(await print('ndjson', [page(text1), page(text2)])).toBe(
      '{"id":"a","v":1.0,"big":12345678901234567891}\n{"id":"b","s":"caf\\u00e9","w":"ü"}\n{"id":"c","v":2.50}\n',
    );
    expect(await print('json', [page(text1), page(text2)])).toBe('[{"id":"a","v":1.0,"big":12345678901234567891},{"id":"b","s":"caf\\u00e9","w":"ü"},{"id":"c","v":2.50}]\n');
  });

  it('never a stale text: a page whose array changed (a record replaced, the array copied or reordered) is serialised whole', async () => {
    const replaced = page(text1);
    replaced[0] = { ...(replaced[0] as object), v: 7 };
    expect(await print('ndjson', [replaced])).toBe('{"id":"a","v":7,"big":12345678901234567000}\n{"id":"b","s":"café","w":"ü"}\n');
    const copied = page(text1).map((r) => r);
    expect(await print('ndjson', [copied])).toBe('{"id":"a","v":1,"big":12345678901234567000}\n{"id":"b","s":"café","w":"ü"}\n');
    const reordered = page(text1).reverse();
    expect(await print('json', [reordered])).toBe('[{"id":"b","s":"café","w":"ü"},{"id":"a","v":1,"big":12345678901234567000}]\n');
  });

  it('a page written twice (ndjson, then --json) is the same text both times', async () => {
    const p = page(text1);
    const once = await print('ndjson', [p]);
    expect(await print('ndjson', [p])).toBe(once);
    expect(await print('json', [p])).toBe(`[${once.trimEnd().split('\n').join(',')}]\n`);
  });

  it('a page whose bytes are not UTF-8 is serialised: U+FFFD as decoded, never the raw bytes (a lone 0x9b is a CSI)', async () => {
    for (const bad of [[0x9b], [0x80], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80]]) {
      const bytes = Buffer.concat([Buffer.from('{"data":[{"id":"x","n":"a'), Buffer.from(bad), Buffer.from('b","v":1.0}]}')]);
      const text = bytes.toString('utf8');
      const records = (JSON.parse(text) as { data: unknown[] }).data;
      keepPage(records, text, bytes, dataSpans(text)!);
      const io = memoryIO();
      await render(
        { kind: 'list', pages: (async function* () { yield records; })(), columns: [], idField: 'id' },
        { format: 'ndjson', quiet: false, noHeaders: false, color: false, pretty: false },
        io,
      );
      expect(io.out()).toBe(`${JSON.stringify(records[0])}\n`);
      expect(io.out()).toContain('\ufffd');
    }
  });

  it('a page holding DEL, C1 or bidi characters is serialised and escaped', async () => {
    for (const c of ['\u007f', '\u009b', '\u202e', '\u2066']) {
      const out = await print('ndjson', [page(`{"data":[{"id":"x","n":"a${c}b","v":1.0}]}`)]);
      expect(out).toBe(`{"id":"x","n":"a\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}b","v":1}\n`);
    }
  });
});
