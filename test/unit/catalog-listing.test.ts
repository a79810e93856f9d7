// The catalog's listing (issue 33 §1): written in any order, read back sorted, a path written twice keeps its
// last entry (as tar extraction does), across runs that are merged; ransom-note names and entropy.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ListingWriter, readListing, modeText, type ListingEntry } from '../../src/catalog/listing.js';
import { entropy, isRansomNoteName } from '../../src/catalog/fingerprint.js';
import { compareListings } from '../../src/catalog/anomalies.js';

const e = (p: string, crc = '00000000', mode = 0o644): ListingEntry => ({ path: p, type: 'f', size: 1, mode, uid: 0, gid: 0, mtime: 0, crc });

async function list(entries: ListingEntry[], dir: string, name: string): Promise<string> {
  const file = path.join(dir, name);
  const w = new ListingWriter(file);
  for (const x of entries) await w.add(x);
  await w.finish();
  return file;
}

describe('catalog listing', () => {
  it('sorts by path in byte order and keeps the last copy of a path, across merged runs', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-listing-'));
    try {
      const many = Array.from({ length: 120_000 }, (_, i) => e(`p${(i * 7919) % 120_000}`));
      many.push(e('p5', 'ffffffff'));
      const file = await list(many, dir, 'a.ndjson.gz');
      const got: ListingEntry[] = [];
      for await (const x of readListing(file)) got.push(x);
      expect(got).toHaveLength(120_000);
      expect(got.map((x) => x.path)).toEqual([...got.map((x) => x.path)].sort());
      expect(got.find((x) => x.path === 'p5')?.crc).toBe('ffffffff');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts renames (a name with an extension added), removals, additions and changes', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-listing-'));
    try {
      const a = await list([e('a.doc'), e('b.doc'), e('c.txt'), e('d.txt')], dir, 'a.gz');
      const b = await list([e('a.doc.locked', '11111111'), e('b.doc'), e('c.txt', '22222222'), e('new.txt')], dir, 'b.gz');
      const c = await compareListings(readListing(a), readListing(b));
      expect(c).toMatchObject({ renamed: 1, removed: 1, added: 1, changed: 1, before_files: 4 });
      expect(c.renamed_examples).toEqual(['a.doc -> a.doc.locked']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names ransom notes but not an ordinary README', () => {
    for (const n of ['README_RESTORE_FILES.txt', 'HOW_TO_DECRYPT.txt', 'x/_readme.txt', 'RECOVER-FILES.html', 'Your_Files_Are_Encrypted.txt']) expect(isRansomNoteName(n), n).toBe(true);
    for (const n of ['README.txt', 'readme.md', 'docs/restore.sh', 'decrypt.py']) expect(isRansomNoteName(n), n).toBe(false);
  });

  it('entropy: random bytes near 8, text near 4, nothing at 0', () => {
    expect(entropy(randomBytes(16384))).toBeGreaterThan(7.9);
    expect(entropy(Buffer.from('the quick brown fox jumps over the lazy dog '.repeat(300)))).toBeLessThan(4.5);
    expect(entropy(Buffer.alloc(0))).toBe(0);
    expect(modeText('d', 0o755)).toBe('drwxr-xr-x');
  });
});
