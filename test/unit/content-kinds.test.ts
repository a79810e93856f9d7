// One content stage (issue 31 §1): verify and restore-test give the same kind
// for every fixture (the restore fixtures of src/emulator/fixtures/restore and
// every archive kind the emulator serves), verify inspects every kind
// restore-test restores, and a gzip is inflated ONCE per file whether verify
// reads it alone or restore-test restores it (zlib's createGunzip is counted).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { memoryTransfer } from '../helpers/transfer.js';
import { v7Tar } from '../helpers/tar.js';
import { gzipSync } from 'node:zlib';

const inflations = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:zlib', async (importOriginal) => {
  const zlib = await importOriginal<typeof import('node:zlib')>();
  const createGunzip: typeof zlib.createGunzip = (options) => {
    inflations.count++;
    return zlib.createGunzip(options);
  };
  return { ...zlib, default: { ...zlib, createGunzip }, createGunzip };
});

const { readBackups } = await import('../../src/pipeline/index.js');
const { KINDS, KIND_IDS, kindOfFormat } = await import('../../src/pipeline/kinds.js');
const { DispatchSink } = await import('../../src/restore/dispatch.js');
const { engineOf } = await import('../../src/restore/registry.js');
const { buildArchive } = await import('../../src/emulator/archives.js');
const { mongodumpArchive } = await import('../../src/emulator/mongo-archive.js');
const { createRng } = await import('../../src/emulator/util.js');
type FileRestore = import('../../src/restore/types.js').FileRestore;

const FIXTURES = path.resolve(import.meta.dirname, '../../src/emulator/fixtures/restore');


const mongo = mongodumpArchive(createRng(7), 'events', 200_000);

/** Every fixture, by name: the kind both must give it. */
const CASES: Array<{ name: string; bytes: Buffer; kind: (typeof KIND_IDS)[number] }> = [
  ...readdirSync(FIXTURES)
    .filter((f) => f !== 'manifest.json')
    .map((f) => {
      const manifest = JSON.parse(readFileSync(path.join(FIXTURES, 'manifest.json'), 'utf8')) as { files: Record<string, { kind: (typeof KIND_IDS)[number] }> };
      return { name: `fixtures/restore/${f}`, bytes: readFileSync(path.join(FIXTURES, f)), kind: manifest.files[f]!.kind };
    }),
  { name: 'emulator tar.gz', bytes: buildArchive({ kind: 'tar.gz', name: 'site-2026-01-01_00-00-00', length: 24 * 1024 }), kind: 'tar' },
  { name: 'emulator mysql', bytes: buildArchive({ kind: 'mysql', name: 'shop-2026-01-01_00-00-00', length: 16 * 1024 }), kind: 'mysql' },
  { name: 'emulator postgres', bytes: buildArchive({ kind: 'postgres', name: 'crm-2026-01-01_00-00-00', length: 16 * 1024 }), kind: 'pg-plain' },
  { name: 'emulator mongo (gzip)', bytes: buildArchive({ kind: 'mongo', name: 'events-2026-01-01_00-00-00', length: 24 * 1024 }), kind: 'mongo-archive' },
  { name: 'emulator zip', bytes: buildArchive({ kind: 'zip', name: 'www-2026-01-01_00-00-00', length: 24 * 1024 }), kind: 'zip' },
  { name: 'emulator encrypted', bytes: buildArchive({ kind: 'encrypted', name: 'vault-2026-01-01_00-00-00', length: 8 * 1024 }), kind: 'openssl-enc' },
  { name: 'emulator checksums', bytes: buildArchive({ kind: 'checksums', name: 'SHA256SUMS', length: 2 * 1024 }), kind: 'sha256sums' },
  { name: 'mongodump archive, not gzipped', bytes: mongo, kind: 'mongo-archive' },
  { name: 'v7 tar', bytes: v7Tar(), kind: 'tar' },
  { name: 'v7 tar, gzipped', bytes: gzipSync(v7Tar()), kind: 'tar' },
  { name: 'age', bytes: Buffer.from(`age-encryption.org/v1\n-> X25519 abc\n${'x'.repeat(3000)}`), kind: 'age' },
  { name: 'a gzip inside a gzip', bytes: gzipSync(gzipSync(Buffer.from('x'.repeat(10_000)))), kind: 'gzip' },
  { name: 'plain text', bytes: Buffer.from('just some notes\n'.repeat(500)), kind: 'unknown' },
];

const backup = (bytes: Buffer) => ({ id: 'b1', created_at: null, status: 'completed', encrypted: false, files: [{ name: 'file', url: 'u', size: bytes.length }] });
const base = { parallel: 1, signal: new AbortController().signal, now: () => new Date(0) };

/** verify: the pipeline with no sink. */
async function verifyOf(bytes: Buffer) {
  const [[out]] = await readBackups([backup(bytes)], { ...base, transfer: memoryTransfer(bytes) });
  return out!.result;
}

/**
 * restore-test: the pipeline with restore-test's DispatchSink. SQL kinds are asked for the
 * "server" engine with no --into, which stops at once (no database is started here):
 * the kind is what the sink was opened with, as restore-test reports it.
 */
