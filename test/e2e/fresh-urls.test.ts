// Issue 29 §6: signed URLs expire (about an hour at the real store). A 403 on
// a signed URL is answered by asking the service for fresh ones (POST
// /v1/backups/{id}/download) and going on from the byte reached; files that
// start late get fresh URLs first. The emulator hands out URLs that expire
// (urlTtlMs, `backupctl emulator --url-ttl`) and can answer a store's
// "Request has expired" 403 as a fault. Before the change these runs failed
// with exit 11 (verify: "403 while downloading") or 4 (download).
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { fileRequests, requestsTo, startTestEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';

const T = 120_000;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function suite(urlTtlMs: number | undefined) {
  let emu: Emulator;
  let cfg: ReturnType<typeof tempConfigDir>;
  beforeAll(async () => {
    emu = await startTestEmulator({ seed: 'demo', urlTtlMs });
    cfg = tempConfigDir();
  });
  afterAll(async () => {
    await emu.close();
    cfg.cleanup();
  });
  afterEach(() => emu.setFaults([]));
  const cli = (args: string[], extra: Record<string, string> = {}) =>
    runCli(args, { env: { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir, ...extra }, timeoutMs: 100_000 });
  return { emu: () => emu, cli };
}


describe('URLs that expire three seconds after they are handed out', () => {
  const s = suite(3_000);

  it('files that start late get fresh URLs first (BACKUPCTL_URL_REFRESH_AFTER): no 403 at all', async () => {
    const emu = s.emu();
    emu.clearRequests();
    const r = await s.cli(['verify', 'shop mysql', '--since', '30d', '--parallel', '1', '--json'], { BACKUPCTL_URL_REFRESH_AFTER: '200ms' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).summary.files_failed).toBe(0);
    expect(fileRequests(emu).filter((q) => q.status === 403)).toEqual([]);
    expect(requestsTo(emu, '/v1/backups/', 'POST').length).toBeGreaterThan(5);
  }, T);

  it('a bad BACKUPCTL_URL_REFRESH_AFTER is exit 3 naming it', async () => {
    const r = await s.cli(['verify', 'shop mysql'], { BACKUPCTL_URL_REFRESH_AFTER: 'soon' });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/BACKUPCTL_URL_REFRESH_AFTER/);
  }, T);
});

describe('a URL that expires in the middle of a transfer', () => {
  const s = suite(undefined);

  it('download --output -: broken halfway, the resume gets 403 "expired"; fresh URLs, and the rest from the byte reached: the same bytes', async () => {
    const emu = s.emu();
    const whole = await s.cli(['jobs', 'backup', 'download', 'api postgres', '--latest', '-o', '-']);
    expect(whole.code, whole.stderr).toBe(0);
    emu.setFaults([
      { fault: 'truncated', path: '/files', count: 1 },
      { fault: 'expired', path: '/files', count: 1 },
    ]);
    emu.clearRequests();
    const r = await s.cli(['jobs', 'backup', 'download', 'api postgres', '--latest', '-o', '-']);
    expect(r.code, r.stderr).toBe(0);
    expect(sha(r.stdoutBytes!)).toBe(sha(whole.stdoutBytes!));
    const gets = fileRequests(emu);
    // The first answer (200) is cut halfway by the fault; the resume is refused as expired; the fresh URL gives the rest.
    expect(gets.map((q) => [q.status, q.fault ?? null])).toEqual([
      [200, 'truncated'],
      [403, 'expired'],
      [206, null],
    ]);
    // The resume after the fresh URL asks for the rest only.
    expect(gets[2]!.headers.range).toMatch(/^bytes=[1-9]\d*-$/);
    expect(gets[2]!.query.signature).not.toBe(gets[1]!.query.signature);
    expect(requestsTo(emu, '/v1/backups/', 'POST').filter((q) => q.path.endsWith('/download')).length).toBe(1);
  }, T);

  it('verify and restore-test go on the same way', async () => {
    const emu = s.emu();
    for (const args of [['verify', 'archive files', '--latest'], ['restore-test', 'archive files', '--exec', 'test -d data']]) {
      emu.setFaults([
        { fault: 'truncated', path: '/files', count: 1 },
        { fault: 'expired', path: '/files', count: 1 },
      ]);
      const r = await s.cli(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
  }, T);

  it('fresh URLs the service refuses: the error names the refusal (not a bad backup\'s 11)', async () => {
    const emu = s.emu();
    emu.setFaults([
      { fault: 'expired', path: '/files' },
      { fault: '500', method: 'POST', path: '/v1/backups/' },
    ]);
    const r = await s.cli(['jobs', 'backup', 'download', 'api postgres', '--latest', '-o', '-'], { BACKUPCTL_RETRY_BASE: '1ms' });
    // A POST answered 500: the client's own rule for a request not safe to repeat (exit 7), never 11 or 4.
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/the store refused the signed URL of \S+ \(403\) and the service gave no fresh one/);
    emu.setFaults([{ fault: 'expired', path: '/files' }]);
    const forever = await s.cli(['jobs', 'backup', 'download', 'api postgres', '--latest', '-o', '-']);
    // Bounded: three fresh URLs refused too, then the 403 stands (exit 4).
    expect(forever.code).toBe(4);
    expect(requestsTo(emu, '/v1/backups/', 'POST').length).toBeGreaterThan(0);
  }, T);
});

// URLs that hold one second: a verify of 30 backups, one file at a time, outlasts them (the middle-of-a-transfer
// case below proves a refusal is answered; here a long run passes whether or not one of its URLs ran out).
describe('URLs that expire one second after they are handed out', () => {
  const short = suite(1_000);

  it('verify --since 30d of "shop mysql" (30 backups, one file at a time) passes: expired URLs are refreshed and the file read', async () => {
    const emu = short.emu();
    emu.clearRequests();
    const r = await short.cli(['verify', 'shop mysql', '--since', '30d', '--parallel', '1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.summary.files_failed).toBe(0);
    expect(doc.summary.backups).toBeGreaterThanOrEqual(20);
    const expired = fileRequests(emu).filter((q) => q.status === 403);
    const asked = requestsTo(emu, '/v1/backups/', 'POST').filter((q) => q.path.endsWith('/download'));
    // Each refusal, if any, was answered with fresh URLs.
    expect(asked.length).toBeGreaterThanOrEqual(expired.length);
  }, T);
});
