// `--output -` (issue 13, part 6): streamFile writes one file to a stream
// through the shared transfer. Bytes written cannot be taken back, so a retry
// that starts over must replay exactly what was written, or fail.
import { afterEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { streamFile } from '../../src/jobs/download.js';
import { CliError } from '../../src/errors.js';
import { startHostileServer } from '../helpers/servers.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

function pattern(n: number, salt = 0): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7 + (i >> 8) + salt) & 0xff;
  return b;
}

async function hostile(handle: Parameters<typeof startHostileServer>[0]) {
  const s = await startHostileServer(handle);
  closers.push(s.close);
  return s;
}

function collect(): { out: PassThrough; bytes: () => Buffer } {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  return { out, bytes: () => Buffer.concat(chunks) };
}

const opts = () => ({ signal: new AbortController().signal, timeoutMs: 5000, stderr: new PassThrough(), progress: false, debug: false, retryDelayMs: 5 });

/** First answer: 200 with the first `cut` bytes, then the connection drops. Later answers from `later`. */
function breaksAt(file: Buffer, cut: number, later: (req: { headers: Record<string, unknown> }, res: import('node:http').ServerResponse) => void) {
  return hostile((req, res, n) => {
    if (n === 1) {
      res.writeHead(200, { 'content-length': String(file.length) });
      res.write(file.subarray(0, cut), () => setTimeout(() => res.destroy(), 20));
      return;
    }
    later(req as never, res);
  });
}

describe('streamFile', () => {
  it('resumes a broken transfer with Range and writes every byte once', async () => {
    const file = pattern(50_000);
    const srv = await breaksAt(file, 20_000, (req, res) => {
      res.writeHead(206, { 'content-range': `bytes 20000-49999/50000` });
      res.end(file.subarray(20_000));
    });
    const sink = collect();
    const got = await streamFile({ name: 'db.sql.gz', url: `${srv.url}/f`, size: file.length }, sink.out, opts());
    expect(srv.received.map((r) => r.headers.range)).toEqual([undefined, 'bytes=20000-']);
    expect(got).toEqual({ bytes: 50_000, resumed: true });
    expect(sink.bytes().equals(file)).toBe(true);
  });

  it('a server that ignores Range after the break: the bytes already written are skipped in the whole answer', async () => {
    const file = pattern(50_000);
    const srv = await breaksAt(file, 20_000, (_req, res) => {
      res.writeHead(200, { 'content-length': String(file.length) });
      res.end(file);
    });
    const sink = collect();
    await streamFile({ name: 'f', url: `${srv.url}/f` }, sink.out, opts());
    expect(sink.bytes().equals(file)).toBe(true);
  });

  it('a file whose start changed between attempts ends with an error, not a spliced stream', async () => {
    const file = pattern(50_000);
    const other = pattern(50_000, 1);
    const srv = await breaksAt(file, 20_000, (_req, res) => {
      res.writeHead(200, { 'content-length': String(other.length) });
      res.end(other);
    });
    const sink = collect();
    const err = await streamFile({ name: 'f', url: `${srv.url}/f` }, sink.out, opts()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).not.toBe(0);
    expect((err as Error).message).toContain('changed while it was being sent');
    expect(sink.bytes().equals(file.subarray(0, 20_000))).toBe(true);
  });

  it('a transfer that keeps breaking fails (non-zero), whatever was written', async () => {
    const file = pattern(50_000);
    const srv = await hostile((_req, res) => {
      res.writeHead(200, { 'content-length': String(file.length) });
      res.write(file.subarray(0, 1000), () => setTimeout(() => res.destroy(), 5));
    });
    const sink = collect();
    const err = await streamFile({ name: 'f', url: `${srv.url}/f`, size: file.length }, sink.out, { ...opts(), attempts: 3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(6);
    expect(sink.bytes().length).toBeLessThan(file.length);
  });
});
