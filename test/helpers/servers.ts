// Small local servers for the end-to-end tests: a hostile service that echoes
// requests back in its errors, an HTTP proxy (absolute-URI requests and
// CONNECT tunnels), and a TLS front for the emulator. 127.0.0.1, port 0, and
// every socket ends on close().
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { runCli, tempConfigDir } from './cli.js';

export interface LocalServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

function track(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  return sockets;
}

async function listen(server: Server, scheme: 'http' | 'https'): Promise<LocalServer> {
  const sockets = track(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

export interface EchoedRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

/**
 * A service that answers every request with `status(req)` and a body quoting
 * everything it received: the Authorization header, the query and the body,
 * in `message`, in a field error per body field, and in an `echo` field.
 */
export async function startEchoServer(status: (method: string, url: string) => number): Promise<LocalServer & { received: EchoedRequest[] }> {
  const received: EchoedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void readBody(req).then((body) => {
      const seen: EchoedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', authorization: req.headers.authorization, body };
      received.push(seen);
      const code = status(seen.method, seen.url);
      let fields: Record<string, unknown> = {};
      try {
        fields = JSON.parse(body || '{}') as Record<string, unknown>;
      } catch {
        fields = { body };
      }
      const quote = `${seen.method} ${seen.url} with ${seen.authorization ?? 'no authorization'} and ${body}`;
      const answer = {
        message: `Rejected: ${quote}`,
        errors: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, [`The ${k} ${JSON.stringify(v)} is invalid (${seen.authorization}).`]])),
        echo: { headers: req.headers, body: fields },
      };
      res.writeHead(code, { 'content-type': 'application/json', 'x-echo-authorization': seen.authorization ?? '' });
      res.end(JSON.stringify(answer));
    });
  });
  return { ...(await listen(server, 'http')), received };
}

export interface ProxyLog {
  /** Absolute-URI requests forwarded: `GET http://127.0.0.1:123/v1/...`. */
  forwarded: string[];
  /** The Authorization header of each forwarded request (what a proxy in between would read). */
  authorizations: string[];
  /** CONNECT targets tunnelled: `127.0.0.1:123`. */
  tunnels: string[];
}

/**
 * An HTTP proxy: forwards absolute-URI requests and tunnels CONNECT, logging both.
 * Whatever host a request names, it connects to 127.0.0.1 (the port as named):
 * tests use a made-up name such as backup.test, which is not loopback to the
 * client and so goes through the proxy, and nothing leaves the machine.
 */
export async function startProxy(): Promise<LocalServer & ProxyLog> {
  const log: ProxyLog = { forwarded: [], tunnels: [], authorizations: [] };
  const server = createServer((req, res) => {
    const target = new URL(req.url ?? '/');
    log.forwarded.push(`${req.method} ${req.url}`);
    if (req.headers.authorization) log.authorizations.push(req.headers.authorization);
    const upstream = httpRequest(
      { host: '127.0.0.1', port: target.port, method: req.method, path: target.pathname + target.search, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    log.tunnels.push(req.url ?? '');
    const port = (req.url ?? '').split(':').pop();
    const upstream = connect(Number(port), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const started = await listen(server, 'http');
  return Object.assign(started, log);
}

/** An HTTPS server with the given certificate that forwards every request to `target` (http). */
export async function startTlsFront(target: string, tls: { key: string; cert: string }): Promise<LocalServer> {
  const to = new URL(target);
  const server = createHttpsServer(tls, (req, res) => {
    const upstream = httpRequest(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return listen(server, 'https');
}

export interface HostileRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

/**
 * A hostile or broken service for the security tests: `handle` answers each
 * request however it likes (lies in headers, endless bodies, cut connections).
 * 127.0.0.1, port 0; every socket is destroyed on close().
 */
export async function startHostileServer(
  handle: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<LocalServer & { received: HostileRequest[] }> {
  const received: HostileRequest[] = [];
  const server = createServer((req, res) => {
    received.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers });
    res.on('error', () => {});
    handle(req, res, received.length);
  });
  return { ...(await listen(server, 'http')), received };
}

export type HostileHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A hostile service for one test file: started before its tests, closed after them,
 * its request log emptied before each; `service.handle` is what it answers (each test
 * sets its own), and `service.cli()` runs the built CLI against it with a token and a
 * config folder of its own.
 */
export function hostileService(env: Record<string, string> = {}) {
  const service = {
    handle: ((_req, res) => res.end()) as HostileHandler,
    srv: undefined as unknown as LocalServer & { received: HostileRequest[] },
    configDir: '',
    get received(): HostileRequest[] {
      return service.srv.received;
    },
    cli: (args: string[], extra: Record<string, string> = {}, opts: { timeoutMs?: number } = {}) =>
      runCli(args, {
        env: { BACKUPCTL_BASE_URL: service.srv.url, BACKUPCTL_TOKEN: 'tok-hostile-secret', BACKUPCTL_CONFIG_DIR: service.configDir, ...env, ...extra },
        timeoutMs: opts.timeoutMs,
      }),
  };
  let cfg: ReturnType<typeof tempConfigDir> | undefined;
  beforeAll(async () => {
    cfg = tempConfigDir();
    service.configDir = cfg.dir;
    service.srv = await startHostileServer((req, res) => service.handle(req, res));
  });
  afterAll(async () => {
    await service.srv?.close();
    cfg?.cleanup();
  });
  beforeEach(() => {
    service.srv.received.length = 0;
  });
  return service;
}
