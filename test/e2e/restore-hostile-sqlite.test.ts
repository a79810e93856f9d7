// A hostile SQLite dump gets nothing outside its in-memory database (issue 43), through the built CLI
// against the emulator's "sqlite hostile" job (--archive-faults; src/emulator/restore-fixtures.ts):
// each backup is a sqlite3 .dump text that aims at SQLITE_ATTACK_DIR (ATTACH of another file,
// load_extension, a trigger that writes a file, VACUUM INTO). Each is refused: the verdict is failed
// (exit 14), never restored; the folder it aims at and the CLI's TMPDIR stay empty.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { emulatorSession } from '../helpers/emulator.js';
import { SQLITE_ATTACK_DIR, SQLITE_HOSTILE_DUMPS } from '../../src/emulator/restore-fixtures.js';

type Json = any;
let tmp: string;
const session = emulatorSession({ seed: 'demo', archiveFaults: true, env: () => ({ TMPDIR: tmp }) });
const { cli } = session;

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'backupctl-sqlite-hostile-'));
});
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
  rmSync(SQLITE_ATTACK_DIR, { recursive: true, force: true });
});
beforeEach(() => {
  // The folder exists, so a real sqlite3 would write there: anything found afterwards came from the restore.
  rmSync(SQLITE_ATTACK_DIR, { recursive: true, force: true });
  mkdirSync(SQLITE_ATTACK_DIR, { recursive: true });
});

/** The backup of "sqlite hostile" whose file starts with `name`. */
async function backupOf(name: string): Promise<string> {
  const backups = await session.backupsOf('sqlite hostile');
  return backups.find((b: Json) => b.files[0].name.startsWith(`${name}-`))!.id as string;
}

const CASES: Array<{ name: keyof typeof SQLITE_HOSTILE_DUMPS; line: number; message: RegExp }> = [
  { name: 'attach', line: 5, message: /^SQLite: refused: it attaches another database/ },
  { name: 'load-extension', line: 5, message: /^SQLite: (no such function: load_extension|refused: load_extension)/ },
  { name: 'trigger-writefile', line: 6, message: /^SQLite: no such function: writefile$/ },
  { name: 'view-vacuum-into', line: 6, message: /^SQLite: refused: VACUUM INTO writes another file$/ },
];

describe('a hostile SQLite dump reaches nothing outside its in-memory database', () => {
  it('the job holds every case', () => {
    expect(Object.keys(SQLITE_HOSTILE_DUMPS).sort()).toEqual(CASES.map((c) => c.name).sort());
  });

  it.each(CASES)('$name: failed at line $line (exit 14), nothing written to the folder it aims at or to TMPDIR', async ({ name, line, message }) => {
    const r = await cli(['restore-test', 'sqlite hostile', await backupOf(name), '--json']);
    expect(r.code, r.stderr).toBe(14);
    const f = JSON.parse(r.stdout).backups[0].files[0];
    expect(f.kind).toBe('sqlite-dump');
    expect(f.verdict).toBe('failed');
    expect(f.failure.message).toMatch(message);
    expect(f.failure.line).toBe(line);
    expect(readdirSync(SQLITE_ATTACK_DIR)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
