// The two HTTP servers: the API (routing, auth, latency, faults, recording)
// and the files server behind signed URLs. node:http only.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { FaultInjector, FaultSpecError, checkFaultRule, faultAnswer, isImmediateFault, type ActiveFault } from './faults.js';
import { FileBytes, answerFileRequest } from './files.js';
import { jsonAnswer, reportInternalError, type Answer } from './reply.js';
import type { Query } from './routing.js';
import { createService, findRoute, replyToAnswer, runRoute } from './service.js';
import type { Emulator, EmulatorOptions, RecordedRequest } from './types.js';
import { isObject } from './validate.js';

/** A long benchmark run must not grow the record without bound; tests stay far below this. */
const DEFAULT_MAX_RECORDED = 100_000;
/** slow-body spreads the answer over about two seconds. */
const SLOW_BODY_CHUNKS = 10;
const SLOW_BODY_INTERVAL_MS = 200;

/** The query as the routes read it: repeated keys give arrays, bracket keys stay whole. */
export function parseQuery(params: URLSearchParams): Query {
  const query: Query = {};
  for (const [key, value] of params) {
    const seen = query[key];
    if (seen === undefined) query[key] = value;
    else query[key] = Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function isJsonType(req: IncomingMessage): boolean {
  return /\bjson\b/i.test(req.headers['content-type'] ?? '');
}

/** The body as recorded: parsed JSON, else the text, else undefined. */
function bodyForRecord(req: IncomingMessage, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  if (!isJsonType(req)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const host = opts.host ?? '127.0.0.1';
  const token = opts.token ?? `emu_${randomBytes(16).toString('hex')}`;
  const latencyMs = opts.latencyMs ?? 0;
  const maxRecorded = opts.maxRecorded ?? DEFAULT_MAX_RECORDED;
  const { store, rt } = createService(opts);
  const fileBytes = new FileBytes(opts.changingFiles === true);
  const faults = new FaultInjector((opts.faults ?? []).map(checkFaultRule));
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const wait = (ms: number) => new Promise<void>((resolve) => rt.later(ms, resolve));

  /** Writes an answer, damaged as the fault asks (truncated, slow-body) or whole. */
  function send(res: ServerResponse, answer: Answer, fault: ActiveFault | undefined): void {
    if (answer.stream) return sendStream(res, answer, answer.stream, fault);
    const headers = { ...answer.headers, 'Content-Length': String(answer.body.length) };
    if (fault?.kind === 'truncated') {
      // No body to cut: drop the connection before answering at all.
      if (answer.body.length === 0) return void res.socket?.destroy();
      res.writeHead(answer.status, headers);
      res.write(answer.body.subarray(0, Math.floor(answer.body.length / 2)), () => res.socket?.destroy());
      return;
    }
    if (fault?.kind === 'slow-body') {
      res.writeHead(answer.status, headers);
      res.flushHeaders();
      const chunkSize = Math.ceil(answer.body.length / SLOW_BODY_CHUNKS);
      let sent = 0;
      const step = () => {
        if (res.destroyed) return;
        if (sent >= answer.body.length) return void res.end();
        res.write(answer.body.subarray(sent, sent + chunkSize));
        sent += chunkSize;
        rt.later(SLOW_BODY_INTERVAL_MS, step);
      };
      rt.later(SLOW_BODY_INTERVAL_MS, step);
      return;
    }
    res.writeHead(answer.status, headers);
    res.end(answer.body);
  }

  /** A body made while sent; `truncated` drops the connection halfway. */
  function sendStream(res: ServerResponse, answer: Answer, stream: NonNullable<Answer['stream']>, fault: ActiveFault | undefined): void {
    res.writeHead(answer.status, { ...answer.headers, 'Content-Length': String(stream.length) });
    const body = stream.open();
    res.once('close', () => body.destroy());
    if (fault?.kind !== 'truncated') return void body.pipe(res);
    let sent = 0;
    body.on('data', (chunk: Buffer) => {
      const room = Math.floor(stream.length / 2) - sent;
      sent += chunk.length;
      if (room > chunk.length) return void res.write(chunk);
      body.destroy();
      res.write(chunk.subarray(0, Math.max(0, room)), () => res.socket?.destroy());
    });
  }

  /**
   * Applies a fault that replaces the answer. Returns true when the request is
   * dealt with (answered, reset or held), false when the normal answer follows.
   */
  function applyFault(req: IncomingMessage, res: ServerResponse, record: RecordedRequest, fault: ActiveFault): boolean {
    record.fault = fault.kind;
    if (fault.kind === 'reset') {
      req.socket.resetAndDestroy();
      return true;
    }
    // Held until the client gives up or close() ends every socket.
    if (fault.kind === 'timeout') return true;
    if (isImmediateFault(fault)) {
      const answer = faultAnswer(fault);
      record.status = answer.status;
      send(res, answer, undefined);
      return true;
    }
    return false;
  }

  /** Receives, records and picks a fault; undefined when the request was already dealt with. */
  async function intake(
    req: IncomingMessage,
    res: ServerResponse,
    server: RecordedRequest['server'],
    url: URL,
  ): Promise<{ record: RecordedRequest; raw: Buffer; fault: ActiveFault | undefined } | undefined> {
    const raw = await readBody(req);
    const record: RecordedRequest = {
      server,
      method: req.method ?? 'GET',
      path: url.pathname,
      query: parseQuery(url.searchParams),
      headers: { ...req.headers },
      body: bodyForRecord(req, raw),
      time: Date.now(),
    };
    requests.push(record);
    // Trimming in batches keeps the cost of dropping the oldest records off the hot path.
    if (requests.length > maxRecorded * 1.5) requests.splice(0, requests.length - maxRecorded);
    let fault: ActiveFault | undefined;
    try {
      const header = req.headers['x-emulator-fault'];
      fault = faults.pick(record.method, record.path, Array.isArray(header) ? header[0] : header);
    } catch (err) {
      if (!(err instanceof FaultSpecError)) throw err;
      const answer = jsonAnswer(400, { message: err.message });
      record.status = answer.status;
      send(res, answer, undefined);
      return undefined;
    }
    return { record, raw, fault };
  }

  function authorised(req: IncomingMessage): boolean {
    return req.headers.authorization === `Bearer ${token}`;
  }

  /** Routing, auth, body parsing and the handler: the service itself. */
  function dispatch(req: IncomingMessage, { method, path, query }: RecordedRequest, raw: Buffer): Answer {
    const found = findRoute(method, path);
    if (!('route' in found)) return found;
    if (!authorised(req)) return jsonAnswer(401, { message: 'Unauthenticated.' });

    let body: unknown;
    if (raw.length > 0) {
      if (!isJsonType(req)) return jsonAnswer(415, { message: 'Unsupported Media Type: send the body as application/json.' });
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return jsonAnswer(400, { message: 'The request body is not valid JSON.' });
      }
    }
    return runRoute(rt, found, path, query, body);
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    if (url.pathname.startsWith('/__emulator/')) return handleControl(req, res, url);
    const taken = await intake(req, res, 'api', url);
    if (!taken) return;
    const { record, raw, fault } = taken;
    if (latencyMs > 0) await wait(latencyMs);
    if (fault && applyFault(req, res, record, fault)) return;
    const answer = dispatch(req, record, raw);
    record.status = answer.status;
    send(res, answer, fault);
  }

  async function handleFiles(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const taken = await intake(req, res, 'files', url);
    if (!taken) return;
    const { record, fault } = taken;
    if (fault && applyFault(req, res, record, fault)) return;
    const answer = answerFileRequest(req, url, store, rt.signer, rt.clock(), fileBytes);
    record.status = answer.status;
    send(res, answer, fault);
  }

  /** /__emulator/*: no auth, never recorded, never faulted. */
  async function handleControl(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const raw = await readBody(req);
    const route = `${req.method} ${url.pathname}`;
    let answer: Answer;
    switch (route) {
      case 'GET /__emulator/health':
        answer = jsonAnswer(200, { status: 'ok', url: rt.baseUrl, filesUrl: rt.filesUrl });
        break;
      case 'GET /__emulator/requests':
        answer = jsonAnswer(200, requests);
        break;
      case 'DELETE /__emulator/requests':
        requests.length = 0;
        answer = replyToAnswer({ status: 204 });
        break;
      case 'GET /__emulator/faults':
        answer = jsonAnswer(200, { rules: faults.rules() });
        break;
      case 'POST /__emulator/faults':
        try {
          const body: unknown = raw.length ? JSON.parse(raw.toString('utf8')) : {};
          const rules = isObject(body) && Array.isArray(body.rules) ? body.rules : undefined;
          if (!rules) throw new FaultSpecError('send {"rules": [...]}');
          faults.setRules(rules.map(checkFaultRule));
          answer = jsonAnswer(200, { rules: faults.rules() });
        } catch (err) {
          answer = jsonAnswer(422, { message: err instanceof Error ? err.message : String(err) });
        }
        break;
      default:
        answer = jsonAnswer(404, { message: `No control endpoint ${route}.` });
    }
    send(res, answer, undefined);
  }

  const onError = (res: ServerResponse) => (err: unknown) => {
    reportInternalError(err);
    if (!res.headersSent) send(res, jsonAnswer(500, { message: 'Server Error' }), undefined);
  };
  const api = createServer((req, res) => void handleApi(req, res).catch(onError(res)));
  const files = createServer((req, res) => void handleFiles(req, res).catch(onError(res)));
  for (const server of [api, files]) {
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
  }

  const apiPort = await listen(api, opts.port ?? 0, host);
  const filesPort = await listen(files, opts.filesPort ?? 0, host).catch(async (err) => {
    await new Promise((resolve) => api.close(resolve));
    throw err;
  });
  rt.baseUrl = `http://${urlHost(host)}:${apiPort}`;
  rt.filesUrl = `http://${urlHost(host)}:${filesPort}`;

  let closing: Promise<void> | undefined;
  return {
    url: rt.baseUrl,
    filesUrl: rt.filesUrl,
    token,
    requests,
    setFaults(rules) {
      faults.setRules(rules.map(checkFaultRule));
    },
    clearRequests() {
      requests.length = 0;
    },
    close() {
      closing ??= (async () => {
        rt.stop();
        const closed = [api, files].map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
        for (const socket of sockets) socket.destroy();
        await Promise.all(closed);
      })();
      return closing;
    },
  };
}
