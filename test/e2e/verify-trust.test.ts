// Verdicts a backup owner can trust (issue 23, findings 5 to 7), through the
// built CLI against the emulator's fixtures (src/emulator/verify-fixtures.ts):
// the bytes decide, not the record; a file not inspected never counts as
// verified; a backup's own SHA256SUMS is used; decompression bombs are refused
// quickly, and Ctrl-C / SIGTERM end a long check within a second.
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { emulatorSession, fileRequests } from '../helpers/emulator.js';
import { startCli } from '../helpers/spawn.js';

const session = emulatorSession({ seed: 'demo', damagedFiles: true });
const { emu, env, cli } = session;

/** The backups of a job by name, oldest first (as the fixtures add them). */
const backupsOf = (job: string) => session.backupsOf(job, 'sort=created_at');

describe('finding 5: the bytes decide, not the record', () => {
  it('a flipped byte in a plain .tar.gz fails although the record names an encryption key (exit 11)', async () => {
    const [flipped] = await backupsOf('keyed files');
    const r = await cli(['verify', 'keyed files', flipped!.id, '--json']);
    expect(r.code, r.stderr).toBe(11);
    const file = JSON.parse(r.stdout).backups[0].files[0];
    expect(file).toMatchObject({ verdict: 'failed', format: 'gzip', reasons: [expect.stringMatching(/^gzip: CRC-32 mismatch/)] });
  });

  it('a plain dump in a keyed backup is checked in full and verified', async () => {
    const r = await cli(['verify', 'keyed files', '--latest', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ verdict: 'passed', backups: [{ encrypted: true, verdict: 'passed', files: [{ verdict: 'verified', format: 'mysqldump.gz' }] }] });
  });

  it('the demo\'s "shop mysql" is encrypted (OpenSSL "Salted__"): never "verified"; the summary says what was not checked', async () => {
    const json = await cli(['verify', 'shop mysql', '--latest', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ verdict: 'unchecked', summary: { files_failed: 0, files_unchecked: 1 } });
    expect(doc.backups[0].files[0]).toMatchObject({ verdict: 'encrypted', format: 'openssl-enc', reasons: ['encrypted (OpenSSL enc, "Salted__"): size and hash only'] });
    // Issue 29: --check passes on passed only; unchecked is exit 18 (issue 42.7: not 11, a damaged file's code) unless --allow-unchecked.
    const check = await cli(['verify', 'shop mysql', '--latest', '--check']);
    expect(check.code).toBe(18);
    expect(check.stdout).toMatch(/^Backup \S+ \(created [^)]+\): unchecked, 1 file: size and hash only, content not checked, .* read in [\d.]+ s\n$/);
    expect(check.stdout).not.toMatch(/verified|passed/);
    const two = await cli(['verify', 'web-01 files', '--latest', '--check', '--allow-unchecked']);
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout).toMatch(/: unchecked, 2 files: size and hash only, content not checked, /);
  });

  it('--strict makes a file not inspected a failure (exit 11)', async () => {
    const r = await cli(['verify', 'shop mysql', '--latest', '--strict', '--json']);
    expect(r.code).toBe(11);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ strict: true, verdict: 'failed', summary: { files_failed: 1 } });
    expect(doc.backups[0].files[0].reasons).toEqual(['--strict: content not checked', 'encrypted (OpenSSL enc, "Salted__"): size and hash only']);
    expect(r.stderr).toMatch(/error: 1 of 1 file of job shop mysql failed verification\n {2}\S+ \(backup \S+\): --strict: content not checked/);
    const fine = await cli(['verify', 'api postgres', '--latest', '--strict']);
    expect(fine.code, fine.stderr).toBe(0);
  });
});

