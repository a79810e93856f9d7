// Issue 18, finding 8: walks without bounds. A service that claims a billion pages
// (meta.last_page) or hands out next links for ever is walked to the same cap as
// every other walk (BACKUPCTL_MAX_PAGES), and the cut is said on stderr.
import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { hostileService, type HostileHandler } from '../helpers/servers.js';
import { createClient, DEFAULT_MAX_PAGES } from '../../src/http/client.js';

type Handle = HostileHandler;
const service = hostileService({ BACKUPCTL_TOKEN: 'tok-walks' });
const cli = service.cli;

const page = (q: URLSearchParams) => Number(q.get('page') ?? '1');
const send = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
/** Every page holds two records and claims a billion pages. */
const billion: Handle = (req, res) => {
  const u = new URL(req.url ?? '/', 'http://x');
  const n = page(u.searchParams);
  if (u.pathname === '/v1/jobs') {
    return send(res, { data: [0, 1].map((i) => ({ id: `job-${n}-${i}`, name: `job ${n}.${i}`, schedule: [] })), meta: { current_page: n, last_page: 1e9 } });
  }
  if (/^\/v1\/jobs\/[^/]+\/backups$/.test(u.pathname)) return send(res, { data: [], meta: { current_page: 1, last_page: 1 } });
  if (u.pathname === '/v1/servers') return send(res, { data: [0, 1].map((i) => ({ id: n * 2 + i, name: `s${n}-${i}` })), meta: { current_page: n, last_page: 1e9 } });
  if (u.pathname.startsWith('/v1/')) return send(res, { data: [], meta: { current_page: 1, last_page: 1 } });
  res.writeHead(404).end();
};

describe('finding 8: every walk has the same cap, and says when it hits it', () => {
  it('--all driven by last_page: 1e9 stops at BACKUPCTL_MAX_PAGES, warns, keeps what it read', async () => {
    service.handle = billion;
    const r = await cli(['servers', 'list', '--all', '-q'], { BACKUPCTL_MAX_PAGES: '40' });
    expect(r.code).toBe(0);
    expect(service.received).toHaveLength(40);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(80);
    expect(r.stderr).toBe(
      'warning: GET /v1/servers: stopped after 40 pages, the most one walk reads (BACKUPCTL_MAX_PAGES), while the answer claims 1000000000 (meta.last_page); the list is incomplete\n',
    );
  });

  it('a next link without a usable page number: the same cap and warning, not 100,000 silent pages', async () => {
    service.handle = (req, res) => {
      const n = service.received.length;
      send(res, { data: [{ id: n, name: `s${n}` }], links: { next: `${service.srv.url}/v1/servers?cursor=opaque-${n}` } });
    };
    const r = await cli(['servers', 'list', '--all', '-q'], { BACKUPCTL_MAX_PAGES: '25' });
    expect(r.code).toBe(0);
    expect(service.received).toHaveLength(25);
    expect(r.stderr).toContain('warning: GET /v1/servers: stopped after 25 pages, the most one walk reads (BACKUPCTL_MAX_PAGES), and the answer names a next page; the list is incomplete');
  });

  it('status with meta.last_page: 1e9: the job list is walked to the cap, each job read once, then it ends', async () => {
    service.handle = billion;
    const r = await cli(['status', '--json'], { BACKUPCTL_MAX_PAGES: '30' });
    const jobPages = service.received.filter((q) => q.url.startsWith('/v1/jobs?'));
    expect(jobPages).toHaveLength(30);
    expect(service.received.filter((q) => /\/backups\?/.test(q.url))).toHaveLength(60);
    expect(r.stderr).toContain('stopped after 30 pages');
    expect(JSON.parse(r.stdout).jobs).toHaveLength(60);
  });

  it('status judges each page of jobs as it arrives, not after holding the whole list', async () => {
    // Page 3 of the job list is held until a job's backups were asked for (at most 4 s):
    // a status that reads every job before judging any asks for none until then.
    let backupsAsked = false;
    let asked = () => {};
    const backupsSeen = new Promise<void>((resolve) => (asked = resolve));
    let heldPageWaitedFor = false;
    service.handle = (req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const n = page(u.searchParams);
      if (u.pathname === '/v1/jobs') {
        const answer = () =>
          send(res, {
            data: [0, 1].map((i) => ({ id: `job-${n}-${i}`, name: `job ${n}.${i}`, schedule: [] })),
            links: { next: n < 4 ? `${service.srv.url}/v1/jobs?page=${n + 1}` : null },
          });
        if (n !== 3) return answer();
        let answered = false;
        const timer = setTimeout(() => {
          answered = true;
          answer();
        }, 4000);
        void backupsSeen.then(() => {
          if (answered) return;
          heldPageWaitedFor = true;
          clearTimeout(timer);
          answer();
        });
        return;
      }
      if (/\/backups$/.test(u.pathname)) {
        backupsAsked = true;
        asked();
      }
      send(res, { data: [], links: { next: null } });
    };
    const r = await cli(['status', '--json']);
    expect(r.code).toBe(0);
    expect(backupsAsked).toBe(true);
    expect(heldPageWaitedFor).toBe(true);
    expect(JSON.parse(r.stdout).jobs).toHaveLength(8);
  });

  it('the default cap is 10,000 pages', async () => {
    service.handle = billion;
    const client = createClient({ baseUrl: service.srv.url, token: 't', timeoutMs: 5000, debug: false, stderr: new PassThrough(), pageConcurrency: 16 });
    let pages = 0;
    for await (const p of client.pages({ method: 'GET', path: '/servers' }, { all: true })) pages += p.records.length ? 1 : 0;
    await client.close();
    expect(DEFAULT_MAX_PAGES).toBe(10_000);
    expect(pages).toBe(10_000);
    expect(service.received).toHaveLength(10_000);
  }, 60_000);

  it('a bad BACKUPCTL_MAX_PAGES is a configuration error, nothing sent', async () => {
    for (const bad of ['0', 'lots', '-3', '1.5']) {
      const r = await cli(['servers', 'list', '--all'], { BACKUPCTL_MAX_PAGES: bad });
      expect(r.code, bad).toBe(3);
      expect(r.stderr, bad).toContain('BACKUPCTL_MAX_PAGES');
    }
    expect(service.received).toHaveLength(0);
  });
});
