// Issue 33 §1 through the one read-back command shape (issue 31 §2): whichever
// command reads a backup (verify, restore-test) records its fingerprint in the
// catalog, so that `ls` answers from the catalog without a second download;
// --skip-catalog records none. Before the shared read-back piece only verify
// recorded one: `ls` after a restore-test read the archive again.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { emulatorSession, fileRequests } from '../helpers/emulator.js';
import { Catalog } from '../../src/state/catalog.js';

type Json = any;

let root: string;
let tmp: string;
// The emulator's clock pinned (the newest backup follows the schedules from "now").
const session = emulatorSession({ seed: 'demo', now: Date.parse('2026-11-04T12:00:00Z'), env: () => ({ TMPDIR: tmp }) });
const { emu } = session;
/** A state folder of its own for each test: an empty catalog. */
const freshState = () => mkdtempSync(path.join(root, 'state-'));
const cli = (state: string, args: string[]) => session.cli(args, { XDG_STATE_HOME: state });

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'backupctl-readback-'));
  tmp = path.join(root, 'tmp');
  mkdirSync(tmp);
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});
beforeEach(() => emu.clearRequests());

describe('the catalog records what restore-test read', () => {
  it('after restore-test, ls answers from the catalog: no file is downloaded again', async () => {
    const state = freshState();
    const r = await cli(state, ['restore-test', 'archive files', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as Json).backups[0].id as string;
    expect(fileRequests(emu).length).toBeGreaterThan(0);

    const fp = await new Catalog(path.join(state, 'backupctl'), emu.url, emu.token).get(id);
    expect(fp).toMatchObject({ backup_id: id, recorded_by: 'restore-test', read_verdict: 'passed' });
    expect(fp!.files.some((f) => f.kind === 'tar' && (f.archive?.entries ?? 0) > 3 && f.listing !== undefined)).toBe(true);

    emu.clearRequests();
    const ls = await cli(state, ['ls', 'archive files', id, '--json']);
    expect(ls.code, ls.stderr).toBe(0);
    const entries = JSON.parse(ls.stdout) as Json[];
    expect(entries.length).toBeGreaterThan(3);
    expect(fileRequests(emu)).toEqual([]);
  });

  it('--skip-catalog records nothing: ls then reads the archive itself', async () => {
    const state = freshState();
    const r = await cli(state, ['restore-test', 'archive files', '--skip-catalog', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as Json).backups[0].id as string;
    expect(await new Catalog(path.join(state, 'backupctl'), emu.url, emu.token).get(id)).toBeUndefined();

    emu.clearRequests();
    const ls = await cli(state, ['ls', 'archive files', id, '--json']);
    expect(ls.code, ls.stderr).toBe(0);
    expect(fileRequests(emu).length).toBeGreaterThan(0);
  });

  it('verify records the same fingerprint (recorded by verify)', async () => {
    const state = freshState();
    const r = await cli(state, ['verify', 'archive files', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as Json).backups[0].id as string;
    expect(await new Catalog(path.join(state, 'backupctl'), emu.url, emu.token).get(id)).toMatchObject({ backup_id: id, recorded_by: 'verify', read_verdict: 'passed' });
  });
});
