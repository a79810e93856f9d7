// When to try a request again, and when to give up with which error.
// Idempotent methods (GET, PUT, PATCH, DELETE) retry on network errors, 408,
// 429 and 5xx; a POST only when it surely never arrived (connection refused)
// or was turned away with 429. Anything else after a POST was sent is
// "outcome unknown" (exit 7): sending it again could start a second backup.
import type { ApiResponse, RequestSpec } from '../contract/context.js';
import { InterruptedError } from '../errors.js';
import { AttemptError, checkHint, errorForResponse, outcomeUnknownError, redirectError, transientError, formatMs } from './failures.js';

export interface RetryPolicy {
  maxRetries: number;
  /** First backoff; doubles each retry, full jitter. */
  baseDelayMs: number;
  /** Longest single wait, also the cap on Retry-After. */
  maxDelayMs: number;
  /** All attempts and waits together. */
  deadlineMs?: number;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

export interface RetryContext {
  signal?: AbortSignal;
  trace: (line: string) => void;
  /** "GET /v1/servers?page=2" */
  display: string;
  timeoutMs: number;
  /** The origin the request went to, to resolve a relative Location against. */
  origin?: string;
}

const RETRYABLE_STATUS = (s: number) => s === 408 || s === 429 || s >= 500;

export async function runWithRetries(
  req: RequestSpec,
  /** One attempt; `budgetMs` is what is left of the overall deadline (the attempt is cut there). */
  attemptOnce: (attempt: number, budgetMs: number) => Promise<ApiResponse>,
  policy: RetryPolicy,
  ctx: RetryContext,
): Promise<ApiResponse> {
  const idempotent = req.method !== 'POST';
  const started = Date.now();
  // Default deadline: room for every attempt to time out once plus the waits.
  const deadline = started + (policy.deadlineMs ?? ctx.timeoutMs * 2 + 60_000);
  const sleep = policy.sleep ?? abortableSleep;
  const random = policy.random ?? Math.random;
  // Whether an earlier attempt may have been carried out although its answer was lost.
  let mayHaveArrived = false;
  for (let attempt = 1; ; attempt++) {
    let res: ApiResponse | undefined;
    let failure: AttemptError | undefined;
    try {
      res = await attemptOnce(attempt, Math.max(1, deadline - Date.now()));
    } catch (err) {
      if (!(err instanceof AttemptError)) throw interrupted(err, req, ctx);
      failure = err;
    }
    if (res && res.status < 300) return res;
    // Redirects are never followed (the token must not travel to another address), and
    // never success either: the request was not carried out where it was meant to be.
    if (res && res.status < 400) throw redirectError(req, res, ctx.display, ctx.origin);
    // A DELETE whose earlier answer was lost (connection cut after sending, a
    // timeout, a 5xx from a proxy) and that now finds nothing has most likely
    // been done by that earlier attempt: report what the user asked for, not
    // "not found" for a thing this very command removed.
    if (res?.status === 404 && req.method === 'DELETE' && mayHaveArrived) {
      ctx.trace('got 404 after an earlier attempt may have deleted it; taking that as done');
      return { ...res, status: 204, body: undefined };
    }
    if (failure ? !failure.notSent : res!.status >= 500 || res!.status === 408) mayHaveArrived = true;

    const retryable = res
      ? RETRYABLE_STATUS(res.status) && (idempotent || res.status === 429)
      : failure!.kind !== 'tls' && failure!.kind !== 'refused' && (idempotent || failure!.notSent);
    const retriesLeft = attempt <= policy.maxRetries;
    let wait = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)) * random();
    const retryAfter = res ? parseRetryAfter(res.headers['retry-after']) : undefined;
    // Retry-After is honoured, but capped: a service asking for an hour does not hold a cron job for an hour.
    if (retryAfter !== undefined) wait = Math.min(retryAfter, policy.maxDelayMs);
    const withinDeadline = Date.now() + wait < deadline;

    if (retryable && retriesLeft && withinDeadline) {
      ctx.trace(
        `${res ? `got ${res.status}` : failure!.message}; retry ${attempt} of ${policy.maxRetries} in ${formatMs(Math.round(wait))}`,
      );
      await sleep(wait, ctx.signal).catch((err: unknown) => {
        // Interrupted between attempts: an earlier POST may have arrived all the same.
        throw mayHaveArrived ? interrupted(err, req, ctx) : err;
      });
      continue;
    }

    // Giving up: say why, with the right exit code.
    const tries = attempt > 1 ? ` (after ${attempt} attempts)` : '';
    if (res) {
      if (!idempotent && res.status !== 429 && res.status >= 500) {
        throw outcomeUnknownError(ctx.display, `${res.status} from the service${tries}`, req);
      }
      const err = errorForResponse(req, res, ctx.display);
      if (tries && err instanceof Error) err.message += tries;
      throw err;
    }
    if (!idempotent && !failure!.notSent) throw outcomeUnknownError(ctx.display, failure!.message, req);
    throw transientError(ctx.display, failure!.message + tries);
  }
}

/**
 * Ctrl-C (or SIGTERM) while a POST was out, or after one that may have arrived: the
 * service may have acted on it, so the interruption says so and how to check.
 */
function interrupted(err: unknown, req: RequestSpec, ctx: RetryContext): unknown {
  if (!(err instanceof InterruptedError) || req.method !== 'POST' || !ctx.signal?.aborted || err.details.length) return err;
  return new InterruptedError(err.message, [`${ctx.display} was sent and may have reached the service.`, checkHint(req)]);
}

/**
 * Retry-After in seconds (digits only, RFC 9110) or as an HTTP date (…GMT); milliseconds,
 * or undefined when absent or unreadable. Junk (`-5`, which Date.parse reads as a date in
 * the past, `1e3`, `5s`) is unreadable, so the backoff applies, never "retry at once".
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!/^[A-Za-z]{3},? .*\d{1,2}:\d{2}:\d{2} GMT$/.test(v)) return undefined;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, t - now);
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
