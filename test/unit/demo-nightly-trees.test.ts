// The demo's nightly archives evolve a little each night (issue 42.12): a job's
// tar.gz and zip keep their file names from night to night, a few renamed a
// night, so `anomalies` on the plain demo finds nothing (it flagged 27 of 28
// nights of "marketing site" as "vanished" when every night had new names).
import { describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { buildArchive, lineageOf } from '../../src/emulator/archives.js';
import { createRng, randInt } from '../../src/emulator/util.js';

/** The names of the regular files of a tar. */
function tarNames(tar: Buffer): string[] {
  const out: string[] = [];
  for (let at = 0; at + 512 <= tar.length; ) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const name = h.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(h.subarray(124, 136).toString('ascii').replace(/\0.*$/s, '').trim() || '0', 8);
    if (h[156] === 0x30 || h[156] === 0) out.push(name);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

/** The names of a zip's entries, from its central directory. */
function zipNames(zip: Buffer): string[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = zip.readUInt16LE(at + 28), x = zip.readUInt16LE(at + 30), c = zip.readUInt16LE(at + 32);
    out.push(zip.subarray(at + 46, at + 46 + n).toString('utf8'));
    at += 46 + n + x + c;
  }
  return out;
}

const DAY = 86_400_000;
const stamp = (t: number) => new Date(t).toISOString().slice(0, 19).replace('T', '_').replace(/:/g, '-');

describe('the demo\'s nightly trees', () => {
  it('lineageOf reads the job and the day from a backup file\'s name', () => {
    const a = lineageOf('archive-files-2026-11-20_09-00-12.tar.gz');
    const b = lineageOf('archive-files-2026-11-21_09-01-40.tar.gz');
    expect(b.seed).toBe(a.seed);
    expect(b.day - a.day).toBe(1);
    expect(lineageOf('git-server-2026-11-21_09-01-40.tar.gz').seed).not.toBe(a.seed);
  });

  it.each([['tar.gz', 'archive-files', 40], ['zip', 'marketing-site', 13]] as const)('a %s keeps its files from night to night, whatever the night\'s size: one changes a night, a tenth at most in a month', (kind, job, files) => {
    const rng = createRng(42);
    const start = Date.parse('2026-10-01T03:00:00Z');
    const nights = Array.from({ length: 36 }, (_, d) => {
      // Sizes as the seed draws them (seededFileSize): 8 KiB to 300 KiB, any night.
      const bytes = buildArchive({ kind, name: `${job}-${stamp(start + d * DAY)}.${kind}`, length: randInt(rng, 32, 1200) * 256 });
      return kind === 'zip' ? zipNames(bytes) : tarNames(gunzipSync(bytes));
    });
    for (const names of nights) expect(names).toHaveLength(files);
    let changed = 0;
    for (let d = 1; d < nights.length; d++) {
      const before = new Set(nights[d - 1]);
      const gone = nights[d]!.filter((n) => !before.has(n)).length;
      expect(gone).toBeLessThanOrEqual(1); // a new word may be the old one
      changed += gone;
    }
    expect(changed).toBeGreaterThan(20);
    const month = new Set(nights[0]);
    expect(nights[29]!.filter((n) => !month.has(n)).length).toBeLessThanOrEqual(Math.ceil(files / 10));
  });
});
