import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/http/client.js';
import { memoryIO } from '../helpers/fuzz.js';
import { nextPageQuery } from '../../src/http/paging.js';
import { encodeQuery } from '../../src/http/query.js';
import { redactBody, redactHeaders } from '../../src/http/redact.js';
import { parseRetryAfter, runWithRetries, type RetryPolicy } from '../../src/http/retry.js';
import { AttemptError } from '../../src/http/failures.js';
import type { ApiResponse, RequestSpec } from '../../src/contract/context.js';
import { ApiError, OutcomeUnknownError, TransientError } from '../../src/errors.js';

describe('paging', () => {
  const laravel = (current: number, last: number, next: string | null) => ({
    data: [],
    links: { next },
    meta: { current_page: current, last_page: last },
  });

  it('follows links.next but keeps the filters and page_size it drops', () => {
    const q = { name: 'web', page_size: 50 };
    expect(nextPageQuery(q, laravel(1, 3, 'https://api.x/v1/servers?page=2'), 50)).toEqual({ name: 'web', page_size: 50, page: 2 });
  });
  it('stops when links.next is null', () => {
    expect(nextPageQuery({ page: 3 }, laravel(3, 3, null), 15)).toBeUndefined();
  });
  it('uses meta when there are no links', () => {
    expect(nextPageQuery({}, { data: [], meta: { current_page: 1, last_page: 2 } }, 15)).toEqual({ page: 2 });
    expect(nextPageQuery({ page: 2 }, { data: [], meta: { current_page: 2, last_page: 2 } }, 15)).toBeUndefined();
  });
  it('without links or meta, stops on a short page', () => {
    expect(nextPageQuery({ page_size: 20 }, { data: [] }, 20)).toEqual({ page_size: 20, page: 2 });
    expect(nextPageQuery({ page_size: 20, page: 2 }, { data: [] }, 7)).toBeUndefined();
    expect(nextPageQuery({}, { data: [] }, 0)).toBeUndefined();
  });
  it('never loops on a next link that does not move forward', () => {
    expect(nextPageQuery({ page: 4 }, laravel(4, 9, 'https://api.x/v1/servers?page=4'), 15)).toBeUndefined();
  });
});

describe('query encoding', () => {
  it('writes bracket tags as Laravel reads them and drops unset values', () => {
    expect(encodeQuery({ tags: { manual: 1, weekly: 0 }, status: 'failed', page: undefined, x: null })).toBe(
      '?tags[manual]=1&tags[weekly]=0&status=failed',
    );
  });
  it('encodes reserved characters but keeps datetimes readable', () => {
    expect(encodeQuery({ name: 'a b&c', since: '2026-01-01T00:00:00.000Z' })).toBe('?name=a%20b%26c&since=2026-01-01T00:00:00.000Z');
  });
  it('is empty for no values', () => {
    expect(encodeQuery({})).toBe('');
    expect(encodeQuery(undefined)).toBe('');
  });
});

describe('redaction', () => {
  it('masks the bearer token and secret body fields', () => {
    expect(redactHeaders({ authorization: 'Bearer abc123secret', accept: 'x' })).toEqual({ authorization: 'Bearer ****', accept: 'x' });
    const body = { name: 'n', secret: 's3cr3t', credentials: { key: 'AK', secret: 'SK' }, config: { mysql_password: 'pw', root_path: '/' } };
    const out = JSON.stringify(redactBody(body));
    for (const s of ['s3cr3t', 'AK', 'SK', 'pw']) expect(out).not.toContain(s);
    expect(out).toContain('"root_path":"/"');
    expect(out).toContain('"name":"n"');
  });
  it('keeps an SSH key record (an object under key) readable', () => {
    expect(redactBody({ key: { id: 3, name: 'deploy' } })).toEqual({ key: { id: 3, name: 'deploy' } });
  });
});

