// What the API agent's `pipelining: 2` (src/http/client.ts) allows on the wire, as
// docs/exit-codes.md says: a GET may follow an answer whose headers are in, on the same
// connection; a POST, PUT or DELETE is never written on a connection while an answer is
// still coming on it. A local server sends a GET's headers at once and holds the end of
// its body; the test records what arrives on each connection and when. The second test
// fails with undici's default pipelining of 1 (the setting bench/results.md measures).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { createClient } from '../../src/http/client.js';

const HOLD_MS = 1000;
let server: net.Server;
let base: string;
/** What arrived on each connection (its bytes, as they came) and when each answer ended. */
const events: { socket: number; what: string; at: number }[] = [];
let nextId = 1;

// A raw HTTP/1.1 server, so that a request is seen when its bytes arrive, not when a
// server library gets round to it (node:http holds a pipelined request until the answer
// before it has ended). Answers go out in order, one at a time per connection.
beforeAll(async () => {
  server = net.createServer((socket) => {
    const id = nextId++;
    let buf = Buffer.alloc(0);
    const queue: string[] = [];
    let busy = false;
    const answer = () => {
      if (busy || queue.length === 0) return;
      busy = true;
      const what = queue.shift()!;
      const path = what.split(' ')[1];
      const end = (last: string) => {
        socket.write(last);
        events.push({ socket: id, what: `end ${what}`, at: performance.now() });
        busy = false;
        answer();
      };
      if (path.startsWith('/v1/slow')) {
        const body = '{"data":{"id":"slow","pad":"' + 'x'.repeat(64) + '"}}';
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, -4)}`);
        setTimeout(() => end(body.slice(-4)), HOLD_MS);
      } else {
        const body = JSON.stringify({ data: { id: path } });
        end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
      }
    };
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const head = buf.indexOf('\r\n\r\n');
        if (head < 0) break;
        const text = buf.toString('latin1', 0, head);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text)?.[1] ?? 0);
        if (buf.length < head + 4 + length) break;
        buf = buf.subarray(head + 4 + length);
        const what = text.split('\r\n')[0].split(' ').slice(0, 2).join(' ');
        events.push({ socket: id, what, at: performance.now() });
        queue.push(what);
      }
      answer();
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('API connections (pipelining: 2)', () => {
  it('never writes a POST, PUT or DELETE on a connection whose answer is still coming', async () => {
    events.length = 0;
    const client = createClient({ baseUrl: base, token: 't', timeoutMs: 5000, debug: false, stderr: new PassThrough() });
    // As many held answers as the agent has connections (8): each has sent its headers.
    const slow = Array.from({ length: 8 }, (_, n) => client.request({ method: 'GET', path: '/slow', query: { n } }));
    await new Promise((r) => setTimeout(r, 100));
    const others = await Promise.all([
      client.request({ method: 'POST', path: '/a', body: { n: 1 } }),
      client.request({ method: 'PUT', path: '/b', body: { n: 2 } }),
      client.request({ method: 'DELETE', path: '/c' }),
      client.request({ method: 'GET', path: '/d' }),
    ]);
    const answers = await Promise.all(slow);
    await client.close();
    expect(answers.map((a) => (a.body as { data: { id: string } }).data.id)).toEqual(Array(8).fill('slow'));
    expect(others.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(others.map((r) => (r.body as { data: { id: string } }).data.id)).toEqual(['/v1/a', '/v1/b', '/v1/c', '/v1/d']);

    for (const what of ['POST /v1/a', 'PUT /v1/b', 'DELETE /v1/c']) {
      const i = events.findIndex((x) => x.what === what);
      expect(i, what).toBeGreaterThanOrEqual(0);
      const e = events[i];
      // Every answer asked for earlier on its connection had ended when its bytes arrived.
      const before = events.slice(0, i).filter((x) => x.socket === e.socket && !x.what.startsWith('end '));
      for (const b of before) {
        const ended = events.slice(0, i).some((x) => x.socket === e.socket && x.what === `end ${b.what}`);
        expect(ended, `${what} arrived while ${b.what} was still answering on its connection`).toBe(true);
      }
    }
  });

  it('writes a GET on a connection whose answer has sent its headers, without waiting for its end', async () => {
    events.length = 0;
    const client = createClient({ baseUrl: base, token: 't', timeoutMs: 5000, debug: false, stderr: new PassThrough() });
    const slow = Array.from({ length: 8 }, (_, n) => client.request({ method: 'GET', path: '/slow', query: { n } }));
    await new Promise((r) => setTimeout(r, 100));
    const gets = await Promise.all(Array.from({ length: 8 }, (_, n) => client.request({ method: 'GET', path: `/e${n}` })));
    await Promise.all(slow);
    await client.close();
    expect(gets.map((r) => (r.body as { data: { id: string } }).data.id)).toEqual(Array.from({ length: 8 }, (_, n) => `/v1/e${n}`));
    // With undici's default pipelining of 1 none would leave before a held answer ended.
    const early = events.filter((e, i) => /^GET \/v1\/e/.test(e.what) && !events.slice(0, i).some((x) => x.what.startsWith('end GET /v1/slow')));
    expect(early.length).toBeGreaterThan(0);
  });
});
