// The emulator's real backup files: exactly the length their record states,
// the same bytes on every call, ranges that agree with the whole, the big
// streamed .tar.gz, and --changing-files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gunzipSync } from 'node:zlib';
import { bigTarGzStream, buildArchive, type ArchiveKind } from '../../src/emulator/archives.js';
import { apiFetch, startTestEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';

type Json = any;

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Buffer>) parts.push(c);
  return Buffer.concat(parts);
}

describe('archives', () => {
  it('every kind is exactly the length asked for, and the same bytes every time', () => {
    const kinds: ArchiveKind[] = ['tar.gz', 'mysql', 'postgres', 'mongo', 'zip', 'checksums', 'encrypted'];
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.integer({ min: 600, max: 120_000 }), fc.string({ minLength: 1, maxLength: 20 }), (kind, length, name) => {
        const a = buildArchive({ kind, name, length });
        expect(a.length).toBe(length);
        expect(buildArchive({ kind, name, length }).equals(a)).toBe(true);
        if (kind !== 'zip' && kind !== 'checksums' && kind !== 'encrypted') expect(() => gunzipSync(a)).not.toThrow();
      }),
      { numRuns: 30 },
    );
  });

  it('the big .tar.gz is exactly its length, gunzips whole, and any range equals the slice of the whole', async () => {
    const total = 3 * 1024 * 1024 + 777;
    const whole = await collect(bigTarGzStream(total));
    expect(whole.length).toBe(total);
    expect(gunzipSync(whole).length % 512).toBe(0);
    for (const [start, end] of [[0, 99], [65_530, 200_000], [total - 10, total - 1]] as const) {
      expect((await collect(bigTarGzStream(total, start, end))).equals(whole.subarray(start, end + 1))).toBe(true);
    }
  });
});

describe('files server', () => {
  let emu: Emulator;
  let changing: Emulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ bigFile: 2 * 1024 * 1024 });
    changing = await startTestEmulator({ changingFiles: true });
  });
  afterAll(async () => {
    await emu.close();
    await changing.close();
  });

  async function newestFile(e: Emulator, jobName: string): Promise<{ name: string; size: string; url: string }> {
    const jobs = ((await (await apiFetch(e, '/v1/jobs?page_size=100')).json()) as Json).data;
    const job = jobs.find((j: Json) => j.name === jobName);
    const backup = ((await (await apiFetch(e, `/v1/jobs/${job.id}/backups?status=completed&sort=-created_at`)).json()) as Json).data[0];
    return backup.files[0];
  }

  it('streams the big file with its stated size, whole and by range', async () => {
    const file = await newestFile(emu, 'big file');
    expect(file.size).toBe('2 MB');
    const res = await fetch(file.url);
    expect(res.headers.get('content-length')).toBe(String(2 * 1024 * 1024));
    const whole = Buffer.from(await res.arrayBuffer());
    expect(whole.length).toBe(2 * 1024 * 1024);
    const part = await fetch(file.url, { headers: { Range: 'bytes=1000000-1000999' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(whole.subarray(1_000_000, 1_001_000))).toBe(true);
  });

  it('--changing-files: every whole GET gives other bytes of the same length; a range reads the latest', async () => {
    const file = await newestFile(changing, 'api postgres');
    const first = Buffer.from(await (await fetch(file.url)).arrayBuffer());
    const second = Buffer.from(await (await fetch(file.url)).arrayBuffer());
    expect(second.length).toBe(first.length);
    expect(second.equals(first)).toBe(false);
    expect(gunzipSync(second).equals(gunzipSync(first))).toBe(true);
    const tail = Buffer.from(await (await fetch(file.url, { headers: { Range: 'bytes=0-15' } })).arrayBuffer());
    expect(tail.equals(second.subarray(0, 16))).toBe(true);
  });
});
