// The one HTTP client of the process: base URL + /v1, bearer token, JSON,
// per-request timeout, typed errors, a redacted --debug trace, page walking.
// Retries plug in at `send` (see ./retry.ts): every request goes through it.
import type { Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { ApiResponse, Client, Page, QueryValue, RequestSpec } from '../contract/context.js';
import { ApiError } from '../errors.js';
import { AttemptError, formatMs, transientError } from './failures.js';
import { encodeQuery } from './query.js';
import { redactBody, redactHeaders } from './redact.js';
import { type RetryPolicy, defaultRetryPolicy, runWithRetries } from './retry.js';
import { lastPage, nextPageQuery, repeatedPageReason, samePage, toInt } from './paging.js';
import { dataSpans } from './scan.js';
import { type DataSpans, keepPage } from '../output/verbatim.js';
import { addSecret } from '../util/scrub.js';
import { humanBytes } from '../output/format.js';
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
  /** Largest answer body read (BACKUPCTL_MAX_ANSWER_SIZE); a larger one is refused. */
  maxAnswerBytes?: number;
  /** Most pages one walk reads (BACKUPCTL_MAX_PAGES); past it the walk stops with a warning. */
  maxPages?: number;
}

/**
 * 10,000 pages: 150,000 records at the default page size, a million at 100 a page. Every
 * walk (links, last_page, status's lists) stops there and says so: a service claiming
 * last_page 1e9, or a next link that never ends, cannot make it walk for hours.
 */
export const DEFAULT_MAX_PAGES = 10_000;

/**
 * 64 MiB: far above any answer of the API (a page of 100 records is tens of KB), far
 * below what would exhaust memory (a 500 MB body reached 2.1 GB RSS) or V8's string
 * limit (~512 MiB, past which the answer cannot be decoded at all).
 */
