// The paging rules (src/http/paging.ts, as api-facts.md says), each on its own, beside the e2e tests that list
// with --all (issue 45: a planted bug in the paging was caught by a single test). Which page comes next (links.next
// while it is a URL, else meta.current_page/last_page, else a full page), when a walk stops (a null next link, the
// last page, a short or empty page, a next link that does not move forward, a page number that is no safe
// integer, the page cap BACKUPCTL_MAX_PAGES), and that the filters and page_size of the first request go on every
// page. The walk's cases run the client against a local server and look at the requests it sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { morePagesHint } from '../../src/cli/generic.js';
import { createClient } from '../../src/http/client.js';
import { lastPage, nextPageQuery, toInt } from '../../src/http/paging.js';

const Q = { status: 'ok', page_size: 20 };

describe('the next page', () => {
  it.each([
    // [name, query, answer, records received, the next query or undefined]
    ['links.next with a page: that page, the filters and page_size kept', Q, { links: { next: 'https://svc/v1/x?page=2' } }, 20, { ...Q, page: 2 }],
    ['links.next that drops the filters: they are kept', { ...Q, page: 3 }, { links: { next: '/v1/x?page=4' } }, 20, { ...Q, page: 4 }],
    ['links.next that skips ahead: followed', { ...Q, page: 3 }, { links: { next: '/v1/x?page=7' } }, 20, { ...Q, page: 7 }],
    ['links.next without a page number: the page after this one', { ...Q, page: 5 }, { links: { next: '/v1/x?cursor=abc' } }, 20, { ...Q, page: 6 }],
    ['links.next to this page: stop (it would loop)', { ...Q, page: 3 }, { links: { next: '/v1/x?page=3' } }, 20, undefined],
    ['links.next to an earlier page: stop', { ...Q, page: 3 }, { links: { next: '/v1/x?page=1' } }, 20, undefined],
    ['links.next null: stop, whatever meta says', Q, { links: { next: null }, meta: { current_page: 1, last_page: 9 } }, 20, undefined],
    ['links.next empty: meta decides', Q, { links: { next: '' }, meta: { current_page: 1, last_page: 2 } }, 20, { ...Q, page: 2 }],
    ['meta: current below last', Q, { meta: { current_page: 1, last_page: 3 } }, 20, { ...Q, page: 2 }],
    ['meta: the last page', { ...Q, page: 3 }, { meta: { current_page: 3, last_page: 3 } }, 20, undefined],
    ['meta: the page is read from the query before meta', { ...Q, page: 2 }, { meta: { current_page: 1, last_page: 3 } }, 20, { ...Q, page: 3 }],
    ['meta: current_page when the query has none', Q, { meta: { current_page: 2, last_page: 3 } }, 20, { ...Q, page: 3 }],
    ['meta: last_page as a digit string', Q, { meta: { current_page: '1', last_page: '2' } }, 20, { ...Q, page: 2 }],
    ['nothing but records: a full page (page_size) goes on', Q, { data: [] }, 20, { ...Q, page: 2 }],
    ['nothing but records: a short page stops', Q, { data: [] }, 19, undefined],
    ['nothing but records: an empty page stops', { page_size: 0 }, { data: [] }, 0, undefined],
    ['no page_size asked: the service\'s 15 is a full page', { status: 'ok' }, {}, 15, { status: 'ok', page: 2 }],
    ['no page_size asked: 14 is short', { status: 'ok' }, {}, 14, undefined],
    ['page_size as text', { page_size: '50' }, {}, 50, { page_size: '50', page: 2 }],
    ['100 asked, 15 came (a service that ignores page_size): the next page is asked for', { page_size: 100 }, { data: [] }, 15, { page_size: 100, page: 2 }],
    ['100 asked, 16 came: short, stop', { page_size: 100 }, { data: [] }, 16, undefined],
    ['100 asked, 14 came: short, stop', { page_size: 100 }, { data: [] }, 14, undefined],
    ['no answer at all: by the count', Q, null, 20, { ...Q, page: 2 }],
  ] as [string, Record<string, string | number>, unknown, number, Record<string, string | number> | undefined][])('%s', (_name, query, raw, received, next) => {
    expect(nextPageQuery(query, raw, received)).toEqual(next);
  });

  it('the query asked is not changed', () => {
    const q = { ...Q, page: 1 };
    nextPageQuery(q, { meta: { current_page: 1, last_page: 3 } }, 20);
    expect(q).toEqual({ ...Q, page: 1 });
  });
});

