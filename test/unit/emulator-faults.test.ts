// Fault injection: what each fault looks like from the client's side, how
// rules select requests, and that close() never hangs on held sockets.
import { describe, expect, it } from 'vitest';
import { FaultSpecError, parseFaultSpec, type Emulator, type FaultRule } from '../../src/emulator/index.js';
import { apiFetch, fileRequests, requestsTo, startTestEmulator, withEmulator } from '../helpers/emulator.js';

type Json = any;

async function waitFor<T>(check: () => T | undefined, tries = 300): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition never held');
}

describe('emulator faults', () => {
  const emu = withEmulator();
  const once = (fault: FaultRule['fault'], extra: Partial<FaultRule> = {}) => emu.setFaults([{ fault, count: 1, ...extra }]);

  it('429 carries Retry-After and the rate-limit headers', async () => {
    once('429', { retryAfter: 3 });
    const res = await apiFetch(emu, '/v1/servers');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    expect(await res.json()).toEqual({ message: 'Too Many Attempts.' });
    once('429');
    expect((await apiFetch(emu, '/v1/servers')).headers.get('retry-after')).toBe('1');
    expect((await apiFetch(emu, '/v1/servers')).status).toBe(200);
  });

  it('500 and 503 answer JSON messages; 502-html answers an HTML page', async () => {
    once('500');
    const e500 = await apiFetch(emu, '/v1/servers');
    expect([e500.status, await e500.json()]).toEqual([500, { message: 'Server Error' }]);
    once('503', { retryAfter: 2 });
    const e503 = await apiFetch(emu, '/v1/servers');
    expect(e503.status).toBe(503);
    expect(e503.headers.get('retry-after')).toBe('2');
    once('502-html');
    const e502 = await apiFetch(emu, '/v1/servers');
    expect(e502.status).toBe(502);
    expect(e502.headers.get('content-type')).toContain('text/html');
    expect(await e502.text()).toContain('502 Bad Gateway');
  });

  it('not-json answers 200 with an HTML body', async () => {
    once('not-json');
    const res = await apiFetch(emu, '/v1/servers');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<html>ok</html>');
  });

  it('reset drops the connection without an answer, and is recorded', async () => {
    once('reset');
    emu.clearRequests();
    await expect(apiFetch(emu, '/v1/servers')).rejects.toThrow();
    expect(emu.requests).toHaveLength(1);
    expect(emu.requests[0]).toMatchObject({ path: '/v1/servers', fault: 'reset' });
    expect(emu.requests[0]!.status).toBeUndefined();
  });

  it('truncated sends half of the body under the full Content-Length, after the change was made', async () => {
    once('truncated', { method: 'POST', path: '/v1/ssh-keys' });
    const before = ((await (await apiFetch(emu, '/v1/ssh-keys')).json()) as Json).meta.total;
    const res = await apiFetch(emu, '/v1/ssh-keys', { method: 'POST', json: { name: 'half-answered' } });
    expect(res.status).toBe(201);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(0);
    await expect(res.text()).rejects.toThrow();
    const after = ((await (await apiFetch(emu, '/v1/ssh-keys')).json()) as Json).meta.total;
    expect(after).toBe(before + 1);
  });

  it('slow-body delivers a valid answer in several chunks', async () => {
    once('slow-body');
    const res = await apiFetch(emu, '/v1/ssh-keys');
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    expect(chunks.length).toBeGreaterThan(1);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    expect(body.data.length).toBeGreaterThan(0);
  });

  it('selects requests by method, path prefix or regular expression, and count', async () => {
    emu.setFaults([
      { fault: '500', method: 'POST', path: '/v1/ssh-keys' },
      { fault: '503', path: '^/v1/jobs/[^/]+/backups$', count: 2 },
    ]);
    expect((await apiFetch(emu, '/v1/ssh-keys')).status).toBe(200);
    expect((await apiFetch(emu, '/v1/ssh-keys', { method: 'POST', json: {} })).status).toBe(500);
    const job = ((await (await apiFetch(emu, '/v1/jobs')).json()) as Json).data[0];
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await apiFetch(emu, `/v1/jobs/${job.id}/backups`)).status);
    expect(statuses).toEqual([503, 503, 200]);
    expect((await apiFetch(emu, `/v1/jobs/${job.id}`)).status).toBe(200);
    emu.setFaults([]);
  });

  it('applies X-Emulator-Fault to the request carrying it, count times', async () => {
    const headers = { 'X-Emulator-Fault': '503;count=2' };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await apiFetch(emu, '/v1/storage', { headers })).status);
    expect(statuses).toEqual([503, 503, 200]);
    expect((await apiFetch(emu, '/v1/storage', { headers: { 'X-Emulator-Fault': '500' } })).status).toBe(500);
    expect((await apiFetch(emu, '/v1/storage', { headers: { 'X-Emulator-Fault': 'boom' } })).status).toBe(400);
    expect((await apiFetch(emu, '/v1/storage')).status).toBe(200);
  });

  it('faults downloads only when the rule names a /files path', async () => {
    const jobs = ((await (await apiFetch(emu, '/v1/jobs')).json()) as Json).data;
    const backup = ((await (await apiFetch(emu, `/v1/jobs/${jobs[0].id}/backups?status=completed`)).json()) as Json).data[0];
    emu.setFaults([{ fault: '500' }]);
    expect((await fetch(backup.files[0].url)).status).toBe(200);
    emu.setFaults([{ fault: 'truncated', path: '/files/', count: 1 }]);
    emu.clearRequests();
    const res = await fetch(backup.files[0].url);
    await expect(res.arrayBuffer()).rejects.toThrow();
    expect(fileRequests(emu)[0]).toMatchObject({ fault: 'truncated' });
    expect((await fetch(backup.files[0].url)).status).toBe(200);
    emu.setFaults([]);
  });
});