describe("finding 6: the backup's own checksum list", () => {
  it('a file whose sha256 is the one its SHA256SUMS gives verifies, and says so', async () => {
    const [good] = await backupsOf('listed files');
    const r = await cli(['verify', 'listed files', good!.id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const files = JSON.parse(r.stdout).backups[0].files;
    expect(files[0]).toMatchObject({ verdict: 'verified', format: 'tar.gz', reasons: ["sha256 as in the backup's own list SHA256SUMS"] });
    expect(files[1]).toMatchObject({ name: 'SHA256SUMS', verdict: 'verified', format: 'sha256sums', entries: 1 });
  });

  it('a file whose sha256 differs from its SHA256SUMS fails, though it is a whole archive (exit 11)', async () => {
    const r = await cli(['verify', 'listed files', '--latest', '--json']);
    expect(r.code).toBe(11);
    const file = JSON.parse(r.stdout).backups[0].files[0];
    expect(file).toMatchObject({ verdict: 'failed', format: 'tar.gz' });
    expect(file.reasons).toEqual([expect.stringMatching(/^sha256: the backup's own list SHA256SUMS gives [0-9a-f]{12}…, the bytes read have [0-9a-f]{12}…$/)]);
  });
});

describe('finding 7: decompression bombs', () => {
  let bombs: Array<{ id: string; files: Array<{ name: string }> }>;
  beforeAll(async () => {
    bombs = await backupsOf('hostile archives');
  });
  const backup = (kind: string) => bombs.find((b) => b.files[0]!.name.startsWith(`${kind}-`))!.id;

  it('a zip whose 20,000 entries share one 8 MiB entry is refused within seconds (exit 11)', async () => {
    const started = Date.now();
    const r = await runCli(['verify', 'hostile archives', backup('zip-bomb'), '--json'], { env: env(), timeoutMs: 20_000 });
    expect(r.code, r.stderr).toBe(11);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(JSON.parse(r.stdout).backups[0].files[0].reasons[0]).toMatch(/^zip: entries "bomb\/\d+\.bin" and "bomb\/\d+\.bin" overlap \(share stored bytes\): refused as a decompression bomb$/);
  }, 30_000);

  it('a gzip of 4 GiB of zeros (4 MB) is refused for its expansion ratio (exit 11), naming the setting', async () => {
    const started = Date.now();
    const r = await runCli(['verify', 'hostile archives', backup('gzip-zeros'), '--json'], { env: env(), timeoutMs: 20_000 });
    expect(r.code, r.stderr).toBe(11);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(JSON.parse(r.stdout).backups[0].files[0].reasons[0]).toMatch(
      /^gzip: expands more than 200 times its size \(\d+ bytes gave \d+ and more\): refused as a decompression bomb; raise the bound with BACKUPCTL_VERIFY_MAX_RATIO$/,
    );
  }, 30_000);

  it('the entry and inflated bounds are settings; a bad value is exit 3 naming it, before anything is sent', async () => {
    const entries = await cli(['verify', 'marketing site', '--latest', '--json'], { BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES: '2' });
    expect(entries.code).toBe(11);
    expect(JSON.parse(entries.stdout).backups[0].files[0].reasons[0]).toMatch(/^zip: lists \d+ entries, more than 2: refused; raise the bound with BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES$/);
    const inflated = await cli(['verify', 'marketing site', '--latest', '--json'], { BACKUPCTL_VERIFY_MAX_INFLATED: '1KiB' });
    expect(inflated.code).toBe(11);
    expect(JSON.parse(inflated.stdout).backups[0].files[0].reasons[0]).toBe('zip: its entries inflate to more than 1024 bytes: refused; raise the bound with BACKUPCTL_VERIFY_MAX_INFLATED');
    emu.clearRequests();
    const bad = await cli(['verify', 'marketing site', '--latest'], { BACKUPCTL_VERIFY_MAX_RATIO: 'lots' });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('BACKUPCTL_VERIFY_MAX_RATIO="lots" is not a whole number');
    expect(fileRequests(emu)).toEqual([]);
  });

  it.each([
    // The zip is read whole, then inflated: this is where Ctrl-C and SIGTERM were ignored.
    ['SIGINT', 'zip-zeros', {}, 130],
    ['SIGTERM', 'zip-zeros', {}, 143],
    ['SIGTERM', 'gzip-zeros', { BACKUPCTL_VERIFY_MAX_RATIO: '1000000' }, 143],
  ] as const)('%s ends a long check of %s within a second', async (signal, kind, extra, code) => {
    emu.clearRequests();
    const run = startCli(['verify', 'hostile archives', backup(kind), '--json'], env(extra), 60_000);
    // Once the file has been fetched (about 1 MB), the work is inflating.
    const deadline = Date.now() + 15_000;
    while (fileRequests(emu).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1500));
    const sent = Date.now();
    run.child.kill(signal);
    const r = await run.done;
    expect(Date.now() - sent, r.stderr).toBeLessThan(1000);
    expect(r.code, r.stderr).toBe(code);
  }, 60_000);
});