export const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024;
/** The highest BACKUPCTL_MAX_ANSWER_SIZE: below V8's longest string (512 MiB less 24 characters), which a 512 MiB answer would pass. */
export const MAX_ANSWER_BYTES_LIMIT = 500 * 1024 * 1024;
/** Deeper JSON than any answer of the API: refused before parsing, as the renderers recurse. */
export const MAX_ANSWER_DEPTH = 256;

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
          // Not for pipelining's sake: with undici's default of 1, a keep-alive connection is
          // handed its next request only a full event-loop turn after an answer ends
          // (setImmediate in client-h1's onMessageComplete), which cost `--all` about 3.5 ms
          // a page (issue 31, bench/results.md). With 2 it goes on at once. undici writes a
          // second request on a connection only once the first answer's headers are in (a
          // request is "blocking" until then), never a POST/PUT/DELETE behind another, and
          // this agent carries API answers only (downloads have their own): docs/exit-codes.md.
          pipelining: 2,
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

  /**
   * The path errors name: displayPath without page_size (a page's size never explains a failure, and --debug
   * shows it), so `GET /v1/servers: 401 ...` reads the same since lists read whole ask for pages of 100.
   */
  errorPath(req: RequestSpec): string {
    const { page_size: _size, ...query } = req.query ?? {};
    return this.displayPath({ ...req, query });
  }

  private url(req: RequestSpec): string {
    if (/^https?:\/\//.test(req.path)) return req.path;
    return this.origin + this.prefix + req.path + encodeQuery(req.query);
  }

  /** `o.scan` (pages asked for verbatim): the answer's bytes are kept and its records found in its text (./scan.ts). */
  async request(req: RequestSpec, o: { signal?: AbortSignal; scan?: boolean } = {}): Promise<ApiResponse> {
    const policy = this.opts.retry ?? defaultRetryPolicy;
    const display = `${req.method} ${this.errorPath(req)}`;
    const res = await runWithRetries(req, (attempt, budgetMs) => this.sendOnce(req, attempt, budgetMs, o.signal, o.scan === true), policy, {
      signal: o.signal,
      trace: (line) => this.trace(line),
      display,
      timeoutMs: this.opts.timeoutMs,
      origin: isAbsolute(req.path) ? new URL(req.path).origin : this.origin,
    });
    return { ...res, display };
  }

  /** One attempt. Returns the answer for any status; the retry layer decides what is an error. */
  private async sendOnce(req: RequestSpec, attempt: number, budgetMs: number, signal: AbortSignal | undefined, scan: boolean): Promise<Scanned> {
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
    let res: Answer;
    // The attempt ends at its timeout or at the overall deadline of the retries, whichever is first.
    const limitMs = Math.min(this.opts.timeoutMs, budgetMs);
    const timeout = AbortSignal.timeout(limitMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const u = new URL(url);
      res = await fetchAnswer(
        dispatcher,
        { origin: u.origin, path: u.pathname + u.search, method: req.method as Dispatcher.HttpMethod, headers, body, headersTimeout: limitMs, bodyTimeout: limitMs },
        this.opts.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
        combined,
        scan,
      );
    } catch (err) {
      if (err instanceof AttemptError) throw err;
      if (!(err instanceof CutOff)) throw this.attemptError(err, signal, timeout, limitMs);
      const failure = this.attemptError(err.cause, signal, timeout, limitMs);
      // The status line arrived, then the connection dropped mid-body: say so, rather than
      // "connection reset", because the service did answer (and for a POST, most likely acted).
      if (failure instanceof AttemptError && failure.kind === 'network') {
        throw new AttemptError(`the answer was cut off (${err.statusCode} received, the body incomplete)`, false, 'network', failure.code);
      }
      throw failure;
    }
    const text = res.text;
    const ms = Date.now() - started;
    const parsed = parseBody(text, res.headers['content-type']);
    // A page asked for verbatim: where its records are in the text (./scan.ts).
    const spans = res.bytes && parsed !== null && typeof parsed === 'object' ? dataSpans(text) : undefined;
    const scanned = spans && { text, bytes: res.bytes!, spans };
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
    return scanned ? { status: res.statusCode, headers: res.headers, body: parsed, scanned } : { status: res.statusCode, headers: res.headers, body: parsed };
  }

  private attemptError(err: unknown, signal: AbortSignal | undefined, timeout: AbortSignal, limitMs: number): Error {
    if (signal?.aborted) return signal.reason instanceof Error ? signal.reason : new Error('aborted');
    const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string } };
    const code = e.code ?? e.cause?.code;
    if (
      timeout.aborted ||
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT'
    ) {
      const why =
        limitMs < this.opts.timeoutMs
          ? `timed out after ${formatMs(limitMs)}, at the overall deadline of the retries`
          : `timed out after ${formatMs(this.opts.timeoutMs)}`;
      return new AttemptError(why, code === 'UND_ERR_CONNECT_TIMEOUT', 'timeout', code);
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

  async *pages(req: RequestSpec, o: { all: boolean; signal?: AbortSignal; verbatim?: boolean }): AsyncIterable<Page> {
    let query = { ...(req.query ?? {}) };
    const verbatim = o.verbatim === true;
    const fetchPage = async (q: Record<string, QueryValue>): Promise<Page> => {
      const one = { ...req, query: q };
      const res: Scanned = await this.request(one, { signal: o.signal, scan: verbatim });
      const page = toPage(res.body, () => this.errorPath(one), req.method);
      // The caller hands these records on untouched: the page keeps their bytes (src/output/verbatim.ts).
      if (res.scanned && page.raw === res.body) keepPage(page.records, res.scanned.text, res.scanned.bytes, res.scanned.spans);
      return page;
    };
    let page = await fetchPage(query);
    yield page;
    if (!o.all) return;

    // Every walk stops at the same number of pages, and says so: what was printed is not all.
    const maxPages = this.opts.maxPages ?? DEFAULT_MAX_PAGES;
    const stopped = (claim: string) =>
      writeServiceLine(
        this.opts.stderr,
        `warning: ${req.method} ${this.displayPath({ ...req, query: {} })}: stopped after ${maxPages} pages, the most one walk reads (BACKUPCTL_MAX_PAGES), ${claim}; the list is incomplete`,
      );

    // When the answer says how many pages there are, fetch the rest a few at a
    // time and hand them on in order: the walk costs about pages/concurrency
    // round trips instead of one per page, and memory stays bounded.
    const current = toInt(query.page) ?? toInt((page.raw as { meta?: { current_page?: unknown } }).meta?.current_page) ?? 1;
    const last = lastPage(page.raw);
    const concurrency = this.opts.pageConcurrency ?? 8;
    if (last !== undefined && last > current && concurrency > 1) {
      const end = Math.min(last, current + maxPages - 1);
      const inflight = new Map<number, Promise<Page>>();
      let next = current + 1;
      const fill = () => {
        while (inflight.size < concurrency && next <= end) {
          const p = fetchPage({ ...query, page: next });
          p.catch(() => {}); // awaited in order below; a consumer that stops early leaves none unhandled
          inflight.set(next++, p);
        }
      };
      for (let n = current + 1; n <= end; n++) {
        fill();
        const before = page.records;
        page = await inflight.get(n)!;
        inflight.delete(n);
        // Pages past the real end are empty: a last_page that overstates (or a hostile
        // 1e15) must not walk a million empty pages.
        if (page.records.length === 0) return;
        if (samePage(page.records, before)) {
          throw transientError(`${req.method} ${this.displayPath({ ...req, query: {} })}`, repeatedPageReason(n, true), 'What was printed before this error is not the whole list.');
        }
        yield page;
      }
      if (end < last) stopped(`while the answer claims ${last} (meta.last_page)`);
      return;
    }

    for (let walked = 1; ; walked++) {
      // An empty page ends the walk whatever its links say: a next link on an empty page
      // would otherwise lead on for ever.
      if (page.records.length === 0) return;
      const next = nextPageQuery(query, page.raw, page.records.length);
      if (!next) return;
      if (walked >= maxPages) return stopped('and the answer names a next page');
      query = next;
      const before = page.records;
      page = await fetchPage(query);
      // A service that ignores `page` answers the first page again and again (issue 30 §6):
      // a clear error (exit 6) instead of the same records until the page cap.
      if (page.records.length && samePage(page.records, before)) {
        const raw = page.raw as { meta?: { current_page?: unknown } } | undefined;
        throw transientError(`${req.method} ${this.displayPath({ ...req, query: {} })}`, repeatedPageReason(toInt(query.page) ?? walked + 1, toInt(raw?.meta?.current_page) !== undefined), 'What was printed before this error is not the whole list.');
      }
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
function toPage(body: unknown, display: () => string, method: string): Page {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const data = (body as { data?: unknown }).data;
    if (Array.isArray(data)) return { records: data, raw: body };
  }
  if (Array.isArray(body)) return { records: body, raw: { data: body } };
  throw new ApiError({
    status: 200,
    request: { method, path: display() },
    serviceMessage: 'the answer holds no list (`data` array)',
    exitCode: 6,
  });
}

/** An answer read whole: its status, headers and body text (and bytes, when asked to keep them). */
interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  bytes?: Buffer;
}

/** The connection failed after the status line: the body is incomplete. */
class CutOff extends Error {
  constructor(
    override readonly cause: unknown,
    readonly statusCode: number,
  ) {
    super('cut off');
  }
}

/**
 * One request through undici's dispatch() with a handler of its own (issue 31, the transport at the
 * floor): the body gathered as it comes, no stream, no async iteration, no header
 * re-encoding (request() wraps its legacy handler, which turns the parsed headers
 * back into buffers and parses them again). The body as text, at most `limit` bytes: a
 * larger one (announced by Content-Length, or found while reading) is refused at once and
 * not retried, as the service would send it again. Reading stops there, so memory holds the
 * limit, not the body. `signal` aborts it (Ctrl-C, the attempt's timeout).
 */
function fetchAnswer(dispatcher: Dispatcher, opts: Dispatcher.DispatchOptions, limit: number, signal: AbortSignal, keepBytes = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let controller: { abort(reason: Error): void } | undefined;
    let statusCode = 0;
    let headers: Answer['headers'] = {};
    let started = false;
    let settled = false;
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err: unknown, answer?: Answer) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (answer) resolve(answer);
      else reject(err);
    };
    const onAbort = () => {
      const reason = signal.reason instanceof Error ? signal.reason : new Error('aborted');
      settle(started ? new CutOff(reason, statusCode) : reason);
      controller?.abort(reason);
    };
    const tooLarge = () =>
      new AttemptError(
        `the answer (${statusCode}) is larger than ${humanBytes(limit)}, the limit on an answer's size; refused, not retried (raise it with BACKUPCTL_MAX_ANSWER_SIZE)`,
        false,
        'refused',
      );
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    const handler = {
      onRequestStart(c: { abort(reason: Error): void }) {
        controller = c;
      },
      onResponseStart(c: { abort(reason: Error): void }, status: number, h: Answer['headers']) {
        statusCode = status;
        headers = h;
        started = true;
        const announced = Number(h['content-length']);
        if (Number.isFinite(announced) && announced > limit) {
          const err = tooLarge();
          settle(err);
          c.abort(err);
        }
      },
      onResponseData(c: { abort(reason: Error): void }, chunk: Buffer) {
        if (settled) return;
        size += chunk.length;
        if (size > limit) {
          const err = tooLarge();
          settle(err);
          c.abort(err);
          return;
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        if (keepBytes) {
          // A copy: the bytes outlive this call (the renderer copies records from them).
          const bytes = Buffer.concat(chunks, size);
          settle(undefined, { statusCode, headers, text: bytes.toString('utf8'), bytes });
          return;
        }
        settle(undefined, { statusCode, headers, text: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8') });
      },
      onResponseError(_c: unknown, err: Error) {
        settle(started ? new CutOff(err, statusCode) : err);
      },
    };
    try {
      dispatcher.dispatch(opts, handler as unknown as Dispatcher.DispatchHandler);
    } catch (err) {
      settle(err);
    }
  });
}

