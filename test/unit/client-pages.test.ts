// The client's page walk against a local server whose pages answer out of
// order: records must still come out in page order, each page asked once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { createClient } from '../../src/http/client.js';

const TOTAL_PAGES = 12;
let server: http.Server;
let base: string;
const asked: string[] = [];
let mode: 'laravel' | 'links-only' | 'bare' = 'laravel';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    asked.push(u.search);
    const page = Number(u.searchParams.get('page') ?? 1);
    const size = Number(u.searchParams.get('page_size') ?? 15);
    const data = Array.from({ length: page <= TOTAL_PAGES ? size : 0 }, (_, i) => ({ id: (page - 1) * size + i + 1 }));
    const body =
      mode === 'laravel'
        ? { data, links: { next: page < TOTAL_PAGES ? `${base}/v1/things?page=${page + 1}` : null }, meta: { current_page: page, last_page: TOTAL_PAGES } }
        : mode === 'links-only'
          ? { data, links: { next: page < TOTAL_PAGES ? `${base}/v1/things?page=${page + 1}` : null } }
          : { data: page < TOTAL_PAGES ? data : data.slice(0, 3) };
    // Later pages answer sooner, so concurrent fetches complete out of order.
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    }, (TOTAL_PAGES - page) * 3);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function walk(pageConcurrency: number) {
  asked.length = 0;
  const client = createClient({ baseUrl: base, token: 't', timeoutMs: 5000, debug: false, stderr: new PassThrough(), pageConcurrency });
  const ids: number[] = [];
  for await (const p of client.pages({ method: 'GET', path: '/things', query: { status: 'ok', page_size: 20 } }, { all: true })) {
    ids.push(...p.records.map((r) => (r as { id: number }).id));
  }
  await client.close();
  return ids;
}

describe('page walk', () => {
  for (const m of ['laravel', 'links-only', 'bare'] as const) {
    for (const conc of [1, 6]) {
      it(`${m}, concurrency ${conc}: every record once, in order, filters on every page`, async () => {
        mode = m;
        const ids = await walk(conc);
        const expected = m === 'bare' ? (TOTAL_PAGES - 1) * 20 + 3 : TOTAL_PAGES * 20;
        expect(ids).toEqual(Array.from({ length: expected }, (_, i) => i + 1));
        expect(asked).toHaveLength(TOTAL_PAGES);
        for (const q of asked) expect(q).toContain('status=ok&page_size=20');
      });
    }
  }
});
