// The pieces behind `jobs backup start --wait/--lock/--jitter/--healthcheck-url`
// and `jobs backup download`, against the emulator's files server and small fakes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { acquireRunLock, jitter, pingHealthcheck } from '../../src/jobs/cron.js';
import { waitForBackup } from '../../src/jobs/wait.js';
import { downloadFiles, safeFileName } from '../../src/jobs/download.js';
import { exactSize } from '../../src/backups/size.js';
import type { ApiResponse, Client, RequestSpec } from '../../src/contract/context.js';
import { LockedError, UsageError } from '../../src/errors.js';
import { downloadOptions } from '../helpers/download.js';
import { apiFetch, fileRequests, startTestEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'backupctl-jobs-'));
const sink = () => {
  const s = new PassThrough();
  let text = '';
  s.on('data', (d) => (text += d));
  return { stream: s, text: () => text };
};

describe('run lock', () => {
  it('a live holder makes the second run exit 10; release frees it', async () => {
    const dir = tmp();
    const file = path.join(dir, 'job.lock');
    const lock = await acquireRunLock(file);
    const err = await acquireRunLock(file).catch((e) => e);
    expect(err).toBeInstanceOf(LockedError);
    expect(err.exitCode).toBe(10);
    expect(err.message).toContain(`pid ${process.pid}`);
    await lock.release();
    expect(existsSync(file)).toBe(false);
    rmSync(dir, { recursive: true });
  });

  it('a stale lock from a dead process is taken over', async () => {
    const dir = tmp();
    const file = path.join(dir, 'job.lock');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(file, JSON.stringify({ pid: Number(dead.stdout), started_at: '2026-01-01T00:00:00Z' }));
    const lock = await acquireRunLock(file);
    expect(readFileSync(file, 'utf8')).toMatch(new RegExp(`^${process.pid}( \\d+)?\\n$`));
    await lock.release();
    rmSync(dir, { recursive: true });
  });
});

describe('jitter and healthchecks', () => {
  it('sleeps a random part of the window and says so on stderr', async () => {
    const err = sink();
    const ms = await jitter(40, new AbortController().signal, err.stream, () => 0.5);
    expect(ms).toBe(20);
    expect(err.text()).toContain('(--jitter)');
  });

  it('pings /start, the URL and /fail; a dead URL is a warning, never an error', async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url} auth=${req.headers.authorization ?? ''}`);
      res.end('OK');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ping/abc`;
    const err = sink();
    expect(await pingHealthcheck(url, 'start', { stderr: err.stream })).toBe(true);
    expect(await pingHealthcheck(url, 'success', { stderr: err.stream })).toBe(true);
    expect(await pingHealthcheck(url, 'fail', { stderr: err.stream })).toBe(true);
    expect(seen).toEqual(['POST /ping/abc/start auth=', 'POST /ping/abc auth=', 'POST /ping/abc/fail auth=']);
    await new Promise<void>((r) => server.close(() => r()));
    expect(await pingHealthcheck(url, 'success', { stderr: err.stream, timeoutMs: 500 })).toBe(false);
    expect(err.text()).toMatch(/warning: healthcheck ping to http:\/\/127\.0\.0\.1:\d+\/… failed/);
    expect(err.text()).not.toContain('/ping/abc');
  });
});