/**
 * Whether a parsed answer nests deeper than `max` levels (the outermost array or
 * object is level 1), stopping past `max`. V8's JSON.parse is iterative and copes
 * with a million levels, but every reader after it (redaction, schemas, the
 * renderers) recurses, and "Maximum call stack size exceeded" is no answer. Walking
 * the parsed value costs about a fiftieth of scanning the text character by
 * character (0.01 against 0.46 ms for a page of 100 backups; 45 ms of CPU over a
 * 10,000-backup list), and it recurses at most `max` deep.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max <= 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (nestsDeeperThan(value[i], max - 1)) return true;
    return false;
  }
  for (const key in value) if (nestsDeeperThan((value as Record<string, unknown>)[key], max - 1)) return true;
  return false;
}

/** An answer of a page asked for verbatim: with its text, bytes and the spans of its records when they were found (see pages()). */
interface Scanned extends ApiResponse {
  scanned?: { text: string; bytes: Buffer; spans: DataSpans };
}

function parseBody(text: string, contentType: string | string[] | undefined): unknown {
  if (!text) return undefined;
  const ct = String(contentType ?? '');
  const looksJson = /json/i.test(ct) || /^[\s]*[[{]/.test(text);
  if (looksJson) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return text;
    }
    if (nestsDeeperThan(value, MAX_ANSWER_DEPTH)) {
      throw new AttemptError(`the answer nests deeper than ${MAX_ANSWER_DEPTH} levels; refused, not retried`, false, 'refused');
    }
    return value;
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