describe('emulator fault rates and holding', () => {
  it('draws rates from a seeded generator: the same pattern on every run', async () => {
    const pattern = async () => {
      const emu = await startTestEmulator({ faults: [{ fault: '500', rate: 0.5 }] });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 30; i++) statuses.push((await apiFetch(emu, '/v1/ssh-keys')).status);
        return statuses;
      } finally {
        await emu.close();
      }
    };
    const first = await pattern();
    expect(first).toEqual(await pattern());
    expect(first).toContain(500);
    expect(first).toContain(200);
  });

  it('holds a timeout request until close(), which ends it and resolves', async () => {
    const emu: Emulator = await startTestEmulator({ faults: [{ fault: 'timeout', path: '/v1/jobs' }] });
    const pending = apiFetch(emu, '/v1/jobs').then(
      () => 'answered',
      () => 'failed',
    );
    await waitFor(() => (requestsTo(emu, '/v1/jobs').length ? true : undefined));
    expect(requestsTo(emu, '/v1/jobs')[0]).toMatchObject({ fault: 'timeout' });
    await emu.close();
    expect(await pending).toBe('failed');
  });
});

describe('parseFaultSpec', () => {
  it('reads the --fault forms', () => {
    expect(parseFaultSpec('500:count=2:path=/v1/servers')).toEqual({ fault: '500', count: 2, path: '/v1/servers' });
    expect(parseFaultSpec('429:rate=0.5')).toEqual({ fault: '429', rate: 0.5 });
    expect(parseFaultSpec('timeout:method=POST')).toEqual({ fault: 'timeout', method: 'POST' });
    expect(parseFaultSpec('429:retryAfter=Wed, 21 Oct 2015 07:28:00 GMT')).toEqual({
      fault: '429',
      retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT',
    });
    expect(parseFaultSpec('503:retryAfter=5')).toEqual({ fault: '503', retryAfter: 5 });
  });

  it('refuses unknown faults, options and values', () => {
    expect(() => parseFaultSpec('418')).toThrow(FaultSpecError);
    expect(() => parseFaultSpec('500:often=1')).toThrow(FaultSpecError);
    expect(() => parseFaultSpec('500:rate=2')).toThrow(FaultSpecError);
    expect(() => parseFaultSpec('500:count=x')).toThrow(FaultSpecError);
  });
});
