// Issue 18, finding 10: the retry layer under a hostile or broken service. A junk
// Retry-After is not "no wait"; the last attempt is cut at the overall deadline; a
// Ctrl-C while a POST is out says the request may have reached the service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { parseRetryAfter, runWithRetries, type RetryPolicy } from '../../src/http/retry.js';
import { createClient } from '../../src/http/client.js';
import type { ApiResponse, RequestSpec } from '../../src/contract/context.js';
import { InterruptedError } from '../../src/errors.js';
import { startHostileServer, type HostileRequest, type LocalServer } from '../helpers/servers.js';

const get: RequestSpec = { method: 'GET', path: '/servers' };
const ctx = { trace: () => {}, display: 'GET /v1/servers', timeoutMs: 1000 };
const answer = (status: number, headers: Record<string, string> = {}): ApiResponse => ({ status, headers, body: { message: 'm' } });

describe('a junk Retry-After', () => {
  it('is unreadable, not "retry now": -5, 1e3, 0x10, +5, 5s, an empty date', () => {
    for (const junk of ['-5', '-0.5', '1e3', '0x10', '+5', '5s', 'Thu', ' ', 'NaN', 'Infinity']) expect(parseRetryAfter(junk), junk).toBeUndefined();
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter('7')).toBe(7000);
    const now = Date.parse('2026-03-01T00:00:00Z');
    expect(parseRetryAfter('Sun, 01 Mar 2026 00:00:05 GMT', now)).toBe(5000);
  });

  it('Retry-After: -5 waits the backoff, not zero', async () => {
    const waits: number[] = [];
    let n = 0;
    const policy: RetryPolicy = { maxRetries: 4, baseDelayMs: 400, maxDelayMs: 5000, random: () => 1, sleep: async (ms) => void waits.push(ms) };
    await runWithRetries(get, async () => (++n < 3 ? answer(503, { 'retry-after': '-5' }) : answer(200)), policy, ctx);
    expect(waits).toEqual([400, 800]);
  });
});

describe('the overall deadline', () => {
  let srv: LocalServer & { received: HostileRequest[] };
  beforeAll(async () => {
    // Never answers: every attempt runs into its timeout. close() ends the sockets.
    srv = await startHostileServer(() => {});
  });
  afterAll(() => srv.close());

  it('cuts the last attempt at the deadline instead of letting it run a whole timeout past it', async () => {
    const client = createClient({
      baseUrl: srv.url,
      token: 't',
      timeoutMs: 700,
      debug: false,
      stderr: new PassThrough(),
      retry: { maxRetries: 4, baseDelayMs: 10, maxDelayMs: 10, random: () => 1, deadlineMs: 1600 },
    });
    const started = Date.now();
    const err = await client.request(get).catch((e: Error) => e);
    const took = Date.now() - started;
    await client.close();
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/deadline/);
    // Attempts of 700 + 700 ms and a third cut at 1600 ms (before: a third full 700 ms, ~2.1 s).
    expect(srv.received.length).toBeGreaterThanOrEqual(2);
    expect(took).toBeGreaterThanOrEqual(1500);
    expect(took).toBeLessThan(1950);
  });
});

describe('Ctrl-C while a POST is out', () => {
  let srv: LocalServer & { received: HostileRequest[] };
  beforeAll(async () => {
    srv = await startHostileServer(() => {});
  });
  afterAll(() => srv.close());

  it('says the request may have reached the service, and how to check', async () => {
    const client = createClient({ baseUrl: srv.url, token: 't', timeoutMs: 5000, debug: false, stderr: new PassThrough() });
    const controller = new AbortController();
    const pending = client.request({ method: 'POST', path: '/jobs/j1/backups/start' }, { signal: controller.signal }).catch((e: Error) => e);
    while (srv.received.length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort(new InterruptedError());
    const err = (await pending) as InterruptedError;
    await client.close();
    expect(err).toBeInstanceOf(InterruptedError);
    expect(err.details.join('\n')).toContain('may have reached the service');
    expect(err.details.join('\n')).toContain('backupctl jobs backup list j1 --sort -created_at');
  });

  it('a GET interrupted says nothing of the kind', async () => {
    const client = createClient({ baseUrl: srv.url, token: 't', timeoutMs: 5000, debug: false, stderr: new PassThrough() });
    const controller = new AbortController();
    const before = srv.received.length;
    const pending = client.request(get, { signal: controller.signal }).catch((e: Error) => e);
    while (srv.received.length === before) await new Promise((r) => setTimeout(r, 10));
    controller.abort(new InterruptedError());
    const err = (await pending) as InterruptedError;
    await client.close();
    expect(err).toBeInstanceOf(InterruptedError);
    expect(err.details).toEqual([]);
  });
});
