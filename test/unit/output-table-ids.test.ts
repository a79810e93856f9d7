// On a narrow terminal the other columns give way: an id is never cut, since
// it is what people copy out of a table.
import { describe, expect, it } from 'vitest';
import { render } from '../../src/output/index.js';
import { fitColumns } from '../../src/output/table.js';
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

describe('fitColumns', () => {
  it('keeps every column when the narrowest widths fit, cutting the widest first', () => {
    expect(fitColumns([36, 30, 20], [36, 16, 8], 80, [2, 1])).toEqual({ keep: [0, 1, 2], widths: [36, 20, 20] });
  });

  it('leaves columns out in the order given while even their narrowest widths do not fit', () => {
    // 36 + 2 + 16 + 2 + 8 + 2 + 8 = 74 > 60: the last goes, then 64 > 60: the one before it.
    expect(fitColumns([36, 20, 12, 12], [36, 16, 8, 8], 60, [3, 2, 1])).toEqual({ keep: [0, 1], widths: [36, 20] });
    expect(fitColumns([36, 20, 12, 12], [36, 16, 8, 8], 200, [3, 2, 1])).toEqual({ keep: [0, 1, 2, 3], widths: [36, 20, 12, 12] });
  });

  it('leaves out the columns marked to go early, whole, before cutting any other (issue 25)', () => {
    // 8 + 14 + 10 + 11 + 35 + 12 + 5 gaps of 2: too wide for 60; Storage (4) and Compute (3) go, then it fits uncut.
    expect(fitColumns([8, 14, 10, 13, 11, 35, 12], [8, 14, 8, 8, 8, 8, 12], 60, [6, 5, 4, 3, 2, 1], [5, 3, 2]).keep).toEqual([0, 1, 4, 6]);
  });

  it('with nothing left to leave out, fits what it can', () => {
    expect(fitColumns([36, 20], [36, 16], 40, [])).toEqual({ keep: [0, 1], widths: [36, 16] });
  });
});
