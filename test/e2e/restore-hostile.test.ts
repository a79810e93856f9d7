// A tampered file archive gets nothing (issue 28 §4-§7), through the built CLI
// against the emulator's hostile restore jobs (`--archive-faults`, made in
// src/emulator/archives.ts, never committed as binaries): bombs refused by a
// bound that is named, nothing big left on disk; dangling and two-entry link
// chains refused with nothing written outside; --exec never run on bytes that
// failed, and run with a minimal environment; bad bound values refused before
// anything is sent; Ctrl-C removes the extraction folder within a second.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiRequests, emulatorSession, startTestEmulator } from '../helpers/emulator.js';
import { startCli, until } from '../helpers/spawn.js';

/** The folder around the CLI's TMPDIR: what escapes the extraction folder lands here or in TMPDIR. */
let outer: string;
let tmp: string;
// damagedFiles: verify's "hostile archives" job (zip-bomb, zip-zeros, gzip-zeros) too.
const session = emulatorSession({ seed: 'demo', archiveFaults: true, damagedFiles: true, timeoutMs: 60_000, env: () => ({ TMPDIR: tmp }) });
const { emu, env, cli } = session;
const fileOf = (stdout: string) => JSON.parse(stdout).backups[0].files[0];
/** Everything under `dir`, as relative paths. */
const tree = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? [d.name, ...tree(path.join(dir, d.name)).map((n) => `${d.name}/${n}`)] : [d.name]));
const bytesUnder = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((n, d) => n + (d.isDirectory() ? bytesUnder(path.join(dir, d.name)) : statSync(path.join(dir, d.name)).size), 0);

