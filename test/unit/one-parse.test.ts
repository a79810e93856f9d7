// One walk (issue 43 §3): restore-test parses every restorable kind ONCE per file. The content
// stage walks a tar or a zip and reads a mongodump archive for verify's check, and hands the
// members and documents to the restore engine, which parses nothing again; a SQL dump's statements
// are read once by the stage; a SQLite file or dump is read by SQLite alone. Counted by the
// parsers themselves (PARSES, src/pipeline/parses.ts: each of backupctl's parsers counts the
// parses it begins), in the style of content-kinds.test.ts's count of gunzips.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { memoryTransfer } from '../helpers/transfer.js';
import { readBackups } from '../../src/pipeline/index.js';
import { PARSES, type ParsedFormat } from '../../src/pipeline/parses.js';
import { DispatchSink } from '../../src/restore/dispatch.js';
import { engineOf } from '../../src/restore/registry.js';
import { ENGINES } from '../../src/restore/registry.js';
import { buildArchive } from '../../src/emulator/archives.js';
import type { FileRestore, PlacementChoice } from '../../src/restore/types.js';
import type { ContentKind } from '../../src/pipeline/kinds.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../src/emulator/fixtures/restore');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));

interface Case {
  name: string;
  bytes: Buffer;
  kind: ContentKind;
  /** The parser that reads this kind. */
  format: ParsedFormat;
  /** Where the engine runs (SQL: PGlite, or a local MariaDB for a MySQL dump). */
  engine: PlacementChoice;
  /** verify alone: what it parses (a SQL dump's statements are read only for a sink that asks; a SQLite file is not opened). */
  verifyParses: number;
  verdict: FileRestore['verdict'];
  /** A zip past this is read again by ranges (not held in memory). */
  zipMemoryLimit?: number;
}

const CASES: Case[] = [
  { name: 'tar.gz', bytes: buildArchive({ kind: 'tar.gz', name: 'site-2026-01-01_00-00-00', length: 64 * 1024 }), kind: 'tar', format: 'tar', engine: 'embedded', verifyParses: 1, verdict: 'extracted' },
  { name: 'zip (held in memory)', bytes: buildArchive({ kind: 'zip', name: 'www-2026-01-01_00-00-00', length: 64 * 1024 }), kind: 'zip', format: 'zip', engine: 'embedded', verifyParses: 1, verdict: 'extracted' },
  { name: 'zip (past the memory limit: read again by ranges)', bytes: buildArchive({ kind: 'zip', name: 'www-2026-01-01_00-00-00', length: 64 * 1024 }), kind: 'zip', format: 'zip', engine: 'embedded', verifyParses: 1, verdict: 'extracted', zipMemoryLimit: 4096 },
  { name: 'mongodump (gzip)', bytes: buildArchive({ kind: 'mongo', name: 'events-2026-01-01_00-00-00', length: 64 * 1024 }), kind: 'mongo-archive', format: 'mongodump', engine: 'embedded', verifyParses: 1, verdict: 'structure-checked' },
  { name: 'plain SQL (pg_dump, gzip)', bytes: fixture('shop.pg.sql.gz'), kind: 'pg-plain', format: 'sql', engine: 'embedded', verifyParses: 0, verdict: 'restored' },
  { name: 'plain SQL (mysqldump, gzip)', bytes: fixture('shop.mysql.sql.gz'), kind: 'mysql', format: 'sql', engine: 'local', verifyParses: 0, verdict: 'restored' },
  { name: 'PostgreSQL custom (pg_dump -Fc)', bytes: fixture('shop.pgdump'), kind: 'pg-custom', format: 'pg-custom', engine: 'embedded', verifyParses: 1, verdict: 'restored' },
  { name: 'SQLite database file', bytes: fixture('shop.sqlite'), kind: 'sqlite', format: 'sqlite', engine: 'embedded', verifyParses: 0, verdict: 'restored' },
  { name: 'SQLite dump (gzip)', bytes: fixture('shop.sqlite.sql.gz'), kind: 'sqlite-dump', format: 'sqlite', engine: 'embedded', verifyParses: 0, verdict: 'restored' },
];

const backup = (bytes: Buffer) => ({ id: 'b1', created_at: null, status: 'completed', encrypted: false, files: [{ name: 'file', url: 'u', size: bytes.length }] });
const base = { parallel: 1, signal: new AbortController().signal, now: () => new Date(0) };

function counted(): Record<ParsedFormat, number> {
  return { ...PARSES };
}
function reset(): void {
  for (const k of Object.keys(PARSES) as ParsedFormat[]) PARSES[k] = 0;
}
const total = (p: Record<ParsedFormat, number>) => Object.values(p).reduce((n, v) => n + v, 0);

async function verifyOf(c: Case) {
  const [[out]] = await readBackups([backup(c.bytes)], { ...base, transfer: memoryTransfer(c.bytes), inspect: c.zipMemoryLimit ? { zipMemoryLimit: c.zipMemoryLimit } : undefined });
  return out!.result;
}

async function restoreOf(c: Case) {
  const sink = new DispatchSink({ engine: c.engine, asserts: [], execTimeoutMs: 5_000, keep: false, allowEmpty: false, env: { PATH: process.env.PATH }, signal: new AbortController().signal, encrypted: false, onFatal: () => {} });
  const [[out]] = await readBackups<FileRestore>([backup(c.bytes)], {
    ...base,
    transfer: memoryTransfer(c.bytes),
    inspect: c.zipMemoryLimit ? { zipMemoryLimit: c.zipMemoryLimit } : undefined,
    sinks: () => [sink],
  });
  const extra = out!.extras[0]!;
  return { kind: sink.sniffed, restore: extra.ok ? extra.value : undefined, error: extra.ok ? undefined : extra.error, check: out!.result };
}

let tmp: string;
const savedTmp = process.env.TMPDIR;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'backupctl-one-parse-'));
  process.env.TMPDIR = tmp;
});
afterAll(() => {
  process.env.TMPDIR = savedTmp;
  rmSync(tmp, { recursive: true, force: true });
});

describe('one parse per file', () => {
  it('covers every kind an engine restores', () => {
    const restorable = ENGINES.flatMap((e) => e.kinds);
    expect([...new Set(CASES.map((c) => c.kind))].sort()).toEqual([...restorable].sort());
  });

  it.each(CASES)('$name: verify parses it $verifyParses time(s), restore-test once', async (c) => {
    reset();
    const verified = await verifyOf(c);
    expect(verified.verdict, verified.reasons.join('; ')).not.toBe('failed');
    expect(counted()).toEqual({ ...emptyCounts(), [c.format]: c.verifyParses });
    reset();
    const r = await restoreOf(c);
    expect(r.kind).toBe(c.kind);
    expect(engineOf(c.kind)).toBeDefined();
    expect(r.restore?.failure ?? null, String(r.error ?? '')).toBeNull();
    expect(r.restore?.verdict).toBe(c.verdict);
    // Exactly one parse of the file's bytes, by the one parser of its kind, whoever reads it.
    const p = counted();
    expect(p[c.format], JSON.stringify(p)).toBe(1);
    expect(total(p), JSON.stringify(p)).toBe(1);
    expect(readdirSync(tmp)).toEqual([]);
  }, 120_000);
});

function emptyCounts(): Record<ParsedFormat, number> {
  return { tar: 0, zip: 0, mongodump: 0, sql: 0, 'pg-custom': 0, sqlite: 0 };
}
