// Issue 18, findings 1 and 4 (and the download parts of 10): a download must
// not write through a symlink planted by another local user, must not append
// a resume that does not continue the file, and must stop at the record's
// size. Each attack comes from local state or a hostile server on 127.0.0.1.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { downloadFiles, safeFileName } from '../../src/jobs/download.js';
import { transfer } from '../../src/pipeline/transfer.js';
import { CliError, UsageError } from '../../src/errors.js';
import { downloadOptions } from '../helpers/download.js';
import { startHostileServer } from '../helpers/servers.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'backupctl-sec-dl-'));
  dirs.push(d);
  return d;
};
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const options = (dir: string, extra = {}) => downloadOptions(dir, { parallel: 1, ...extra });

/** Bytes whose value depends on the offset, so a misplaced block shows. */
function pattern(n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7 + (i >> 8)) & 0xff;
  return b;
}

async function hostile(handle: Parameters<typeof startHostileServer>[0]) {
  const s = await startHostileServer(handle);
  closers.push(s.close);
  return s;
}

describe('finding 1: the temporary file cannot be planted', () => {
  it('a symlink at the old predictable temp name is neither followed nor used', async () => {
    const body = Buffer.from('the backup\n');
    const srv = await hostile((_req, res) => res.end(body));
    const dir = tmp();
    const victimDir = tmp();
    const victim = path.join(victimDir, 'passwd');
    writeFileSync(victim, 'root:x:0:0\n');
    // Another user's trap: the name the download used to pick (.<name>.part-<pid>).
    symlinkSync(victim, path.join(dir, `.db.sql.part-${process.pid}`));
    const got = await downloadFiles([{ name: 'db.sql', url: `${srv.url}/f/db.sql`, size: body.length }], options(dir));
    expect(got[0]!.bytes).toBe(body.length);
    expect(readFileSync(victim, 'utf8')).toBe('root:x:0:0\n');
    const final = path.join(dir, 'db.sql');
    expect(lstatSync(final).isSymbolicLink()).toBe(false);
    expect(lstatSync(final).mode & 0o077).toBe(0);
    expect(readFileSync(final)).toEqual(body);
    // Only the trap (untouched) and the file: the private temp file is gone.
    expect(readdirSync(dir).sort()).toEqual([`.db.sql.part-${process.pid}`, 'db.sql']);
    expect(readlinkSync(path.join(dir, `.db.sql.part-${process.pid}`))).toBe(victim);
  });

  it('a dangling symlink at the final name is not replaced without --force', async () => {
    const srv = await hostile((_req, res) => res.end('data'));
    const dir = tmp();
    const elsewhere = path.join(tmp(), 'created-by-the-trap');
    symlinkSync(elsewhere, path.join(dir, 'db.sql'));
    const err = await downloadFiles([{ name: 'db.sql', url: `${srv.url}/f`, size: 4 }], options(dir)).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain('--force');
    expect(srv.received).toHaveLength(0);
    expect(readlinkSync(path.join(dir, 'db.sql'))).toBe(elsewhere);
    expect(existsSync(elsewhere)).toBe(false);
    // With --force the link itself is replaced; the file it named is not created.
    await downloadFiles([{ name: 'db.sql', url: `${srv.url}/f`, size: 4 }], options(dir, { force: true }));
    expect(lstatSync(path.join(dir, 'db.sql')).isSymbolicLink()).toBe(false);
    expect(readFileSync(path.join(dir, 'db.sql'), 'utf8')).toBe('data');
    expect(existsSync(elsewhere)).toBe(false);
  });

  it('a symlink planted at the final name during the transfer is not replaced without --force', async () => {
    const dir = tmp();
    const elsewhere = path.join(tmp(), 'target');
    writeFileSync(elsewhere, 'keep');
    const srv = await hostile((_req, res) => {
      res.writeHead(200, { 'content-length': '4' });
      res.write('da');
      symlinkSync(elsewhere, path.join(dir, 'db.sql'));
      setTimeout(() => res.end('ta'), 20);
    });
    const err = await downloadFiles([{ name: 'db.sql', url: `${srv.url}/f`, size: 4 }], options(dir)).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(readlinkSync(path.join(dir, 'db.sql'))).toBe(elsewhere);
    expect(readFileSync(elsewhere, 'utf8')).toBe('keep');
    expect(readdirSync(dir)).toEqual(['db.sql']);
  });
});

