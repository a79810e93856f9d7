// Issue 18, findings 7 and 10: answers a hostile or broken service on 127.0.0.1 sends.
// An answer over the size limit is refused once, not read whole and not retried; a
// get that holds no record, a record without an id, `files` that is not a list and
// JSON nested 100,000 deep each end in a clear error, never in an "unexpected failure",
// a `null` on stdout or a request to .../undefined/....
import { beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServerResponse } from 'node:http';
import { hostileService, type HostileHandler } from '../helpers/servers.js';

const JOB = '3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c';
const ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
type Handle = HostileHandler;
const service = hostileService({ BACKUPCTL_RETRY_BASE: '10ms', BACKUPCTL_RETRY_MAX_WAIT: '20ms' });
const cli = service.cli;
/** Bytes the endless answers wrote before the client hung up. */
let written = 0;
beforeEach(() => {
  written = 0;
});

const json = (body: string, status = 200): Handle => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body);
};

/** A JSON list answer that never ends: `{"data":[{"id":1},{"id":1},…` until the client hangs up (or 200 MB). */
const endless: Handle = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.from('{"id":1,"name":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},'.repeat(1000));
  res.write('{"data":[');
  const pump = () => {
    while (!res.destroyed && written < 200 * 1024 * 1024) {
      written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
};

describe('finding 7: a bound on an answer\'s size', () => {
  it('an endless answer is refused at the limit, once, without reading it whole', async () => {
    service.handle = endless;
    const r = await cli(['servers', 'list', '--json'], { BACKUPCTL_MAX_ANSWER_SIZE: '2MB' });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('error: GET /v1/servers: the answer (200) is larger than 2 MiB, the limit on an answer\'s size; refused, not retried (raise it with BACKUPCTL_MAX_ANSWER_SIZE)');
    expect(r.stderr).not.toMatch(/cut off|attempts/);
    expect(service.received).toHaveLength(1);
    // Reading stopped near the limit (socket buffers aside), not at the 200 MB the server had to give.
    expect(written).toBeLessThan(40 * 1024 * 1024);
  });

  it('the default limit is 64 MiB: a 70 MiB answer is refused; a POST answered so is exit 7', async () => {
    service.handle = endless;
    const r = await cli(['servers', 'list', '--json']);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('larger than 64 MiB');
    expect(service.received).toHaveLength(1);
    service.received.length = 0;
    const post = await cli(['jobs', 'backup', 'start', JOB]);
    expect(post.code).toBe(7);
    expect(post.stderr).toContain('larger than 64 MiB');
    expect(post.stderr).toContain('may or may not have reached the service');
    expect(service.received).toHaveLength(1);
  });

  it('a Content-Length over the limit is refused before the body is read', async () => {
    service.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(3 * 1024 ** 3) });
      res.write('{"data":[');
    };
    const r = await cli(['servers', 'list', '--json']);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('larger than 64 MiB');
    expect(service.received).toHaveLength(1);
  });

  it('the setting raises the limit: a 3 MB answer is read under BACKUPCTL_MAX_ANSWER_SIZE=4MB, refused under 1MB', async () => {
    const records = Array.from({ length: 30_000 }, (_, i) => ({ id: i + 1, name: `server-${'x'.repeat(80)}` }));
    service.handle = json(JSON.stringify({ data: records, links: { next: null } }));
    const ok = await cli(['servers', 'list', '-q'], { BACKUPCTL_MAX_ANSWER_SIZE: '4MB' });
    expect(ok.code).toBe(0);
    expect(ok.stdout.trimEnd().split('\n')).toHaveLength(30_000);
    const refused = await cli(['servers', 'list', '-q'], { BACKUPCTL_MAX_ANSWER_SIZE: '1MB' });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('larger than 1 MiB');
  });

  it('a bad setting is a configuration error naming the variable, nothing sent', async () => {
    for (const bad of ['lots', '0', '1TB', '512MiB']) {
      const r = await cli(['servers', 'list'], { BACKUPCTL_MAX_ANSWER_SIZE: bad });
      expect(r.code, bad).toBe(3);
      expect(r.stderr, bad).toContain('BACKUPCTL_MAX_ANSWER_SIZE');
    }
    expect(service.received).toHaveLength(0);
  });
});