beforeAll(() => {
  outer = mkdtempSync(path.join(tmpdir(), 'backupctl-hostile-'));
  tmp = path.join(outer, 'tmp');
  mkdirSync(tmp);
});
afterAll(() => {
  if (outer) rmSync(outer, { recursive: true, force: true });
});
beforeEach(() => {
  emu.clearRequests();
  // Each test checks what it left; a failed one must not fail the next.
  rmSync(outer, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
});

describe('bounds: bombs refused, the bound named, nothing big left on disk', () => {
  it('a 1 MB .tar.gz holding 1 GiB of zeros: refused by the gzip ratio bound (exit 11); --exec not run', async () => {
    const marker = path.join(outer, 'exec-ran');
    const r = await cli(['restore-test', 'tar bomb', '--exec', `touch ${marker}`, '--json']);
    expect(r.code, r.stderr).toBe(11);
    const file = fileOf(r.stdout);
    const ratio = /^gzip: expands more than 200 times its size \(\d+ bytes gave \d+ and more\): refused as a decompression bomb; raise the bound with BACKUPCTL_VERIFY_MAX_RATIO$/;
    expect(file.check.reason).toMatch(ratio);
    expect(file).toMatchObject({ verdict: 'failed', exec: null });
    expect(file.failure.message).toContain('raise the bound with BACKUPCTL_VERIFY_MAX_RATIO');
    // The restore's own gunzip stopped there too: it did not inflate the whole GiB.
    expect(file.bytes ?? 0).toBeLessThan(200 * 1024 * 1024);
    expect(existsSync(marker)).toBe(false);
    expect(tree(outer)).toEqual(['tmp']);
  }, 60_000);

  it('with the ratio raised, the byte cap refuses its entry before a byte of it is written (exit 14)', async () => {
    const marker = path.join(outer, 'exec-ran');
    const r = await cli(['restore-test', 'tar bomb', '--exec', `touch ${marker}`, '--json'], { BACKUPCTL_VERIFY_MAX_RATIO: '100000', BACKUPCTL_RESTORE_MAX_BYTES: '16MiB' });
    expect(r.code, r.stderr).toBe(14);
    const file = fileOf(r.stdout);
    expect(file.check.verdict).toBe('verified');
    expect(file).toMatchObject({ verdict: 'failed', exec: null, bytes: 17 });
    expect(file.failure.message).toBe("the archive's files extract to more than 16777216 bytes: refused; raise the bound with BACKUPCTL_RESTORE_MAX_BYTES");
    expect(r.stderr).toContain('BACKUPCTL_RESTORE_MAX_BYTES');
    expect(existsSync(marker)).toBe(false);
    expect(bytesUnder(outer)).toBe(0);
  }, 60_000);

  it('a zip whose 20,000 entries share one 8 MiB entry (1 MB): refused (exit 11), never more than the zip itself on disk', async () => {
    const backups = await session.backupsOf('hostile archives');
    const bomb = backups.find((b) => b.files[0]!.name.startsWith('zip-bomb-'))!.id;
    const run = startCli(['restore-test', 'hostile archives', bomb, '--json'], env(), 60_000);
    let finished = false;
    void run.done.then(() => (finished = true));
    // Watched while it runs: on the base commit the extraction inflated every entry (160 GB); stopped past 64 MiB.
    let peak = 0;
    while (!finished) {
      try {
        peak = Math.max(peak, bytesUnder(tmp));
      } catch {
        // A file removed while it was counted.
      }
      if (peak > 64 * 1024 * 1024) run.child.kill('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const r = await run.done;
    expect(peak).toBeLessThan(8 * 1024 * 1024);
    expect(r.code, r.stderr).toBe(11);
    const file = fileOf(r.stdout);
    expect(file.check.reason).toMatch(/^zip: entries "bomb\/\d+\.bin" and "bomb\/\d+\.bin" overlap \(share stored bytes\): refused as a decompression bomb$/);
    expect(file).toMatchObject({ verdict: 'failed', files: 0, bytes: 0 });
    expect(tree(outer)).toEqual(['tmp']);
  }, 60_000);

  it('50,000 tiny entries: refused by the entry cap (exit 14), naming it', async () => {
    const r = await cli(['restore-test', 'many entries', '--json'], { BACKUPCTL_RESTORE_MAX_ENTRIES: '10000' });
    expect(r.code, r.stderr).toBe(14);
    const file = fileOf(r.stdout);
    expect(file.failure.message).toBe('the archive holds more than 10000 entries: refused; raise the bound with BACKUPCTL_RESTORE_MAX_ENTRIES');
    expect(file.files).toBeLessThanOrEqual(10_000);
    expect(tree(outer)).toEqual(['tmp']);
  }, 60_000);

  it('a bad value of any bound (0, negative, a fraction, a word) is exit 3 naming the variable, nothing sent', async () => {
    // By id: a name would be looked up first.
    const id = JSON.parse((await cli(['jobs', 'get', 'archive files', '--json'])).stdout).id;
    emu.clearRequests();
    const names = ['BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES', 'BACKUPCTL_VERIFY_MAX_INFLATED', 'BACKUPCTL_VERIFY_MAX_RATIO', 'BACKUPCTL_RESTORE_MAX_ENTRIES', 'BACKUPCTL_RESTORE_MAX_BYTES'];
    for (const name of names) {
      for (const bad of ['0', '-1', 'lots', ...(name.endsWith('INFLATED') || name.endsWith('BYTES') ? ['5 tons'] : ['1.5'])]) {
        const r = await cli(['restore-test', id, '--exec', 'true'], { [name]: bad });
        expect(r.code, `${name}=${bad}: ${r.stderr}`).toBe(3);
        expect(r.stderr, `${name}=${bad}`).toContain(`error: ${name}=${JSON.stringify(bad)} is not a `);
      }
    }
    // verify reads the same settings the same way.
    const v = await cli(['verify', id, '--latest'], { BACKUPCTL_RESTORE_MAX_BYTES: '0' });
    expect(v.code).toBe(3);
    expect(v.stderr).toContain('BACKUPCTL_RESTORE_MAX_BYTES="0" is not a size');
    expect(apiRequests(emu)).toEqual([]);
  }, 120_000);
});

describe('links resolved as the file system resolves them', () => {
  it('`x -> .` then `report.txt -> x/x/x/../../../…`: refused; --exec "echo x > report.txt" writes nothing outside', async () => {
    const r = await cli(['restore-test', 'dangling link chain', '--exec', 'echo x > report.txt', '--json']);
    expect(r.code, r.stderr).toBe(14);
    const file = fileOf(r.stdout);
    expect(file).toMatchObject({ verdict: 'failed', exec: null, check: { verdict: 'verified' } });
    expect(file.failure.message).toBe('refused the link "report.txt" -> "x/x/x/../../../escaped-by-link.txt": it points outside the folder');
    // Three levels above the extraction folder (TMPDIR/backupctl-restore-*/files) is `outer`.
    expect(existsSync(path.join(outer, 'escaped-by-link.txt'))).toBe(false);
    expect(tree(outer)).toEqual(['tmp']);
  });

  it('`a -> d/..` made before `d -> .`: refused by the final walk over every link; nothing written outside', async () => {
    const r = await cli(['restore-test', 'two-link chain', '--exec', 'echo x > a/../../escaped-by-chain.txt', '--json']);
    expect(r.code, r.stderr).toBe(14);
    const file = fileOf(r.stdout);
    expect(file).toMatchObject({ verdict: 'failed', exec: null });
    expect(file.failure.message).toBe('refused the link "a" -> "d/..": it points outside the folder');
    expect(existsSync(path.join(outer, 'escaped-by-chain.txt'))).toBe(false);
    expect(tree(outer)).toEqual(['tmp']);
  });
});

describe('--exec', () => {
  it('gets PATH and HOME from the environment given, never the token, BACKUPCTL_* or a database password', async () => {
    const out = path.join(outer, 'exec-env.txt');
    const r = await cli(['restore-test', 'archive files', '--exec', `env > ${out}`], {
      PGPASSWORD: 'pg-secret-1',
      MYSQL_PWD: 'my-secret-2',
      BACKUPCTL_RESTORE_URL: 'postgres://restorer:url-secret-3@127.0.0.1/scratch',
      HOME: '/home/restorer',
    });
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    rmSync(out);
    const names = text.split('\n').filter(Boolean).map((l) => l.split('=')[0]);
    expect(names).toContain('PATH');
    expect(text).toContain('HOME=/home/restorer\n');
    for (const secret of [emu.token, 'pg-secret-1', 'my-secret-2', 'url-secret-3']) expect(text).not.toContain(secret);
    expect(names.filter((n) => /^(BACKUPCTL_|PG|MYSQL)/.test(n!))).toEqual([]);
    // Nothing else of the caller's environment (the emulator URL, the state folder) either.
    expect(text).not.toContain(session.state);
  });

  it('does not run on bytes that changed since verified (exit 11): its marker file is absent', async () => {
    const changing = await startTestEmulator({ seed: 'demo', changingFiles: true });
    const own = mkdtempSync(path.join(tmpdir(), 'backupctl-state-'));
    try {
      const at = { BACKUPCTL_BASE_URL: changing.url, BACKUPCTL_TOKEN: changing.token, XDG_STATE_HOME: own };
      const first = path.join(outer, 'first-ran');
      const second = path.join(outer, 'second-ran');
      const ok = await cli(['restore-test', 'archive files', '--exec', `touch ${first}`, '--json'], at);
      expect(ok.code, ok.stderr).toBe(0);
      expect(existsSync(first)).toBe(true);
      rmSync(first);
      const again = await cli(['restore-test', 'archive files', '--exec', `touch ${second}`, '--json'], at);
      expect(again.code, again.stderr).toBe(11);
      const file = fileOf(again.stdout);
      expect(file.check).toMatchObject({ verdict: 'failed', reason: expect.stringMatching(/^changed since /) });
      expect(file.exec).toBeNull();
      expect(existsSync(second)).toBe(false);
      expect(tree(outer)).toEqual(['tmp']);
    } finally {
      await changing.close();
      rmSync(own, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('signals', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s while 50,000 entries are extracted: exit %i within a second, the folder removed', async (signal, code) => {
    const run = startCli(['restore-test', 'many entries'], env());
    // Some thousands of files on disk: the extraction is under way.
    await until(() => {
      const folder = readdirSync(tmp)[0];
      return folder !== undefined && existsSync(path.join(tmp, folder, 'files', 'many')) && readdirSync(path.join(tmp, folder, 'files', 'many')).length > 2000;
    }, 30_000);
    const sent = Date.now();
    run.child.kill(signal);
    const r = await run.done;
    expect(Date.now() - sent, r.stderr).toBeLessThan(1000);
    expect(r.code, r.stderr).toBe(code);
    expect(tree(outer)).toEqual(['tmp']);
  }, 60_000);
});
