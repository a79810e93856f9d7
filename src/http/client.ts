// The one HTTP client of the process: base URL + /v1, bearer token, JSON,
// per-request timeout, typed errors, a redacted --debug trace, page walking.
// Retries plug in at `send` (see ./retry.ts): every request goes through it.
import type { Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { ApiResponse, Client, Page, QueryValue, RequestSpec } from '../cli/types.js';
import { ApiError } from '../errors.js';
import { AttemptError, formatMs } from './failures.js';
import { encodeQuery } from './query.js';
import { redactBody, redactHeaders } from './redact.js';
import { type RetryPolicy, defaultRetryPolicy, runWithRetries } from './retry.js';
import { lastPage, nextPageQuery, toInt } from './paging.js';
import { addSecret } from '../util/scrub.js';
import { writeServiceLine } from '../output/sanitize.js';

declare const __VERSION__: string;
const VERSION = typeof __VERSION__ === 'string' ? __VERSION__ : 'dev';

export interface ClientOptions {
  baseUrl: string;
  token: string | undefined;
  timeoutMs: number;
  debug: boolean;
  stderr: Writable;
  retry?: RetryPolicy;
  /** Concurrent page requests for --all when the last page is known. */
  pageConcurrency?: number;
}

export function createClient(opts: ClientOptions): Client {
  return new HttpClient(opts);
}

class HttpClient implements Client {
  private dispatcher: Promise<Dispatcher> | undefined;
  private readonly origin: string;
  private readonly prefix: string;

  constructor(private readonly opts: ClientOptions) {
    // Known to scrub() from here on, whoever made the client (auth login makes its own):
    // a service that echoes the Authorization header back must not get it printed.
    addSecret(opts.token);
    const u = new URL(opts.baseUrl);
    this.origin = u.origin;
    this.prefix = u.pathname.replace(/\/+$/, '') + '/v1';
  }

  private getDispatcher(): Promise<Dispatcher> {
    // V8 runs with --liftoff-only for undici's WebAssembly HTTP parser: set by src/boot.cjs.
    // EnvHttpProxyAgent honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY (loopback hosts always
    // direct, see ./undici.ts) and is a plain keep-alive Agent when none is set.
    this.dispatcher ??= import('./undici.js').then(
      ({ EnvHttpProxyAgent }) =>
        new EnvHttpProxyAgent({
          keepAliveTimeout: 10_000,
          connections: 8,
          connect: { timeout: this.opts.timeoutMs },
          // undici's default when none is given is node:http's maxHeaderSize (16 KiB unless
          // --max-http-header-size), which would load node:http: see src/scripts/lazy-builtins.mjs.
          maxHeaderSize: 16 * 1024,
        }),
    );
    return this.dispatcher;
  }

  /** The path shown to users and in errors: /v1/... with the query; never holds the token. */
  displayPath(req: RequestSpec): string {
    if (/^https?:\/\//.test(req.path)) {
      const u = new URL(req.path);
      return u.origin + u.pathname;
    }
    return this.prefix + req.path + encodeQuery(req.query);
  }

  private url(req: RequestSpec): string {
    if (/^https?:\/\//.test(req.path)) return req.path;
    return this.origin + this.prefix + req.path + encodeQuery(req.query);
  }

  async request(req: RequestSpec, o: { signal?: AbortSignal } = {}): Promise<ApiResponse> {
    const policy = this.opts.retry ?? defaultRetryPolicy;
    return runWithRetries(req, (attempt) => this.sendOnce(req, attempt, o.signal), policy, {
      signal: o.signal,
      trace: (line) => this.trace(line),
      display: `${req.method} ${this.displayPath(req)}`,
      timeoutMs: this.opts.timeoutMs,
      origin: isAbsolute(req.path) ? new URL(req.path).origin : this.origin,
    });
  }

  /** One attempt. Returns the answer for any status; the retry layer decides what is an error. */
  private async sendOnce(req: RequestSpec, attempt: number, signal?: AbortSignal): Promise<ApiResponse> {
    const dispatcher = await this.getDispatcher();
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': `backupctl/${VERSION}`,
    };
    let body: string | undefined;
    if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
    if (!req.noAuth && this.opts.token) headers.authorization = `Bearer ${this.opts.token}`;
    const url = this.url(req);
    // Not performance.now(): the global loads perf_hooks (~0.5 ms) on first use.
    const started = Date.now();
    if (this.opts.debug) {
      this.trace(`> ${req.method} ${this.origin}${this.displayPath(req)}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
      for (const [k, v] of Object.entries(redactHeaders(headers))) this.trace(`> ${k}: ${v}`);
      if (req.body !== undefined) this.trace(`> ${JSON.stringify(redactBody(req.body))}`);
    }
    let res: Dispatcher.ResponseData;
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const u = new URL(url);
      res = await dispatcher.request({
        origin: u.origin,
        path: u.pathname + u.search,
        method: req.method,
        headers,
        body,
        signal: combined,
        headersTimeout: this.opts.timeoutMs,
        bodyTimeout: this.opts.timeoutMs,
      });
    } catch (err) {
      throw this.attemptError(err, signal, timeout);
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      const failure = this.attemptError(err, signal, timeout);
      // The status line arrived, then the connection dropped mid-body: say so, rather than
      // "connection reset", because the service did answer (and for a POST, most likely acted).
      if (failure instanceof AttemptError && failure.kind === 'network') {
        throw new AttemptError(`the answer was cut off (${res.statusCode} received, the body incomplete)`, false, 'network', failure.code);
      }
      throw failure;
    }
    const ms = Date.now() - started;
    const parsed = parseBody(text, res.headers['content-type']);
    if (this.opts.debug) {
      this.trace(`< ${res.statusCode} (${ms} ms)`);
      for (const [k, v] of Object.entries(redactHeaders(res.headers))) this.trace(`< ${k}: ${Array.isArray(v) ? v.join(', ') : v}`);
      if (text) this.trace(`< ${truncateForTrace(typeof parsed === 'string' ? parsed : JSON.stringify(redactBody(parsed)))}`);
    }
    // The API answers JSON or nothing. A 2xx with any other body came from something in
    // between (a captive portal, a proxy's page) or was cut: the request may not have been
    // carried out, so it must not be reported as done.
    if (res.statusCode < 300 && typeof parsed === 'string' && !isAbsolute(req.path)) {
      const what = /<html|<!doctype/i.test(parsed) ? 'an HTML page' : 'not valid JSON';
      throw new AttemptError(`the ${res.statusCode} answer was ${what}, not the service's JSON`, false, 'answer');
    }
    return { status: res.statusCode, headers: res.headers, body: parsed };
  }

  private attemptError(err: unknown, signal: AbortSignal | undefined, timeout: AbortSignal): Error {
    if (signal?.aborted) return signal.reason instanceof Error ? signal.reason : new Error('aborted');
    const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string } };
    const code = e.code ?? e.cause?.code;
    if (
      timeout.aborted ||
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT'
    ) {
      return new AttemptError(`timed out after ${formatMs(this.opts.timeoutMs)}`, code === 'UND_ERR_CONNECT_TIMEOUT', 'timeout', code);
    }
    if (code && TLS_CERT_CODES.has(code)) {
      // Refused before any HTTP was sent; retrying cannot change the verdict.
      return new AttemptError(
        `TLS certificate not trusted (${code}: ${e.message ?? 'verification failed'}); for a private CA set NODE_EXTRA_CA_CERTS to its PEM file`,
        true,
        'tls',
        code,
      );
    }
    if (code && (code.startsWith('ERR_SSL_') || (code === 'EPROTO' && /SSL|TLS/.test(e.message ?? '')))) {
      // The handshake itself failed: most often https:// to a port that speaks plain http.
      // Nothing was sent, and another try meets the same server.
      return new AttemptError(
        `TLS handshake with ${this.origin} failed (${code}); if that port speaks plain http, check the URL's scheme (--base-url)`,
        true,
        'tls',
        code,
      );
    }
    const notSent = code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN';
    return new AttemptError(describeNetworkError(code, e.message), notSent, 'network', code);
  }

  private trace(line: string): void {
    // Answers are traced as received, one line each: escape sequences and control characters
    // (C1 \u009b too) removed, and a token or secret the service echoed blanked.
    if (this.opts.debug) writeServiceLine(this.opts.stderr, `[debug] ${line}`);
  }

  async *pages(req: RequestSpec, o: { all: boolean; signal?: AbortSignal }): AsyncIterable<Page> {
    let query = { ...(req.query ?? {}) };
    const fetchPage = async (q: Record<string, QueryValue>): Promise<Page> => {
      const res = await this.request({ ...req, query: q }, { signal: o.signal });
      return toPage(res.body, this.displayPath({ ...req, query: q }), req.method);
    };
    let page = await fetchPage(query);
    yield page;
    if (!o.all) return;

    // When the answer says how many pages there are, fetch the rest a few at a
    // time and hand them on in order: the walk costs about pages/concurrency
    // round trips instead of one per page, and memory stays bounded.
    const current = toInt(query.page) ?? toInt((page.raw as { meta?: { current_page?: unknown } }).meta?.current_page) ?? 1;
    const last = lastPage(page.raw);
    const concurrency = this.opts.pageConcurrency ?? 8;
    if (last !== undefined && last > current && concurrency > 1) {
      const inflight = new Map<number, Promise<Page>>();
      let next = current + 1;
      const fill = () => {
        while (inflight.size < concurrency && next <= last) {
          const p = fetchPage({ ...query, page: next });
          p.catch(() => {}); // awaited in order below; a consumer that stops early leaves none unhandled
          inflight.set(next++, p);
        }
      };
      for (let n = current + 1; n <= last; n++) {
        fill();
        page = await inflight.get(n)!;
        inflight.delete(n);
        // Pages past the real end are empty: a last_page that overstates (or a hostile
        // 1e15) must not walk a million empty pages.
        if (page.records.length === 0) return;
        yield page;
      }
      return;
    }

    let guard = 0;
    for (;;) {
      // An empty page ends the walk whatever its links say: a next link on an empty page
      // would otherwise lead on for ever.
      if (page.records.length === 0) return;
      const next = nextPageQuery(query, page.raw, page.records.length);
      if (!next || ++guard > 100_000) return;
      query = next;
      page = await fetchPage(query);
      yield page;
    }
  }

  async close(): Promise<void> {
    if (this.dispatcher) await (await this.dispatcher).close();
  }
}

