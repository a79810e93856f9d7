// Property: for any sequence of answers and failures, the retry layer keeps
// its promises: at most 4 retries; a POST is sent again only after a refusal
// or a 429; every wait is within the longest wait (Retry-After included) and
// all waits fit the deadline; the end is either the answer or a typed error
// with a documented exit code (7 exactly when a POST may have arrived).
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiResponse, RequestSpec } from '../../src/contract/context.js';
import { CliError, ExitCode } from '../../src/errors.js';
import { AttemptError } from '../../src/http/failures.js';
import { parseRetryAfter, runWithRetries, type RetryPolicy } from '../../src/http/retry.js';
import type { HttpMethod } from '../../src/contract/spec.js';

type Outcome =
  | { type: 'answer'; status: number; retryAfter?: string }
  | { type: 'failure'; notSent: boolean; kind: AttemptError['kind'] };

const retryAfterText = fc.oneof(
  fc.nat({ max: 7200 }).map(String),
  fc.double({ min: 0, max: 100, noNaN: true }).map((n) => n.toFixed(1)),
  fc.integer({ min: -60, max: 7200 }).map((s) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toUTCString()),
  fc.constantFrom('soon', '', '-5', 'Wed, 99 Foo 2026'),
);

const outcome: fc.Arbitrary<Outcome> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record(
      {
        type: fc.constant('answer' as const),
        status: fc.oneof(fc.constantFrom(200, 201, 202, 204, 400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 504), fc.integer({ min: 100, max: 599 })),
        retryAfter: retryAfterText,
      },
      { requiredKeys: ['type', 'status'] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('failure' as const),
      notSent: fc.boolean(),
      kind: fc.constantFrom<AttemptError['kind']>('network', 'timeout', 'answer', 'tls'),
    }),
  },
);

const DOCUMENTED = new Set<number>(Object.values(ExitCode));
const START = Date.UTC(2026, 0, 1);

/**
 * The number of attempts the documented rules give (README, docs/scripting.md), worked out here
 * independently of the retry layer: stop at an answer below 400, at a DELETE's 404 after an attempt
 * that may have arrived, at anything not retryable (a 4xx but 408 and 429; a certificate error; after
 * a POST was sent, anything but 429), after 4 retries, or when the next wait would pass the deadline
 * (twice the 1 s timeout plus a minute by default). The wait doubles from the base, times the jitter,
 * at most the longest wait; a readable Retry-After replaces it, capped by the longest wait.
 */
function expectedAttempts(method: HttpMethod, outcomes: Outcome[], p: { base: number; max: number; deadline?: number }, jitter: number): number {
  const deadline = p.deadline ?? 1000 * 2 + 60_000;
  let waited = 0;
  let mayHaveArrived = false;
  for (let attempt = 1; ; attempt++) {
    const o = outcomes[attempt - 1]!;
    if (o.type === 'answer' && o.status < 400) return attempt;
    if (o.type === 'answer' && o.status === 404 && method === 'DELETE' && mayHaveArrived) return attempt;
    if (o.type === 'failure' ? !o.notSent : o.status >= 500 || o.status === 408) mayHaveArrived = true;
    const retryable =
      o.type === 'answer'
        ? (o.status === 408 || o.status === 429 || o.status >= 500) && (method !== 'POST' || o.status === 429)
        : o.kind !== 'tls' && (method !== 'POST' || o.notSent);
    if (!retryable || attempt === 5) return attempt;
    const retryAfter = o.type === 'answer' ? parseRetryAfter(o.retryAfter, START + waited) : undefined;
    const wait = retryAfter !== undefined ? Math.min(retryAfter, p.max) : Math.min(p.max, p.base * 2 ** (attempt - 1)) * jitter;
    // On the clock, as the retry layer compares (START + 10.9998 may round to START + 11 in a double).
    if (START + waited + wait >= START + deadline) return attempt;
    waited += wait;
  }
}

afterEach(() => vi.restoreAllMocks());

