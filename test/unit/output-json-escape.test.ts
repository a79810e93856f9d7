// Characters that can steer a terminal (DEL, C1 controls such as the one-byte
// CSI U+009B, bidi overrides) are written as \uXXXX in JSON, in every record:
// a regression test for a /g pattern whose lastIndex skipped the next record.
import { describe, expect, it } from 'vitest';
import { render } from '../../src/output/index.js';
import { memoryIO } from '../helpers/fuzz.js';

describe('JSON escaping', () => {
  it('escapes terminal-steering characters in every record, and the JSON stays the same data', async () => {
    const records = Array.from({ length: 5 }, (_, i) => ({ id: i, name: `x\u009b31m\u202e${i}\u007f` }));
    for (const format of ['ndjson', 'json'] as const) {
      const io = memoryIO();
      await render(
        { kind: 'list', pages: (async function* () { yield records; })(), columns: [], idField: 'id' },
        { format, quiet: false, noHeaders: false, color: false, pretty: false },
        io,
      );
      expect(io.out()).not.toMatch(/[\u007f-\u009f\u202a-\u202e]/);
      expect(io.out().match(/\\u009b/g)).toHaveLength(5);
      const parsed = format === 'json' ? JSON.parse(io.out()) : io.out().trim().split('\n').map((l) => JSON.parse(l));
      expect(parsed).toEqual(records);
    }
  });
});
