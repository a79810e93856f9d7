// The fingerprint parses no archive of its own (issue 33 §1, issue 31 §1): the
// content stage's check walks a tar ONCE (tar-stream's extract is counted: one
// per file, whether the fingerprint listens or not) and a zip once (yauzl, in
// the same check), and hands every member to the fingerprint: listing,
// extensions, entropy, ransom notes and onion addresses, member by member.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { memoryTransfer } from '../helpers/transfer.js';
import { crc32, gzipSync } from 'node:zlib';

const parses = vi.hoisted(() => ({ count: 0 }));
vi.mock('tar-stream', async (importOriginal) => {
  const tar = await importOriginal<typeof import('tar-stream') & { default?: typeof import('tar-stream') }>();
  const extract: typeof tar.extract = (...args) => {
    parses.count++;
    return tar.extract(...args);
  };
  return { ...tar, default: { ...(tar.default ?? tar), extract }, extract };
});

const { readBackups } = await import('../../src/pipeline/index.js');
const { FingerprintSink } = await import('../../src/catalog/fingerprint.js');
const { readListing } = await import('../../src/catalog/listing.js');
const { tarArchive, zipArchive, pseudoRandomBytes } = await import('../../src/emulator/archive-formats.js');
type FileFingerprint = import('../../src/state/catalog.js').FileFingerprint;

const ONION = `${'a'.repeat(56)}.onion`;
const text = Buffer.from('the quarterly numbers, by region and product line\n'.repeat(200));
const random = pseudoRandomBytes(33, 20_000);
const members = [
  { name: 'share/report.txt', data: text },
  { name: 'share/budget.xlsx.locked', data: random },
  { name: 'share/photo.jpg', data: random },
  { name: 'share/README_RESTORE_FILES.txt', data: Buffer.from(`Your files are encrypted. Write to http://${ONION}/ to get them back.\n`) },
];

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'backupctl-fp-walk-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function fingerprintOf(bytes: Buffer, n: number) {
  const listing = path.join(tmp, `${n}.ndjson.gz`);
  const sink = new FingerprintSink('file', listing);
  const backup = { id: 'b1', created_at: null, status: 'completed', encrypted: false, files: [{ name: 'file', url: 'u', size: bytes.length }] };
  const [[out]] = await readBackups([backup], { parallel: 1, signal: new AbortController().signal, now: () => new Date(0), transfer: memoryTransfer(bytes), sinks: () => [sink] });
  const extra = out!.extras[0]!;
  expect(extra.ok).toBe(true);
  const fp = (extra as { value: FileFingerprint }).value;
  const rows = [];
  if (fp.listing) for await (const e of readListing(listing)) rows.push(e);
  return { result: out!.result, fp, rows, listing };
}

function expectMembers(fp: FileFingerprint, rows: Array<{ path: string; type: string; size: number; crc: string }>) {
  // The CRC-32 of every member's content (diff's "M"), computed once: by the walk (tar), by the zip check (zip).
  for (const m of members) expect(rows.find((r) => r.path === m.name)?.crc).toBe((crc32(m.data) >>> 0).toString(16).padStart(8, '0'));
  expect(fp.note).toBeUndefined();
  expect(fp.archive).toMatchObject({ files: 4, sampled: 2, high_entropy: 1, high_entropy_paths: ['share/budget.xlsx.locked'], ransom_notes: ['share/README_RESTORE_FILES.txt'] });
  expect(fp.archive!.by_ext).toEqual({ txt: 2, locked: 1, jpg: 1 });
  expect(fp.archive!.onions).toEqual([{ path: 'share/README_RESTORE_FILES.txt', address: ONION }]);
  expect(rows.filter((r) => r.type === 'f').map((r) => [r.path, r.size])).toEqual([
    ['share/README_RESTORE_FILES.txt', members[3]!.data.length],
    ['share/budget.xlsx.locked', 20_000],
    ['share/photo.jpg', 20_000],
    ['share/report.txt', text.length],
  ]);
}

describe('the fingerprint takes the members from the one walk of the check', () => {
  it('a tar.gz is parsed once (verify\'s check), and the fingerprint has every member', async () => {
    const tar = gzipSync(tarArchive([{ name: 'share/', data: Buffer.alloc(0), type: 'directory' }, ...members.map((m) => ({ ...m, mode: 0o640 }))]));
    parses.count = 0;
    const { result, fp, rows } = await fingerprintOf(tar, 0);
    expect(parses.count).toBe(1);
    expect(result.verdict).toBe('verified');
    expect(fp.kind).toBe('tar');
    expectMembers(fp, rows);
    expect(rows.find((r) => r.path === 'share')).toMatchObject({ type: 'd' });
    expect(rows.find((r) => r.path === 'share/report.txt')).toMatchObject({ mode: 0o640 });
  });

  it('a zip is fingerprinted member by member through the zip check (no tar parse)', async () => {
    const zip = zipArchive(members.map((m) => ({ ...m, method: 8 as const })));
    parses.count = 0;
    const { result, fp, rows } = await fingerprintOf(zip, 1);
    expect(parses.count).toBe(0);
    expect(result.verdict).toBe('verified');
    expect(fp.kind).toBe('zip');
    expect(fp.listing).toBe('1.ndjson.gz');
    expectMembers(fp, rows);
  });

  it('a damaged tar leaves a note and no listing, and the check fails as before', async () => {
    const tar = tarArchive(members);
    const cut = tar.subarray(0, 512 + 1024);
    parses.count = 0;
    const { result, fp, listing } = await fingerprintOf(cut, 2);
    expect(parses.count).toBe(1);
    expect(result.verdict).toBe('failed');
    expect(fp.note).toMatch(/^content: tar: /);
    expect(fp.listing).toBeUndefined();
    expect(existsSync(listing)).toBe(false);
  });
});