describe('retry policy fuzzing', () => {
  it('4 retries at most, POSTs resent only when safe, waits capped, deadline kept', async () => {
    // A clock that moves only when the retry layer waits, so the deadline is checked without sleeping.
    let clock = START;
    vi.spyOn(Date, 'now').mockImplementation(() => clock);

    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<HttpMethod>('GET', 'PUT', 'PATCH', 'DELETE', 'POST'),
        fc.array(outcome, { minLength: 6, maxLength: 6 }),
        fc.record({ base: fc.integer({ min: 1, max: 2000 }), max: fc.integer({ min: 1, max: 60_000 }), deadline: fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: undefined }) }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        async (method, outcomes, p, jitter) => {
          clock = START;
          const waits: number[] = [];
          const policy: RetryPolicy = {
            maxRetries: 4,
            baseDelayMs: p.base,
            maxDelayMs: p.max,
            ...(p.deadline !== undefined ? { deadlineMs: p.deadline } : {}),
            random: () => jitter,
            sleep: async (ms) => {
              waits.push(ms);
              clock += ms;
            },
          };
          const req: RequestSpec = { method, path: '/jobs/j1/backups/start' };
          let attempts = 0;
          const attemptOnce = async (): Promise<ApiResponse> => {
            const o = outcomes[attempts++]!;
            if (o.type === 'failure') throw new AttemptError(`${o.kind} failure`, o.notSent, o.kind);
            return { status: o.status, headers: o.retryAfter === undefined ? {} : { 'retry-after': o.retryAfter }, body: { message: 'm' } };
          };
          let result: ApiResponse | undefined;
          let error: unknown;
          try {
            result = await runWithRetries(req, attemptOnce, policy, { trace: () => {}, display: `${method} /v1/jobs/j1/backups/start`, timeoutMs: 1000 });
          } catch (err) {
            error = err;
          }

          // Exactly as many attempts as the rules give: "one retry fewer" (or more) fails here.
          expect(attempts).toBe(expectedAttempts(method, outcomes, p, jitter));
          expect(waits).toHaveLength(attempts - 1);
          for (const w of waits) {
            expect(w).toBeGreaterThanOrEqual(0);
            expect(w).toBeLessThanOrEqual(p.max);
          }
          const deadline = p.deadline ?? 1000 * 2 + 60_000;
          expect(waits.reduce((a, b) => a + b, 0)).toBeLessThan(Math.max(deadline, 1));

          // Every attempt but the last was retried for a reason the rules allow.
          for (let i = 0; i < attempts - 1; i++) {
            const o = outcomes[i]!;
            if (o.type === 'answer') {
              expect(o.status === 408 || o.status === 429 || o.status >= 500).toBe(true);
              if (method === 'POST') expect(o.status).toBe(429);
            } else {
              expect(o.kind).not.toBe('tls');
              if (method === 'POST') expect(o.notSent).toBe(true);
            }
          }

          const last = outcomes[attempts - 1]!;
          if (result) {
            expect(error).toBeUndefined();
            if (last.type === 'answer' && last.status < 300) expect(result.status).toBe(last.status);
            else {
              // The one exception: a DELETE that finds nothing after an earlier attempt may have done it.
              expect(method).toBe('DELETE');
              expect(last).toMatchObject({ type: 'answer', status: 404 });
              expect(result.status).toBe(204);
            }
            return;
          }
          expect(error).toBeInstanceOf(CliError);
          const code = (error as CliError).exitCode;
          expect(DOCUMENTED.has(code)).toBe(true);
          const mayHaveArrived =
            method === 'POST' && (last.type === 'failure' ? !last.notSent : last.status >= 500 || (last.status >= 300 && last.status < 400));
          expect(code === ExitCode.outcomeUnknown).toBe(mayHaveArrived);
          if (mayHaveArrived) expect((error as CliError).details.join('\n')).toContain('backupctl jobs backup list j1 --sort -created_at');
          if (last.type === 'failure' && !mayHaveArrived) expect(code).toBe(ExitCode.transient);
          // A redirect is never followed nor success (issue 18, finding 3).
          if (last.type === 'answer' && last.status >= 300 && last.status < 400) expect((error as CliError).message).toMatch(/redirects are not followed/);
          if (last.type === 'answer' && !mayHaveArrived) {
            const s = last.status;
            const want = s === 401 || s === 403 ? 4 : s === 404 ? 5 : s === 408 || s === 429 || s >= 500 ? 6 : 1;
            expect(code).toBe(want);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