describe('finding 10: bad shapes', () => {
  for (const [what, body] of [
    ['{"data":null}', '{"data":null}'],
    ['[]', '[]'],
    ['123', '123'],
    ['{"data":[1,2]}', '{"data":[1,2]}'],
  ] as const) {
    it(`a get answered ${what}: a clear error, exit 6, nothing on stdout`, async () => {
      service.handle = json(body);
      for (const args of [['jobs', 'get', JOB, '--json'], ['backups', 'get', ID], ['restores', 'get', ID], ['droplets', 'get', '7']]) {
        const r = await cli(args);
        expect(r.code, args.join(' ')).toBe(6);
        expect(r.stdout, args.join(' ')).toBe('');
        expect(r.stderr, args.join(' ')).toMatch(/^error: 200 OK: GET \/v1\/\S+: the answer holds no record \(a `data` object; got /);
      }
    });
  }

  it('files: "nope" in a backup: a clear error, not an unexpected failure', async () => {
    service.handle = json(JSON.stringify({ data: { id: ID, status: 'completed', files: 'nope' } }));
    const dir = mkdtempSync(path.join(tmpdir(), 'bctl-nope-'));
    try {
      const r = await cli(['jobs', 'backup', 'download', JOB, ID, '--dir', dir]);
      expect(r.code).toBe(6);
      expect(r.stderr).not.toContain('unexpected');
      expect(r.stderr).toContain('`files` is not a list');
      expect(readdirSync(dir)).toEqual([]);
      const shown = await cli(['backups', 'get', ID]);
      expect(shown.stderr).not.toContain('unexpected');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a record without an id: no request to .../undefined/...', async () => {
    service.handle = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.includes('/download')) res.end(JSON.stringify({ data: { 'a.sql': 'http://127.0.0.1:1/a.sql' } }));
      else if (req.url?.startsWith(`/v1/jobs/${JOB}/backups`)) res.end(JSON.stringify({ data: [{ status: 'completed', files: [{ name: 'a.sql' }] }] }));
      else res.end(JSON.stringify({ data: { status: 'completed', files: [{ name: 'a.sql' }] } }));
    };
    const dir = mkdtempSync(path.join(tmpdir(), 'bctl-noid-'));
    try {
      for (const how of [[ID], ['--latest']]) {
        const r = await cli(['jobs', 'backup', 'download', JOB, ...how, '--dir', dir]);
        expect(r.code, how.join()).toBe(6);
        expect(r.stderr, how.join()).toContain('has no `id`');
      }
      expect(service.received.map((q) => q.url).filter((u) => u.includes('undefined'))).toEqual([]);
      expect(service.received.filter((q) => q.method === 'POST')).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('JSON nested 100,000 deep: a clear error, not "Maximum call stack size exceeded", not retried', async () => {
    const deep = `{"data":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const deepObject = `{"data":{"id":"x","a":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}}`;
    for (const body of [deep, deepObject]) {
      service.handle = json(body);
      for (const args of [['jobs', 'get', JOB], ['api', '/servers'], ['servers', 'list']]) {
        service.received.length = 0;
        const r = await cli(args);
        expect(r.code, args.join(' ')).toBe(6);
        expect(r.stderr, args.join(' ')).not.toMatch(/call stack|unexpected/);
        expect(r.stderr, args.join(' ')).toContain('the answer nests deeper than 256 levels');
        expect(service.received, args.join(' ')).toHaveLength(1);
      }
    }
  });

  it("api -f '__proto__[x]=…' sends the field as written and pollutes nothing", async () => {
    const bodies: string[] = [];
    service.handle = (req, res) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += d));
      req.on('end', () => {
        bodies.push(text);
        json('{"data":{"ok":true}}')(req, res);
      });
    };
    const r = await cli(['api', '/jobs', '-X', 'POST', '-f', '__proto__[polluted]=yes', '-f', 'name=a', '-F', 'constructor[prototype][x]=1']);
    expect(r.code).toBe(0);
    expect(JSON.parse(bodies[0]!)).toEqual(JSON.parse('{"__proto__":{"polluted":"yes"},"name":"a","constructor":{"prototype":{"x":1}}}'));
    expect(bodies[0]).toContain('"__proto__":{"polluted":"yes"}');
    const q = await cli(['api', '/servers', '-X', 'GET', '-f', '__proto__[polluted]=yes']);
    expect(q.code).toBe(0);
    expect(decodeURIComponent(service.received.at(-1)!.url)).toBe('/v1/servers?__proto__[polluted]=yes');
  });
});