describe('retries', () => {
  const fast: RetryPolicy = { maxRetries: 4, baseDelayMs: 1, maxDelayMs: 50, sleep: async () => {}, random: () => 0.5 };
  const ctx = { trace: () => {}, display: 'GET /v1/servers', timeoutMs: 1000 };
  const get: RequestSpec = { method: 'GET', path: '/servers' };
  const post: RequestSpec = { method: 'POST', path: '/jobs/j1/backups/start' };
  const answer = (status: number, headers: Record<string, string> = {}): ApiResponse => ({ status, headers, body: { message: 'm' } });

  it('retries a GET on 503 and succeeds', async () => {
    let n = 0;
    const res = await runWithRetries(get, async () => (++n < 3 ? answer(503) : answer(200)), fast, ctx);
    expect(res.status).toBe(200);
    expect(n).toBe(3);
  });
  it('gives up after 4 retries with exit 6', async () => {
    let n = 0;
    const err = await runWithRetries(get, async () => (n++, answer(502)), fast, ctx).catch((e) => e);
    expect(n).toBe(5);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.exitCode).toBe(6);
  });
  it('does not retry a 404 or 422', async () => {
    let n = 0;
    const err = await runWithRetries(get, async () => (n++, answer(404)), fast, ctx).catch((e) => e);
    expect(n).toBe(1);
    expect(err.exitCode).toBe(5);
  });
  it('never resends a POST after a 500: outcome unknown, exit 7, with the way to check', async () => {
    let n = 0;
    const err = await runWithRetries(post, async () => (n++, answer(500)), fast, { ...ctx, display: 'POST /v1/jobs/j1/backups/start' }).catch((e) => e);
    expect(n).toBe(1);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err.exitCode).toBe(7);
    expect(err.details.join('\n')).toContain('backupctl jobs backup list j1 --sort -created_at');
  });
  it('retries a POST that was refused or rate limited', async () => {
    let n = 0;
    const res = await runWithRetries(
      post,
      async () => {
        n++;
        if (n === 1) throw new AttemptError('connection refused', true, 'network', 'ECONNREFUSED');
        if (n === 2) return answer(429, { 'retry-after': '0' });
        return answer(202);
      },
      fast,
      ctx,
    );
    expect(res.status).toBe(202);
    expect(n).toBe(3);
  });
  it('a POST reset after sending is outcome unknown', async () => {
    const err = await runWithRetries(post, async () => {
      throw new AttemptError('connection reset by the service', false, 'network', 'ECONNRESET');
    }, fast, ctx).catch((e) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
  });
  it('a GET that keeps failing on the network is transient, exit 6', async () => {
    const err = await runWithRetries(get, async () => {
      throw new AttemptError('timed out after 1s', false, 'timeout');
    }, fast, ctx).catch((e) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect(err.exitCode).toBe(6);
    expect(err.message).toContain('after 5 attempts');
  });
  it('honours Retry-After, capped by the policy', async () => {
    const waits: number[] = [];
    let n = 0;
    await runWithRetries(get, async () => (++n === 1 ? answer(429, { 'retry-after': '20' }) : answer(200)), {
      ...fast,
      maxDelayMs: 5000,
      sleep: async (ms) => void waits.push(ms),
    }, ctx);
    expect(waits).toEqual([5000]);
  });
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

// Issue 23 §6: the client's own classification of a reset, from a real socket reset by a local server
// (a TCP RST after the request arrived), not an AttemptError built by hand.
describe('a connection reset by the service, classified by the client itself', () => {
  let server: net.Server;
  let base = '';
  let connections = 0;
  let requests = 0;
  beforeAll(async () => {
    server = net.createServer((socket) => {
      connections++;
      socket.once('data', () => {
        // The request arrived: the service may have acted on it. Then a reset, not a clean close.
        requests++;
        socket.resetAndDestroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = (baseUrl = base) =>
    createClient({ baseUrl, token: 'reset-token', timeoutMs: 5_000, debug: false, stderr: memoryIO().stderr, retry: { maxRetries: 4, baseDelayMs: 1, maxDelayMs: 1, sleep: async () => {} } });

  it('a GET reset after sending is retried, then transient (exit 6), named a reset', async () => {
    connections = requests = 0;
    const c = client();
    const err = await c.request({ method: 'GET', path: '/servers' }).catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(TransientError);
    expect((err as TransientError).exitCode).toBe(6);
    expect((err as Error).message).toMatch(/connection reset by the service.*after 5 attempts/);
    expect(requests).toBe(5);
  });

  it('a POST reset after sending is never resent: outcome unknown, exit 7', async () => {
    connections = requests = 0;
    const c = client();
    const err = await c.request({ method: 'POST', path: '/jobs/j1/backups/start', body: {} }).catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((err as OutcomeUnknownError).exitCode).toBe(7);
    expect((err as Error).message).toContain('connection reset by the service');
    expect(connections).toBe(1);
    expect(requests).toBe(1);
  });

  it('a POST whose connection is refused never arrived: it is retried (exit 6 at the end, not 7)', async () => {
    // A port that was open a moment ago and is closed now: the connection is refused.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const c = client(`http://127.0.0.1:${port}`);
    const err = await c.request({ method: 'POST', path: '/jobs/j1/backups/start', body: {} }).catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(TransientError);
    expect((err as Error).message).toMatch(/connection refused.*after 5 attempts/);
  });
});
