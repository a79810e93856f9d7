// PipedClient (src/restore/sql/client.ts), the stdin of psql and pg_restore: a write returns while
// up to 8 MB wait for the pipe, so the client always has work queued when this process pauses;
// past that it waits until the queue is down to 4 MB; a client that is gone releases a waiting
// write. The client here is `sleep`, which never reads its stdin: only the queue moves.
import { afterEach, describe, expect, it } from 'vitest';
import { PipedClient } from '../../src/restore/sql/client.js';

const MB = 1 << 20;
const settledWithin = async (p: Promise<unknown>, ms: number) => Promise.race([p.then(() => 'settled'), new Promise((r) => setTimeout(() => r('pending'), ms))]);

let client: PipedClient | undefined;
afterEach(async () => {
  await client?.kill();
  client = undefined;
});

describe('PipedClient: how far writes run ahead of the client', () => {
  it('writes up to 8 MB return although the client reads nothing; the next one waits; the client gone releases it', async () => {
    client = new PipedClient('sleep', ['30'], { env: { PATH: process.env.PATH } });
    // 8 writes of 1 MB: the pipe takes ~64 kB, the rest waits in the queue; none of these waits.
    for (let i = 0; i < 8; i++) await client.writeBuffer(Buffer.alloc(MB, 0x61));
    expect(client.child.stdin!.writableLength).toBeGreaterThan(7 * MB);
    // Past 8 MB: this write waits (nothing drains the queue while the client reads nothing).
    const waiting = client.writeBuffer(Buffer.alloc(MB, 0x62));
    expect(await settledWithin(waiting, 300)).toBe('pending');
    await client.kill();
    expect(await settledWithin(waiting, 5_000)).toBe('settled');
    expect(client.dead).toBe(true);
  });

  it('text is gathered into 1 MB writes and runs ahead the same way', async () => {
    client = new PipedClient('sleep', ['30'], { env: { PATH: process.env.PATH } });
    for (let i = 0; i < 8 * 16; i++) await client.write('x'.repeat(MB / 16 - 1) + '\n');
    // Gathered, not yet all written: at most one 1 MB batch is still held back.
    expect(client.child.stdin!.writableLength).toBeGreaterThan(6 * MB);
    const waiting = (async () => {
      for (let i = 0; i < 32; i++) await client!.write('y'.repeat(MB / 16 - 1) + '\n');
    })();
    expect(await settledWithin(waiting, 300)).toBe('pending');
    await client.kill();
    expect(await settledWithin(waiting, 5_000)).toBe('settled');
  });

  it('a client that reads gets everything, in order, and end() reports its exit', async () => {
    client = new PipedClient('sh', ['-c', 'wc -c >&2'], { env: { PATH: process.env.PATH } });
    for (let i = 0; i < 20; i++) await client.writeBuffer(Buffer.alloc(MB, 0x61));
    await client.write('tail\n');
    const r = await client.end();
    expect(r.code).toBe(0);
    expect(r.stderr.trim()).toBe(String(20 * MB + 5));
  });
});