describe('page numbers: whole, safe integers only', () => {
  it.each([
    [7, 7],
    ['7', 7],
    ['007', 7],
    [0, 0],
    [-1, -1],
    [1.5, undefined],
    ['1.5', undefined],
    ['-1', undefined],
    [' 7', undefined],
    [1e308, undefined],
    ['9007199254740993', undefined],
    [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    [null, undefined],
    [undefined, undefined],
  ] as [unknown, number | undefined][])('%j -> %j', (v, n) => {
    expect(toInt(v)).toBe(n);
  });

  it('a last_page or next page that is no safe integer never walks on', () => {
    expect(nextPageQuery({ page: 9007199254740991 }, { links: { next: '/x?page=9007199254740993' } }, 20)).toEqual({ page: 9007199254740992 });
    expect(nextPageQuery({}, { meta: { current_page: 1, last_page: 1e308 } }, 3)).toBeUndefined();
    expect(lastPage({ meta: { last_page: 12 } })).toBe(12);
    expect(lastPage({ meta: { last_page: '1e3' } })).toBeUndefined();
    expect(lastPage(undefined)).toBeUndefined();
  });
});

describe('the hint under one page of several', () => {
  it('says what was shown and which page is next; nothing on the last page', () => {
    expect(morePagesHint({}, { meta: { current_page: 1, last_page: 3, total: 42 } }, 15)).toBe('Showing 15 of 42: --all for every page, --page 2 for the next.');
    expect(morePagesHint({ page: 2 }, { meta: { current_page: 2, last_page: 3, total: 42 } }, 15)).toBe('Showing 16-30 of 42: --all for every page, --page 3 for the next.');
    expect(morePagesHint({ page_size: 20 }, { data: [] }, 20)).toBe('Showing 20: --all for every page, --page 2 for the next.');
    expect(morePagesHint({ page: 3 }, { meta: { current_page: 3, last_page: 3, total: 42 } }, 12)).toBeUndefined();
    expect(morePagesHint({ page_size: 20 }, { data: [] }, 7)).toBeUndefined();
  });
});

describe('a walk of every page (--all), against a local server', () => {
  type Answer = (page: number, size: number) => unknown;
  let answer: Answer = () => ({ data: [] });
  const asked: string[] = [];
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const u = new URL(req.url!, 'http://x');
      asked.push(u.search);
      const body = answer(Number(u.searchParams.get('page') ?? 1), Number(u.searchParams.get('page_size') ?? 15));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const rows = (page: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: `p${page}-${i}` }));

  async function walk(o: { maxPages?: number; pageConcurrency?: number; query?: Record<string, string | number> } = {}) {
    asked.length = 0;
    const stderr = new PassThrough();
    let said = '';
    stderr.on('data', (d: Buffer) => (said += d.toString()));
    const client = createClient({ baseUrl: base, token: 't', timeoutMs: 5000, debug: false, stderr, pageConcurrency: o.pageConcurrency ?? 1, maxPages: o.maxPages });
    const ids: string[] = [];
    let error: Error | null = null;
    try {
      for await (const p of client.pages({ method: 'GET', path: '/things', query: o.query ?? { status: 'ok', page_size: 20 } }, { all: true })) ids.push(...p.records.map((r) => (r as { id: string }).id));
    } catch (e) {
      error = e as Error;
    } finally {
      await client.close();
    }
    return { ids, asked: [...asked], said, error };
  }

  it('links only: every page once, the filters and page_size on each, to the null link', async () => {
    answer = (p, size) => ({ data: rows(p, size), links: { next: p < 3 ? `${base}/v1/things?page=${p + 1}` : null } });
    const r = await walk();
    expect(r.asked).toEqual(['?status=ok&page_size=20', '?status=ok&page_size=20&page=2', '?status=ok&page_size=20&page=3']);
    expect(r.ids).toHaveLength(60);
    expect(r.error).toBeNull();
  });

  it('meta.last_page, several pages at a time: pages 2..last asked once each, the records in page order', async () => {
    answer = (p, size) => ({ data: rows(p, size), meta: { current_page: p, last_page: 5 } });
    const r = await walk({ pageConcurrency: 3 });
    expect([...r.asked].sort()).toEqual(['?status=ok&page_size=20', ...[2, 3, 4, 5].map((n) => `?status=ok&page_size=20&page=${n}`)].sort());
    expect(r.ids.filter((_, i) => i % 20 === 0)).toEqual(['p1-0', 'p2-0', 'p3-0', 'p4-0', 'p5-0']);
  });

  it('nothing but records: stops after the first short page', async () => {
    answer = (p, size) => ({ data: rows(p, p < 3 ? size : 4) });
    const r = await walk();
    expect(r.asked).toHaveLength(3);
    expect(r.ids).toHaveLength(44);
  });

  it('an empty page ends the walk, even with a next link', async () => {
    answer = (p, size) => ({ data: p < 2 ? rows(p, size) : [], links: { next: `${base}/v1/things?page=${p + 1}` } });
    const r = await walk();
    expect(r.asked).toHaveLength(2);
    expect(r.ids).toHaveLength(20);
  });

  it('a last_page that overstates stops at the first empty page', async () => {
    answer = (p, size) => ({ data: p <= 2 ? rows(p, size) : [], meta: { current_page: p, last_page: 1_000_000 } });
    const r = await walk({ pageConcurrency: 2 });
    expect(r.ids).toHaveLength(40);
    expect(r.error).toBeNull();
    expect(r.said).toBe('');
    expect(r.asked.length).toBeLessThanOrEqual(5);
  });

  it('a service that ignores page (the same records again): an error naming the page, not a loop', async () => {
    answer = (_p, size) => ({ data: rows(1, size) });
    const r = await walk();
    expect(r.asked).toHaveLength(2);
    expect(r.error?.message).toMatch(/page 2 repeats the records of page 1: the service ignores the page parameter and gives no page numbers/);
  });

  it('the page cap (BACKUPCTL_MAX_PAGES): stops there and says the list is incomplete, with and without last_page', async () => {
    answer = (p, size) => ({ data: rows(p, size), links: { next: `${base}/v1/things?page=${p + 1}` } });
    const links = await walk({ maxPages: 4 });
    expect(links.asked).toHaveLength(4);
    expect(links.ids).toHaveLength(80);
    expect(links.said).toBe('warning: GET /v1/things: stopped after 4 pages, the most one walk reads (BACKUPCTL_MAX_PAGES), and the answer names a next page; the list is incomplete\n');
    answer = (p, size) => ({ data: rows(p, size), meta: { current_page: p, last_page: 9 } });
    const meta = await walk({ maxPages: 4, pageConcurrency: 3 });
    expect(meta.asked).toHaveLength(4);
    expect(meta.said).toBe('warning: GET /v1/things: stopped after 4 pages, the most one walk reads (BACKUPCTL_MAX_PAGES), while the answer claims 9 (meta.last_page); the list is incomplete\n');
    // Exactly at the cap: all of it, and nothing said.
    answer = (p, size) => ({ data: rows(p, size), links: { next: p < 4 ? `${base}/v1/things?page=${p + 1}` : null } });
    const exact = await walk({ maxPages: 4 });
    expect(exact.ids).toHaveLength(80);
    expect(exact.said).toBe('');
  });

  it('a walk that starts at a later page goes on from there', async () => {
    answer = (p, size) => ({ data: rows(p, size), meta: { current_page: p, last_page: 4 } });
    const r = await walk({ query: { page_size: 15, page: 3 } });
    expect(r.asked).toEqual(['?page_size=15&page=3', '?page_size=15&page=4']);
    expect(r.ids[0]).toBe('p3-0');
  });
});
