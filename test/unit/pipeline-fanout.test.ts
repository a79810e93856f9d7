// The one read pipeline fans each file's decoded bytes out to verify's check and
// to content sinks shaped like restore-test's DispatchSink: the kind the one
// sniffer found, the same decoded bytes, restart, end, abort.
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { readBackups, type ByteSink, type Content, type ContentSink, type PipelineBackup, type Transfer } from '../../src/pipeline/index.js';
import type { DispatchSink } from '../../src/restore/dispatch.js';
import { buildArchive } from '../../src/emulator/archives.js';

/** A transfer over in-memory files; `restartAfter` makes it start over once after that many bytes. */
function memoryTransfer(files: Record<string, Buffer>, opts: { restartAfter?: number; failAt?: number } = {}): Transfer {
  return {
    async read(file, sink: ByteSink) {
      const bytes = files[file.url]!;
      let restarted = opts.restartAfter === undefined;
      for (let i = 0; i < bytes.length; i += 1000) {
        if (opts.failAt !== undefined && i >= opts.failAt) throw new Error('connection reset');
        await sink.write(bytes.subarray(i, i + 1000));
        if (!restarted && i + 1000 >= opts.restartAfter!) {
          restarted = true;
          await sink.restart();
          i = -1000;
        }
      }
      return { bytes: bytes.length, resumed: false };
    },
    range: (url, start, end) => Readable.from([files[url]!.subarray(start, end + 1)]),
  };
}

class Collecting implements ContentSink<string> {
  chunks: Buffer[] = [];
  opened: Content[] = [];
  async open(content: Content) {
    this.opened.push(content);
  }
  restarts = 0;
  aborted: unknown;
  ended = false;
  async write(chunk: Buffer) {
    this.chunks.push(Buffer.from(chunk));
  }
  restart() {
    this.restarts++;
    this.chunks = [];
  }
  async end() {
    this.ended = true;
    return createHash('sha256').update(Buffer.concat(this.chunks)).digest('hex');
  }
  async abort(reason?: unknown) {
    this.aborted = reason ?? true;
  }
}

const dump = buildArchive({ kind: 'postgres', name: 'dump-pg', length: 9000 });
const backup = (size: unknown = `${dump.length} bytes`): PipelineBackup => ({ id: 'b1', created_at: null, status: 'completed', encrypted: false, files: [{ name: 'db.sql.gz', url: 'u1', size }] });
const base = { parallel: 1, signal: new AbortController().signal, now: () => new Date(0) };

describe('read pipeline: fan-out to extra sinks', () => {
  it('a content sink gets the kind and the decoded bytes the check read, restart included, and its end() value', async () => {
    const sink = new Collecting();
    // restore-test's sink is a ContentSink: it plugs in as it is.
    const asRestore: ContentSink<unknown> = {} as DispatchSink;
    expect(asRestore).toBeDefined();
    const [[out]] = await readBackups([backup()], { ...base, transfer: memoryTransfer({ u1: dump }, { restartAfter: 3000 }), sinks: () => [sink] });
    expect(out!.result).toMatchObject({ verdict: 'verified', format: 'pg_dump.gz', bytes: dump.length });
    expect(sink.restarts).toBe(1);
    const sha = createHash('sha256').update(dump).digest('hex');
    expect(out!.result.sha256).toBe(sha);
    // Opened with the kind the one sniffer found (the restart came before the first batch reached the content stage).
    expect(sink.opened).toEqual([{ kind: 'pg-plain', gzip: true, encrypted: false, statements: true }]);
    expect(out!.extras).toEqual([{ ok: true, value: createHash('sha256').update(gunzipSync(dump)).digest('hex') }]);
    expect(sink.aborted).toBeUndefined();
  });

  it('a transfer that fails aborts the extra sink; verify says not-tested, with the exit code of the cause (issue 29: nothing is known of the bytes)', async () => {
    const sink = new Collecting();
    const [[out]] = await readBackups([backup()], { ...base, transfer: memoryTransfer({ u1: dump }, { failAt: 2000 }), sinks: () => [sink] });
    expect(out!.result.verdict).toBe('not-tested');
    expect(out!.result.exit_code).toBe(6);
    expect(out!.result.reasons[0]).toMatch(/^download: connection reset/);
    expect(sink.aborted).toBeInstanceOf(Error);
    expect(sink.ended).toBe(false);
    expect(out!.extras[0]!.ok).toBe(false);
  });

  it("verify's checks still fail damaged bytes while a content sink reads them", async () => {
    const damaged = Buffer.from(dump);
    damaged[damaged.length - 6]! ^= 0xff;
    const sink = new Collecting();
    const [[out]] = await readBackups([backup()], { ...base, transfer: memoryTransfer({ u1: damaged }), sinks: () => [sink] });
    expect(out!.result.verdict).toBe('failed');
    expect(out!.result.reasons.join()).toMatch(/gzip: (CRC-32|length) mismatch/);
  });

  it('a sink that throws is dropped, the checks go on to their verdict', async () => {
    const throwing: ContentSink<string> = { open: async () => {}, write: async () => Promise.reject(new Error('engine died')), restart() {}, end: async () => 'never', abort: async () => {} };
    const [[out]] = await readBackups([backup()], { ...base, transfer: memoryTransfer({ u1: dump }), sinks: () => [throwing] });
    expect(out!.result).toMatchObject({ verdict: 'verified', format: 'pg_dump.gz' });
    expect(out!.extras[0]).toMatchObject({ ok: false, error: new Error('engine died') });
  });
});
