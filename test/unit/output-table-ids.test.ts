// On a narrow terminal the other columns give way: an id is never cut, since
// it is what people copy out of a table.
import { describe, expect, it } from 'vitest';
import { render } from '../../src/output/index.js';
import { memoryIO } from '../helpers/fuzz.js';

describe('table widths', () => {
  it('keeps whole UUIDs in the id column and cuts the rest', async () => {
    const id = '78430b6b-d234-43bb-a2c8-e71bb68f1ab1';
    const io = memoryIO({ tty: true, columns: 70 });
    await render(
      {
        kind: 'list',
        pages: (async function* () {
          yield [{ id, name: 'a name long enough to be cut somewhere', storage: 'Primary object storage, Offsite copy' }];
        })(),
        columns: [
          { key: 'id', header: 'ID' },
          { key: 'name', header: 'Name' },
          { key: 'storage', header: 'Storage' },
        ],
        idField: 'id',
      },
      { format: 'table', quiet: false, noHeaders: false, color: false, pretty: true },
      io,
    );
    const row = io.out().split('\n')[1]!;
    expect(row.startsWith(`${id}  `)).toBe(true);
    expect(row).toContain('…');
    expect(Math.max(...io.out().trimEnd().split('\n').map((l) => l.trimEnd().length))).toBeLessThanOrEqual(70);
  });
});
