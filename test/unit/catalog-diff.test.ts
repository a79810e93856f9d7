// catalog/diff.ts on its own (issue 45: it had no unit test): two sorted
// listings walked together, each change's code, the statistics, and the
// tables and rows of two SQL fingerprints.
import { describe, expect, it } from 'vitest';
import { bytesText, diffListings, diffTables, emptyStats, type DiffChange } from '../../src/catalog/diff.js';
import type { ListingEntry } from '../../src/catalog/listing.js';
import type { BackupFingerprint } from '../../src/state/catalog.js';

const f = (path: string, size: number, crc: string, more: Partial<ListingEntry> = {}): ListingEntry => ({ path, type: 'f', size, mode: 0o644, uid: 0, gid: 0, mtime: 0, crc, ...more });
const d = (path: string): ListingEntry => ({ path, type: 'd', size: 0, mode: 0o755, uid: 0, gid: 0, mtime: 0, crc: '' });
async function* of(entries: ListingEntry[]) {
  yield* entries;
}
async function diff(a: ListingEntry[], b: ListingEntry[]) {
  const stats = emptyStats();
  const out: DiffChange[] = [];
  for await (const c of diffListings(of(a), of(b), stats)) out.push(c);
  return { changes: out.map((c) => `${c.change} ${c.path}`), all: out, stats };
}

describe('diffListings', () => {
  it('names each change by its code, in path order, and counts them', async () => {
    const older = [d('a/'), f('a/gone.txt', 10, '00000001'), f('a/same.txt', 5, '00000002'), f('a/meta.txt', 7, '00000003'), f('a/body.txt', 4, '00000004'), f('a/type', 3, '00000005')];
    const newer = [
      d('a/'),
      f('a/body.txt', 6, '0000000f'),
      f('a/meta.txt', 7, '00000003', { mode: 0o600 }),
      f('a/new.txt', 20, '00000006'),
      f('a/same.txt', 5, '00000002'),
      { ...d('a/type'), path: 'a/type' },
    ].sort((x, y) => (x.path < y.path ? -1 : 1));
    older.sort((x, y) => (x.path < y.path ? -1 : 1));
    const r = await diff(older, newer);
    expect(r.changes).toEqual(['M a/body.txt', '- a/gone.txt', 'U a/meta.txt', '+ a/new.txt', 'T a/type']);
    expect(r.all.find((c) => c.change === 'M')).toMatchObject({ size: 6, old_size: 4 });
    expect(r.all.find((c) => c.change === 'U')).toMatchObject({ old_mode: 0o644, mode: 0o600 });
    expect(r.stats).toEqual({
      files: { added: 1, removed: 2, changed: 1, metadata: 1 },
      dirs: { added: 1, removed: 0 },
      others: { added: 0, removed: 0 },
      bytes: { added: 20, removed: 13, changed_before: 4, changed_after: 6 },
    });
  });

  it('a same-sized file with another CRC-32 changed; a link with another target too; identical listings say nothing', async () => {
    expect((await diff([f('x', 4, 'aaaaaaaa')], [f('x', 4, 'bbbbbbbb')])).changes).toEqual(['M x']);
    const link = (target: string): ListingEntry => ({ path: 'l', type: 'l', size: 0, mode: 0o777, uid: 0, gid: 0, mtime: 0, crc: '', link: target });
    expect((await diff([link('a')], [link('b')])).changes).toEqual(['M l']);
    const same = [d('a/'), f('a/x', 1, '00000001')];
    const r = await diff(same, same.map((e) => ({ ...e, mtime: 99 })));
    expect(r.changes).toEqual([]);
    expect(r.stats).toEqual(emptyStats());
  });
});

describe('diffTables', () => {
  const fp = (tables: Record<string, number> | null): BackupFingerprint =>
    ({ files: tables ? [{ sql: { tables } }] : [{}] }) as unknown as BackupFingerprint;
  it('tables added, dropped, and rows gained or lost; none for two archives', () => {
    expect(diffTables(fp({ orders: 840, notes: 100, old: 3 }), fp({ orders: 85, notes: 100, fresh: 2 }))).toEqual([
      { table: 'fresh', change: '+', rows_before: null, rows_after: 2 },
      { table: 'old', change: '-', rows_before: 3, rows_after: null },
      { table: 'orders', change: 'rows', rows_before: 840, rows_after: 85 },
    ]);
    expect(diffTables(fp(null), fp(null))).toBeUndefined();
  });
  it('bytesText', () => {
    expect([bytesText(1023), bytesText(1536), bytesText(5 * 1024 * 1024)]).toEqual(['1023 B', '1.5 KiB', '5.0 MiB']);
  });
});