describe('finding 4: a resume is checked against what is written', () => {
  it('a 206 that starts at 0 after a break at 40,000 is not appended', async () => {
    const file = pattern(100_000);
    const srv = await hostile((req, res, n) => {
      if (n === 1) {
        res.writeHead(200, { 'content-length': String(file.length) });
        res.write(file.subarray(0, 40_000), () => setTimeout(() => res.destroy(), 20));
        return;
      }
      // Claims to resume but sends the whole file from byte 0.
      res.writeHead(206, { 'content-range': `bytes 0-${file.length - 1}/${file.length}`, 'content-length': String(file.length) });
      res.end(file);
    });
    const dir = tmp();
    const got = await downloadFiles([{ name: 'big.bin', url: `${srv.url}/big` }], options(dir));
    expect(srv.received[1]!.headers.range).toBe('bytes=40000-');
    const written = readFileSync(path.join(dir, 'big.bin'));
    expect(written.length).toBe(100_000);
    expect(written.equals(file)).toBe(true);
    expect(got[0]!.bytes).toBe(100_000);
  });

  it('a 206 for a file of another total length starts over', async () => {
    const file = pattern(50_000);
    const srv = await hostile((req, res, n) => {
      if (n === 1) {
        res.writeHead(200, { 'content-length': String(file.length) });
        res.write(file.subarray(0, 20_000), () => setTimeout(() => res.destroy(), 20));
      } else if (req.headers.range) {
        res.writeHead(206, { 'content-range': `bytes 20000-79999/80000`, 'content-length': '60000' });
        res.end(pattern(80_000).subarray(20_000));
      } else {
        res.writeHead(200, { 'content-length': String(file.length) });
        res.end(file);
      }
    });
    const dir = tmp();
    await downloadFiles([{ name: 'f.bin', url: `${srv.url}/f` }], options(dir));
    expect(srv.received.map((r) => r.headers.range)).toEqual([undefined, 'bytes=20000-', undefined]);
    expect(readFileSync(path.join(dir, 'f.bin')).equals(file)).toBe(true);
  });

  it('stops as soon as the bytes pass the record size (an endless stream for a 13-byte record)', async () => {
    let sent = 0;
    const srv = await hostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x41);
      // At most 256 MB, and only while the client reads.
      const pump = () => {
        while (sent < 256 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    const dir = tmp();
    const started = Date.now();
    const err = await downloadFiles([{ name: 'small.txt', url: `${srv.url}/s`, size: 13 }], options(dir)).catch((e) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as Error).message).toMatch(/more than the 13 bytes/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(sent).toBeLessThan(16 * 1024 * 1024);
    expect(srv.received).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a chunked body (no Content-Length) shorter than the record is an error, exit non-zero, and leaves no file (issue 23 §6)', async () => {
    const srv = await hostile((_req, res) => {
      // Chunked: the client learns the length only from the record.
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' });
      res.write(pattern(600));
      res.end(pattern(399));
    });
    const dir = tmp();
    const err = await downloadFiles([{ name: 'short.tar.gz', url: `${srv.url}/short`, size: 1000 }], options(dir)).catch((e) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).not.toBe(0);
    expect((err as Error).message).toMatch(/got 999 bytes, the backup record says 1000/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a Content-Length over the record size is refused before reading the body', async () => {
    const srv = await hostile((_req, res) => {
      res.writeHead(200, { 'content-length': '2000000000' });
      res.write(Buffer.alloc(1000));
    });
    const dir = tmp();
    const err = await downloadFiles([{ name: 'x', url: `${srv.url}/x`, size: 13 }], options(dir)).catch((e) => e);
    expect((err as Error).message).toMatch(/announces 2000000000 bytes, the backup record says 13/);
    expect(srv.received).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the shared transfer feeds any sink, restarting it when the resume is wrong', async () => {
    const file = pattern(30_000);
    const srv = await hostile((req, res, n) => {
      if (n === 1 || !req.headers.range) {
        res.writeHead(200, { 'content-length': String(file.length) });
        if (n > 1) return void res.end(file);
        res.write(file.subarray(0, 10_000), () => setTimeout(() => res.destroy(), 20));
        return;
      }
      res.writeHead(206, { 'content-range': `bytes 5000-29999/30000` });
      res.end(file.subarray(5000));
    });
    const chunks: Buffer[] = [];
    let restarts = 0;
    const sink = {
      restart: async () => {
        restarts++;
        chunks.length = 0;
      },
      write: async (c: Buffer) => void chunks.push(Buffer.from(c)),
    };
    const got = await transfer(`${srv.url}/f`, sink, {
      signal: new AbortController().signal,
      timeoutMs: 5000,
      stderr: new PassThrough(),
      debug: false,
      label: 'f',
      retryDelayMs: 5,
    });
    expect(srv.received.map((r) => r.headers.range)).toEqual([undefined, 'bytes=10000-', undefined]);
    expect(restarts).toBe(1);
    expect(Buffer.concat(chunks).equals(file)).toBe(true);
    expect(got.bytes).toBe(30_000);
  });
});

describe('finding 10: download URLs and names', () => {
  it('file:, data: and relative URLs are refused at once, nothing fetched or created', async () => {
    for (const url of ['file:///etc/passwd', 'data:text/plain,hello', '/v1/files/x', 'ftp://127.0.0.1/x']) {
      const dir = tmp();
      const started = Date.now();
      const err = await downloadFiles([{ name: 'x', url }], options(dir, { retryDelayMs: 2000 })).catch((e) => e);
      expect(err).toBeInstanceOf(CliError);
      expect((err as Error).message).toMatch(/not http\(s\)/);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('a U+202E (right-to-left override) in a file name is not kept on disk', () => {
    expect(safeFileName('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(safeFileName('a\u001b[31mred')).toBe('ared');
  });
});