describe('waiting for a backup', () => {
  /** A client whose backups list answers the given statuses, one per poll. */
  const fakeClient = (statuses: string[], id = 'b-1'): Client & { polls: number } => {
    const c = {
      polls: 0,
      async request(req: RequestSpec): Promise<ApiResponse> {
        expect(req).toMatchObject({ method: 'GET', path: '/jobs/j-1/backups', query: { sort: '-created_at', page_size: 15 } });
        const status = statuses[Math.min(c.polls++, statuses.length - 1)];
        return { status: 200, headers: {}, body: { data: status ? [{ id: 'other', status: 'failed' }, { id, status }] : [] } };
      },
      pages: () => (async function* () {})(),
      close: async () => {},
    };
    return c;
  };
  const opts = (extra = {}) => ({ intervalMs: 1, timeoutMs: 5000, strict: false, signal: new AbortController().signal, warn: () => {}, ...extra });

  it('polls until completed', async () => {
    const c = fakeClient(['', 'pending', 'running', 'completed']);
    const b = await waitForBackup(c, 'j-1', 'b-1', opts());
    expect(b.status).toBe('completed');
    expect(c.polls).toBe(4);
  });
  it('failed and expired exit 8', async () => {
    for (const s of ['failed', 'expired']) {
      const err = await waitForBackup(fakeClient(['running', s]), 'j-1', 'b-1', opts()).catch((e) => e);
      expect(err.exitCode).toBe(8);
      expect(err.message).toContain(`ended ${s}`);
    }
  });
  it('completed_with_errors warns, or exits 8 with --strict', async () => {
    const warnings: string[] = [];
    const b = await waitForBackup(fakeClient(['completed_with_errors']), 'j-1', 'b-1', opts({ warn: (m: string) => warnings.push(m) }));
    expect(b.status).toBe('completed_with_errors');
    expect(warnings).toHaveLength(1);
    const err = await waitForBackup(fakeClient(['completed_with_errors']), 'j-1', 'b-1', opts({ strict: true })).catch((e) => e);
    expect(err.exitCode).toBe(8);
  });
  it('gives up at the wait timeout with exit 6, polls bounded', async () => {
    let t = 0;
    const c = fakeClient(['running']);
    const err = await waitForBackup(c, 'j-1', 'b-1', opts({ intervalMs: 1000, timeoutMs: 10_000, now: () => (t += 1000) })).catch((e) => e);
    expect(err.exitCode).toBe(6);
    expect(err.message).toContain('still running');
    expect(c.polls).toBeLessThanOrEqual(11);
  });
});

describe('downloads', () => {
  let emu: Emulator;
  let files: Array<{ name: string; url: string; size: string }>;
  beforeAll(async () => {
    emu = await startTestEmulator({ seed: 'demo' });
    const jobs = (await (await apiFetch(emu, '/v1/jobs?page_size=100')).json()) as { data: Array<{ id: string }> };
    for (const j of jobs.data) {
      const list = (await (await apiFetch(emu, `/v1/jobs/${j.id}/backups?status=completed&page_size=15`)).json()) as {
        data: Array<{ files?: typeof files }>;
      };
      const withFiles = list.data.find((b) => (b.files ?? []).length > 1);
      if (withFiles) {
        files = withFiles.files!;
        break;
      }
    }
  });
  afterAll(() => emu.close());
  const options = downloadOptions;
  const remote = () => files.map((f) => ({ name: f.name, url: f.url, size: exactSize(f.size) }));

  it('fetches every file without the Authorization header, into place, no temp files left', async () => {
    const dir = tmp();
    emu.requests.length = 0;
    const got = await downloadFiles(remote(), options(dir));
    expect(got.map((g) => path.basename(g.path)).sort()).toEqual(files.map((f) => f.name).sort());
    expect(readdirSync(dir).sort()).toEqual(files.map((f) => f.name).sort());
    for (const g of got) expect(readFileSync(g.path).length).toBe(g.bytes);
    const seen = fileRequests(emu);
    expect(seen).toHaveLength(files.length);
    for (const r of seen) expect(r.headers.authorization).toBeUndefined();
    rmSync(dir, { recursive: true });
  });

  it('never overwrites without --force', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, files[0]!.name), 'mine');
    const err = await downloadFiles(remote(), options(dir)).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(readFileSync(path.join(dir, files[0]!.name), 'utf8')).toBe('mine');
    await downloadFiles(remote(), options(dir, { force: true }));
    expect(readFileSync(path.join(dir, files[0]!.name), 'utf8')).not.toBe('mine');
    rmSync(dir, { recursive: true });
  });

  it('resumes a broken transfer with Range', async () => {
    const dir = tmp();
    emu.requests.length = 0;
    emu.setFaults([{ fault: 'truncated', path: '/files', count: 1 }]);
    const [one] = remote();
    const got = await downloadFiles([one!], options(dir));
    emu.setFaults([]);
    const seen = fileRequests(emu);
    expect(seen.length).toBe(2);
    expect(seen[1]!.headers.range).toMatch(/^bytes=\d+-$/);
    expect(got[0]!.resumed).toBe(true);
    expect(readFileSync(got[0]!.path).length).toBe(exactSize(files[0]!.size) ?? readFileSync(got[0]!.path).length);
    expect(readdirSync(dir)).toEqual([files[0]!.name]);
    rmSync(dir, { recursive: true });
  });

  it('keeps file names inside the folder', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(() => safeFileName('..')).toThrow(UsageError);
    expect(exactSize('744 bytes')).toBe(744);
    expect(exactSize('1.2 KB')).toBeUndefined();
  });
});