async function restoreOf(bytes: Buffer) {
  const sink = new DispatchSink({ engine: 'server', asserts: [], execTimeoutMs: 5_000, keep: false, allowEmpty: false, signal: new AbortController().signal, encrypted: false, onFatal: () => {} });
  const [[out]] = await readBackups<FileRestore>([backup(bytes)], { ...base, transfer: memoryTransfer(bytes), sinks: () => [sink] });
  const extra = out!.extras[0]!;
  return { kind: sink.sniffed, restore: extra.ok ? extra.value : undefined, check: out!.result };
}

let tmp: string;
const savedTmp = process.env.TMPDIR;
// One folder for the file's temporary files: made per test, each was made inside the one before
// (TMPDIR pointed there) and only the last was removed, so every run left the first behind.
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'backupctl-kinds-'));
  process.env.TMPDIR = tmp;
});
afterAll(() => {
  process.env.TMPDIR = savedTmp;
  rmSync(tmp, { recursive: true, force: true });
});

describe('one registry of kinds', () => {
  it('covers every kind, each with a check, what it counts and a format of its own', () => {
    expect(Object.keys(KINDS).sort()).toEqual([...KIND_IDS].sort());
    const formats = KIND_IDS.map((k) => KINDS[k].format);
    expect(new Set(formats).size).toBe(formats.length);
    for (const k of KIND_IDS.filter((k) => k !== 'gzip')) expect(kindOfFormat(KINDS[k].format)).toBe(k);
    // verify says "gzip" for a gzip of unknown bytes, "gzip.gz" for a gzip inside one, "tar.gz" for a tar inside one.
    expect([kindOfFormat('gzip'), kindOfFormat('gzip.gz'), kindOfFormat('tar.gz'), kindOfFormat('not-read')]).toEqual(['unknown', 'gzip', 'tar', undefined]);
    // Every kind some engine restores, verify inspects (it has a check that reads it, not "opaque"); but a
    // SQLite database file: verify has no check of its own yet (restore-test's PRAGMA integrity_check is one).
    for (const k of KIND_IDS.filter((k) => engineOf(k) && k !== 'sqlite')) expect(KINDS[k].check).not.toBe('opaque');
    expect(KINDS.sqlite.check).toBe('opaque');
  });
});

describe('verify and restore-test give the same kind for every fixture', () => {
  it.each(CASES)('$name: $kind', async ({ bytes, kind }) => {
    const verified = await verifyOf(bytes);
    const restored = await restoreOf(bytes);
    expect(restored.kind).toBe(kind);
    expect(kindOfFormat(verified.format)).toBe(kind);
    // The same answer inside restore-test (its check on the way) as in verify alone.
    expect(restored.check.format).toBe(verified.format);
    if (engineOf(kind) && KINDS[kind].check !== 'opaque') {
      // Restorable, so inspected: never "not inspected".
      expect(verified.verdict, verified.reasons.join('; ')).toBe('verified');
    }
    if (engineOf(kind)?.id === 'files') expect(restored.restore).toMatchObject({ kind, verdict: 'extracted' });
    if (engineOf(kind)?.id === 'mongo-archive') expect(restored.restore).toMatchObject({ kind, verdict: 'structure-checked' });
    if (!engineOf(kind)) expect(restored.restore).toMatchObject({ kind, verdict: 'not-restorable' });
  }, 30_000);

  it('a pg_dump -Fc cut short, or with a data block missing, fails verify', async () => {
    const dump = readFileSync(path.join(FIXTURES, 'shop.pgdump'));
    for (const cut of [dump.length - 1, dump.length - 100, Math.floor(dump.length * 0.6), 200]) {
      const r = await verifyOf(dump.subarray(0, cut));
      expect(r, `cut at ${cut}`).toMatchObject({ verdict: 'failed', format: 'pg_dump-custom' });
      expect(r.reasons.join()).toMatch(/^pg_dump custom format: (truncated|the data of \d+ of \d+ tables is missing)/);
    }
    const whole = await verifyOf(dump);
    expect(whole).toMatchObject({ verdict: 'verified', format: 'pg_dump-custom', entries: 37 });
  });

  it('a mongodump archive with a damaged document fails verify', async () => {
    // One character of a document changed: it still parses, its collection's CRC-64 no longer matches.
    const damaged = Buffer.from(mongo);
    const at = damaged.indexOf('xxxxxxxx');
    expect(at).toBeGreaterThan(0);
    damaged[at] = 0x79;
    const r = await verifyOf(damaged);
    expect(r).toMatchObject({ verdict: 'failed', format: 'mongodump' });
    expect(r.reasons[0]).toMatch(/^mongodump archive: .*the CRC of its documents does not match/);
  });
});

describe('one gunzip per file', () => {
  const gzipped = CASES.filter((c) => c.bytes[0] === 0x1f && c.bytes[1] === 0x8b && c.kind !== 'gzip' && !engineOf(c.kind)?.placements.includes('server'));

  it('covers the engines that run inside backupctl: a SQLite dump among them', () => {
    expect(gzipped.map((c) => c.kind)).toEqual(expect.arrayContaining(['tar', 'mongo-archive', 'sqlite-dump']));
  });

  it.each(gzipped)('$name: verify inflates it once, restore-test once', async ({ bytes }) => {
    inflations.count = 0;
    await verifyOf(bytes);
    expect(inflations.count).toBe(1);
    inflations.count = 0;
    const { restore } = await restoreOf(bytes);
    expect(restore?.verdict).toMatch(/^(extracted|structure-checked|restored)$/);
    expect(inflations.count).toBe(1);
  });
});