/** Node's codes for a certificate the TLS handshake refused. */
const TLS_CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function isAbsolute(path: string): boolean {
  return /^https?:\/\//.test(path);
}

/** Safe integers only (see paging.ts): an unsafe page number cannot advance. */
function toPage(body: unknown, display: string, method: string): Page {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const data = (body as { data?: unknown }).data;
    if (Array.isArray(data)) return { records: data, raw: body };
  }
  if (Array.isArray(body)) return { records: body, raw: { data: body } };
  throw new ApiError({
    status: 200,
    request: { method, path: display },
    serviceMessage: 'the answer holds no list (`data` array)',
    exitCode: 6,
  });
}

function parseBody(text: string, contentType: string | string[] | undefined): unknown {
  if (!text) return undefined;
  const ct = String(contentType ?? '');
  const looksJson = /json/i.test(ct) || /^[\s]*[[{]/.test(text);
  if (looksJson) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function describeNetworkError(code: string | undefined, message: string | undefined): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset by the service';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'UND_ERR_CLOSED':
      return 'connection closed';
    default:
      return message ? `network error: ${message}` : 'network error';
  }
}

function truncateForTrace(s: string): string {
  return s.length > 2000 ? `${s.slice(0, 2000)}… (${s.length} chars)` : s;
}

