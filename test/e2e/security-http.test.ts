// Issue 18, finding 3, and issue 16 defects 13 and 19: what a hostile or
// misconfigured service on 127.0.0.1 answers must not pass for success. A 3xx
// is an error naming the status and the Location origin (exit 7 after a POST,
// a final exit 1 otherwise), and a TLS handshake that fails is said to be one.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startHostileServer, type HostileRequest, type LocalServer } from '../helpers/servers.js';

const JOB = '3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c';
const ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
let srv: LocalServer & { received: HostileRequest[] };
let answer: { status: number; location?: string } = { status: 302 };
let cfg: ReturnType<typeof tempConfigDir>;

beforeAll(async () => {
  cfg = tempConfigDir();
  srv = await startHostileServer((_req, res) => {
    res.writeHead(answer.status, answer.location ? { location: answer.location, 'content-type': 'text/html' } : {});
    res.end('<html>moved</html>');
  });
});
afterAll(async () => {
  await srv.close();
  cfg.cleanup();
});
beforeEach(() => {
  srv.received.length = 0;
});

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, {
    env: {
      BACKUPCTL_BASE_URL: srv.url,
      BACKUPCTL_TOKEN: 'tok-redirect-secret',
      BACKUPCTL_CONFIG_DIR: cfg.dir,
      BACKUPCTL_RETRY_BASE: '10ms',
      BACKUPCTL_RETRY_MAX_WAIT: '20ms',
      ...env,
    },
  });

describe('finding 3: a 3xx is never success', () => {
  it('jobs backup start answered 302: exit 7, nothing "started", one POST', async () => {
    answer = { status: 302, location: 'https://evil.example/login?next=x' };
    const r = await cli(['jobs', 'backup', 'start', JOB]);
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/started/i);
    expect(r.stderr).toMatch(/^error: 302 Found: POST \/v1\/jobs\/[^ ]+\/backups\/start: the service redirected to https:\/\/evil\.example; redirects are not followed, and the request may or may not have been carried out\n/);
    expect(r.stderr).toContain('--base-url');
    expect(r.stderr).not.toContain('login?next');
    expect(srv.received.map((q) => q.method)).toEqual(['POST']);
  });

  it('backups delete answered 302: exit 1, not "Deleted", no retry', async () => {
    answer = { status: 302, location: '/elsewhere' };
    const r = await cli(['backups', 'delete', ID, '--yes']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toMatch(/deleted/i);
    expect(r.stderr).toContain(`302 Found: DELETE /v1/backups/${ID}: the service redirected to ${srv.url};`);
    expect(srv.received).toHaveLength(1);
  });

  it('droplets pause answered 307: exit 1, no retry', async () => {
    answer = { status: 307, location: 'http://127.0.0.1:1/v1/x' };
    const r = await cli(['droplets', 'pause', '123']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('307 Temporary Redirect: PATCH /v1/');
    expect(r.stderr).toContain('redirected to http://127.0.0.1:1;');
    expect(srv.received).toHaveLength(1);
  });

  it('jobs get answered 302: exit 1 and nothing on stdout (not "null")', async () => {
    answer = { status: 302, location: 'https://evil.example/' };
    const r = await cli(['jobs', 'get', JOB, '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(srv.received).toHaveLength(1);
  });

  it('the token is never sent to the Location', async () => {
    answer = { status: 307, location: `${srv.url}/stolen` };
    await cli(['jobs', 'get', JOB]);
    expect(srv.received.map((q) => q.url)).toEqual([`/v1/jobs/${JOB}`]);
  });
});

describe('issue 16 defect 19: servers list answered with a redirect', () => {
  for (const status of [302, 307]) {
    it(`${status}: the real status, the Location origin, a --base-url hint, exit 1`, async () => {
      answer = { status, location: 'https://login.example.net/sso' };
      const r = await cli(['servers', 'list']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines[0]).toBe(
        `error: ${status} ${status === 302 ? 'Found' : 'Temporary Redirect'}: GET /v1/servers: the service redirected to https://login.example.net; redirects are not followed`,
      );
      expect(lines[1]).toMatch(/Check the base URL \(--base-url/);
      expect(r.stderr).not.toContain('holds no list');
      expect(srv.received).toHaveLength(1);
    });
  }
});

describe('issue 16 defect 13: https:// to a port that speaks http', () => {
  let plain: Server;
  let port: number;
  let connections = 0;
  beforeAll(async () => {
    const sockets = new Set<Socket>();
    plain = createServer((s) => {
      connections++;
      sockets.add(s);
      s.on('error', () => {});
      s.once('data', () => s.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n'));
      s.once('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    port = (plain.address() as AddressInfo).port;
    plain.on('close', () => sockets.forEach((s) => s.destroy()));
  });
  afterAll(() => new Promise<void>((resolve) => plain.close(() => resolve())));

  it('says TLS failed, suggests the scheme, and does not retry', async () => {
    connections = 0;
    const r = await cli(['servers', 'list'], { BACKUPCTL_BASE_URL: `https://127.0.0.1:${port}` });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^error: GET \/v1\/servers: TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed \([A-Z_]+\); if that port speaks plain http, check the URL's scheme \(--base-url\)\n$/);
    expect(r.stderr).not.toMatch(/SSL routines|after \d attempts/);
    expect(connections).toBe(1);
  });
});
