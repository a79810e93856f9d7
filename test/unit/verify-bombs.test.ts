// verify's bounds against decompression bombs (issue 23 finding 7), at the
// level of the content checks: refused quickly, with the setting that raises
// each bound named; stopped by the abort signal in the middle of the work.
import { describe, expect, it, vi } from 'vitest';
import yauzl from 'yauzl';
import { Readable } from 'node:stream';
import { buildArchive } from '../../src/emulator/archives.js';
import { hostileArchive, hostileLength } from '../../src/emulator/hostile-archives.js';
import type { InspectOptions } from '../../src/pipeline/content/check.js';
import { inspect } from '../../src/pipeline/content/stage.js';

async function feed(bytes: Buffer, options: InspectOptions = {}) {
  const check = inspect(options);
  for (let i = 0; i < bytes.length; i += 512 * 1024) await check.write(bytes.subarray(i, i + 512 * 1024));
  return check.end();
}

describe('hostile archives of the emulator', () => {
  it('are as long as hostileLength says', () => {
    for (const kind of ['zip-bomb', 'zip-zeros', 'gzip-zeros'] as const) expect(hostileArchive(kind).length, kind).toBe(hostileLength(kind));
  });

  it('checksum lists are whole "<sha256>  <name>" lines at every length', () => {
    for (let length = 68; length < 1200; length += 13) {
      const text = buildArchive({ kind: 'checksums', name: `list-${length}`, length }).toString();
      expect(text.length).toBe(length);
      expect(text.endsWith('\n')).toBe(true);
      for (const line of text.slice(0, -1).split('\n')) expect(line).toMatch(/^[0-9a-f]{64} {2}\S+$/);
    }
  });
});

describe('zip bombs', () => {
  it('entries that share stored bytes are refused from the central directory, before any entry is inflated', async () => {
    const bomb = hostileArchive('zip-bomb');
    // Refused quickly, told by the work done rather than the clock (a timed test fails on a loaded machine):
    // not one entry's bytes were opened for inflating.
    const opened = vi.spyOn(yauzl.ZipFile.prototype, 'openReadStream');
    const found = await feed(bomb);
    expect(found.verdict).toBe('failed');
    expect(found.reason).toMatch(/^zip: entries "bomb\/\d+\.bin" and "bomb\/\d+\.bin" overlap \(share stored bytes\): refused as a decompression bomb$/);
    expect(opened).not.toHaveBeenCalled();
    opened.mockRestore();
    // Read by ranges (past the memory limit), the central directory is fetched a window at a time.
    let ranges = 0;
    const byRanges = await feed(bomb, {
      zipMemoryLimit: 1000,
      readRange: (start, end) => {
        ranges++;
        return Readable.from([bomb.subarray(start, end + 1)]);
      },
      totalBytes: () => bomb.length,
    });
    expect(byRanges.reason).toMatch(/overlap/);
    expect(ranges).toBeLessThan(10);
  });

  it('more entries than the bound, or more inflated bytes, are refused naming the setting', async () => {
    const zip = buildArchive({ kind: 'zip', name: 'site-zip', length: 60_000 });
    expect((await feed(zip, { bounds: { maxZipEntries: 2 } })).reason).toMatch(/^zip: lists \d+ entries, more than 2: refused; raise the bound with BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES$/);
    expect((await feed(zip, { bounds: { maxInflatedBytes: 1000 } })).reason).toBe(
      'zip: its entries inflate to more than 1000 bytes: refused; raise the bound with BACKUPCTL_VERIFY_MAX_INFLATED',
    );
    expect((await feed(zip)).verdict).toBe('verified');
  });

  it('an abort stops the inflating of a large zip within a second', async () => {
    const zip = hostileArchive('zip-zeros');
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 300);
    const found = await feed(zip, { signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(1300);
    expect(found.verdict).toBe('failed');
  });
});

describe('gzip bombs', () => {
  it('a gzip expanding past the ratio is refused once past the floor, naming the setting', async () => {
    const bomb = hostileArchive('gzip-zeros');
    const found = await feed(bomb);
    expect(found.reason).toMatch(/^gzip: expands more than 200 times its size \(\d+ bytes gave \d+ and more\): refused as a decompression bomb; raise the bound with BACKUPCTL_VERIFY_MAX_RATIO$/);
    // Refused early, told by the work done rather than the clock: within the first MiB of its 4 MB, not at the end.
    const read = Number(/\((\d+) bytes gave/.exec(found.reason ?? '')?.[1]);
    expect(read).toBeLessThanOrEqual(1024 * 1024);
    expect(read).toBeLessThan(bomb.length / 4);
  });

  it('an abort stops the inflating within a second', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 300);
    const found = await feed(hostileArchive('gzip-zeros'), { signal: controller.signal, bounds: { maxGzipRatio: 1e6 } });
    expect(Date.now() - started).toBeLessThan(1300);
    expect(found.verdict).toBe('failed');
  });
});
