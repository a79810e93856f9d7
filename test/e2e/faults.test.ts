// The fault matrix: every injected fault of the emulator against one command
// per HTTP method, through the built CLI. Each cell asserts the exit code, how
// many requests reached the emulator (a POST exactly once unless it was
// refused or rate limited) and what stderr says. The observed matrix is
// written to docs/faults.md; the test fails when that file is out of date
// (regenerate with UPDATE_FAULTS_DOC=1 npx vitest run --config test/vitest.config.ts test/e2e/faults.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, tempConfigDir, type CliResult } from '../helpers/cli.js';
import { apiFetch, startTestEmulator } from '../helpers/emulator.js';
import { findCommand } from '../helpers/manifest.js';
import type { Emulator, FaultKind, FaultRule, RecordedRequest } from '../../src/emulator/index.js';

type Method = 'GET' | 'PATCH' | 'DELETE' | 'POST';
const METHODS: Method[] = ['GET', 'PATCH', 'DELETE', 'POST'];

/** Short waits so that a cell never sleeps for real seconds: both are user settings (see README). */
const RETRY_ENV = { BACKUPCTL_RETRY_BASE: '20ms', BACKUPCTL_RETRY_MAX_WAIT: '50ms' };
const ATTEMPTS = 5;

const hasJobsStart = findCommand('jobs backup start') !== undefined;

/** One command per method, set up on a fresh emulator. */
interface Target {
  method: Method;
  /** The command as shown in the table. */
  label: string;
  args: string[];
  /** Path the request goes to (the fault rule is limited to it). */
  path: string;
  /** stderr of a success; undefined where the command's own handler decides it. */
  done: string | undefined;
  /** Status of the successful answer, and whether it has a body. */
  okStatus: number;
  okHasBody: boolean;
  /** The hint an outcome-unknown POST prints. */
  hint?: string;
  /** The record's id in paths and messages, written as a placeholder in docs/faults.md. */
  id?: [value: string, placeholder: string];
}

async function firstId(emu: Emulator, listPath: string, pick: 'first' | 'last'): Promise<string> {
  const res = await apiFetch(emu, `${listPath}?page_size=100`);
  const body = (await res.json()) as { data: Array<{ id: number | string }> };
  const row = pick === 'first' ? body.data[0] : body.data[body.data.length - 1];
  if (!row) throw new Error(`no record at ${listPath} to run the matrix against`);
  return String(row.id);
}

async function targetFor(method: Method, emu: Emulator): Promise<Target> {
  switch (method) {
    case 'GET':
      return { method, label: 'ssh-keys list', args: ['ssh-keys', 'list'], path: '/v1/ssh-keys', done: '', okStatus: 200, okHasBody: true };
    case 'PATCH': {
      const id = await firstId(emu, '/v1/ssh-keys', 'last');
      return {
        method,
        label: 'ssh-keys rename <id> fault-matrix',
        args: ['ssh-keys', 'rename', id, 'fault-matrix'],
        path: `/v1/ssh-keys/${id}/rename`,
        done: `Renamed SSH key ${id} to fault-matrix.\n`,
        okStatus: 204,
        okHasBody: false,
        id: [id, '<id>'],
      };
    }
    case 'DELETE': {
      const id = await firstId(emu, '/v1/ssh-keys', 'last');
      return {
        method,
        label: 'ssh-keys delete <id> --yes',
        args: ['ssh-keys', 'delete', id, '--yes'],
        path: `/v1/ssh-keys/${id}`,
        done: `Deleted SSH key ${id}.\n`,
        okStatus: 204,
        okHasBody: false,
        id: [id, '<id>'],
      };
    }
    case 'POST': {
      if (hasJobsStart) {
        const job = await firstId(emu, '/v1/jobs', 'first');
        return {
          method,
          label: 'jobs backup start <job>',
          args: ['jobs', 'backup', 'start', job],
          path: `/v1/jobs/${job}/backups/start`,
          done: undefined,
          okStatus: 202,
          okHasBody: true,
          hint: `Check before retrying: backupctl jobs backup list ${job} --sort -created_at`,
          id: [job, '<job>'],
        };
      }
      return {
        method,
        label: 'ssh-keys create --name fault-matrix',
        args: ['ssh-keys', 'create', '--name', 'fault-matrix'],
        path: '/v1/ssh-keys',
        done: '',
        okStatus: 201,
        okHasBody: true,
        hint: 'Check before retrying: backupctl ssh-keys list --sort -created_at',
      };
    }
  }
}

interface Row {
  key: string;
  fault: string;
  variant: string;
  /** The rule, limited to the target's method and path when run. */
  rule?: Omit<FaultRule, 'method' | 'path'>;
  /** Nothing listens at the base URL. */
  refused?: boolean;
  /** --timeout for the cell. */
  timeout?: string;
}

const both = (fault: FaultKind, label: string, extra: Partial<Row> = {}, ruleExtra: Partial<FaultRule> = {}): Row[] => [
  { key: `${fault}/first-2`, fault: label, variant: 'first 2 requests', rule: { fault, count: 2, ...ruleExtra }, ...extra },
  { key: `${fault}/every`, fault: label, variant: 'every request', rule: { fault, ...ruleExtra }, ...extra },
];

const ROWS: Row[] = [
  ...both('429', '429 with Retry-After: 1', {}, { retryAfter: 1 }),
  ...both('500', '500 JSON'),
  ...both('502-html', '502 with an HTML page'),
  ...both('503', '503 JSON'),
  ...both('reset', 'connection reset'),
  ...both('timeout', 'no answer (timeout)', { timeout: '1s' }),
  ...both('truncated', 'truncated JSON'),
  ...both('not-json', '200 with an HTML body'),
  { key: 'slow-body/within', fault: 'slow body (2 s)', variant: 'every request, --timeout 10s', rule: { fault: 'slow-body' }, timeout: '10s' },
  { key: 'slow-body/beyond', fault: 'slow body (2 s)', variant: 'every request, --timeout 500ms', rule: { fault: 'slow-body' }, timeout: '500ms' },
  { key: '503/rate', fault: '503 JSON', variant: 'nine in ten requests (seeded draw)', rule: { fault: '503', rate: 0.9 } },
  { key: 'refused/every', fault: 'connection refused', variant: 'every request (nothing listening)', refused: true },
];

interface Expected {
  code: number;
  requests: number;
  /** Exactly; undefined: anything but an error line. */
  stderr: string | undefined;
}

const STATUS: Record<string, [number, string, string]> = {
  '429': [429, 'Too Many Requests', 'Too Many Attempts.'],
  '500': [500, 'Internal Server Error', 'Server Error'],
  '502-html': [502, 'Bad Gateway', 'the answer was an HTML page, not JSON'],
  '503': [503, 'Service Unavailable', 'Service Unavailable'],
};

const display = (t: Target) => `${t.method} ${t.path}`;
const cutOff = (status: number, hasBody: boolean) =>
  hasBody ? `the answer was cut off (${status} received, the body incomplete)` : 'connection reset by the service';
const unknown = (t: Target, reason: string) =>
  `error: ${display(t)}: ${reason}; the request may or may not have reached the service\n${t.hint}\n`;

/** Why the last attempt failed, for faults that leave no usable answer. */
function lostReason(kind: FaultKind, t: Target, row: Row, lastAttempt: number): string {
  switch (kind) {
    case 'reset':
      return 'connection reset by the service';
    case 'timeout':
    case 'slow-body':
      return `timed out after ${row.timeout}`;
    case 'truncated':
      // The first DELETE is carried out before its answer is cut; the ones after it find nothing (404).
      return t.method === 'DELETE' && lastAttempt > 1 ? cutOff(404, true) : cutOff(t.okStatus, t.okHasBody);
    case 'not-json':
      return "the 200 answer was an HTML page, not the service's JSON";
    default:
      throw new Error(`${kind} is answered, not lost`);
  }
}

function expected(row: Row, t: Target, received: RecordedRequest[]): Expected {
  const idempotent = t.method !== 'POST';
  const success = (requests: number): Expected => ({ code: 0, requests, stderr: t.done });
  if (row.refused) {
    // Surely never sent: even the POST is tried again, and nothing arrives.
    return { code: 6, requests: 0, stderr: `error: ${display(t)}: connection refused (after ${ATTEMPTS} attempts)\n` };
  }
  const rule = row.rule!;
  if (rule.fault === 'slow-body') {
    // Headers of an answer without a body complete it; a body spread over 2 s outlasts 500ms.
    if (row.key === 'slow-body/within' || !t.okHasBody) return success(1);
    if (!idempotent) return { code: 7, requests: 1, stderr: unknown(t, lostReason('slow-body', t, row, 1)) };
    return { code: 6, requests: ATTEMPTS, stderr: `error: ${display(t)}: ${lostReason('slow-body', t, row, ATTEMPTS)} (after ${ATTEMPTS} attempts)\n` };
  }
  // How many attempts meet the fault before one gets through (or all do).
  let faultedRun: number;
  if (rule.rate !== undefined) {
    const firstClean = received.findIndex((r) => r.fault === undefined);
    faultedRun = firstClean === -1 ? Infinity : firstClean;
  } else {
    faultedRun = rule.count ?? Infinity;
  }
  if (faultedRun === 0) return success(1);
  const status = STATUS[rule.fault];
  const retried = idempotent || rule.fault === '429';
  if (retried) {
    if (faultedRun < ATTEMPTS) return success(faultedRun + 1);
    const tail = `(after ${ATTEMPTS} attempts)`;
    const stderr = status
      ? `error: ${status[0]} ${status[1]}: ${display(t)}: ${status[2]} ${tail}\n`
      : `error: ${display(t)}: ${lostReason(rule.fault, t, row, ATTEMPTS)} ${tail}\n`;
    return { code: 6, requests: ATTEMPTS, stderr };
  }
  // A POST that may have arrived is never sent twice.
  const reason = status ? `${status[0]} from the service` : lostReason(rule.fault, t, row, 1);
  return { code: 7, requests: 1, stderr: unknown(t, reason) };
}

interface Observed {
  code: number | null;
  requests: number;
  stderr: string;
}

const observed = new Map<string, Observed>();
const targetsSeen = new Map<Method, string>();

async function runCell(row: Row, method: Method): Promise<{ result: CliResult; received: RecordedRequest[]; target: Target; emu: Emulator }> {
  const emu = await startTestEmulator({ seed: 'demo' });
  const cfg = tempConfigDir();
  try {
    const target = await targetFor(method, emu);
    targetsSeen.set(method, target.label);
    let baseUrl = emu.url;
    if (row.refused) {
      // The address of a server that has just gone away: connections are refused.
      const gone = await startTestEmulator({ seed: 'empty' });
      baseUrl = gone.url;
      await gone.close();
    } else {
      emu.setFaults([{ ...row.rule!, method, path: target.path }]);
    }
    emu.clearRequests();
    const args = [...target.args, ...(row.timeout ? ['--timeout', row.timeout] : [])];
    const result = await runCli(args, {
      env: { BACKUPCTL_BASE_URL: baseUrl, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir, ...RETRY_ENV },
      timeoutMs: 25_000,
    });
    const received = emu.requests.filter((r) => r.server === 'api' && r.path === target.path);
    return { result, received, target, emu };
  } finally {
    await emu.close();
    cfg.cleanup();
  }
}

describe.concurrent('fault matrix', () => {
  for (const row of ROWS) {
    for (const method of METHODS) {
      it(`${row.fault}, ${row.variant}: ${method}`, async () => {
        const { result, received, target } = await runCell(row, method);
        const want = expected(row, target, received);
        let shown = result.stderr;
        if (target.id) {
          const [id, placeholder] = target.id;
          for (const [from, to] of [[`/${id}`, `/${placeholder}`], [`SSH key ${id} `, `SSH key ${placeholder} `], [`SSH key ${id}.`, `SSH key ${placeholder}.`]]) {
            shown = shown.split(from!).join(to!);
          }
        }
        observed.set(`${row.key} ${method}`, { code: result.code, requests: received.length, stderr: shown });
        expect({ code: result.code, requests: received.length, stderr: want.stderr === undefined ? undefined : result.stderr }).toEqual({
          code: want.code,
          requests: want.requests,
          stderr: want.stderr,
        });
        if (want.stderr === undefined) expect(result.stderr).not.toMatch(/^error:/m);
        // Every request the CLI sent was the same one, and nothing else was sent.
        for (const r of received) expect(r.method).toBe(method);
        if (want.code !== 0) expect(result.stdout).toBe('');
      });
    }
  }
});

describe('retries as a user sees them', () => {
  const cli = async (emu: Emulator, args: string[], extra: Record<string, string> = {}) => {
    const cfg = tempConfigDir();
    try {
      return await runCli(args, {
        env: { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir, ...extra },
      });
    } finally {
      cfg.cleanup();
    }
  };

  it('--debug shows each attempt and the wait before it', async () => {
    const emu = await startTestEmulator();
    try {
      emu.setFaults([{ fault: '503', count: 2, path: '/v1/ssh-keys' }]);
      const r = await cli(emu, ['ssh-keys', 'list', '--debug'], RETRY_ENV);
      expect(r.code).toBe(0);
      const lines = r.stderr.split('\n');
      const attempts = lines.filter((l) => /^\[debug\] > GET http:\/\/127\.0\.0\.1:\d+\/v1\/ssh-keys/.test(l));
      expect(attempts.map((l) => /\(attempt (\d)\)$/.exec(l)?.[1] ?? '1')).toEqual(['1', '2', '3']);
      const waits = lines.filter((l) => l.includes('; retry '));
      expect(waits).toHaveLength(2);
      // A jittered wait may round to nothing, which reads "0s".
      expect(waits[0]).toMatch(/^\[debug\] got 503; retry 1 of 4 in (\d+ms|0s)$/);
      expect(waits[1]).toMatch(/^\[debug\] got 503; retry 2 of 4 in (\d+ms|0s)$/);
      // Each wait is announced before the attempt it precedes.
      expect(lines.indexOf(waits[0]!)).toBeLessThan(lines.indexOf(attempts[1]!));
      // The jittered backoff never waits longer than the longest wait set.
      for (const w of waits) expect(Number(/in (\d+)(ms|s)$/.exec(w)![1])).toBeLessThanOrEqual(50);
    } finally {
      await emu.close();
    }
  });

  it('honours Retry-After in seconds when it is below the longest wait', async () => {
    const emu = await startTestEmulator();
    try {
      emu.setFaults([{ fault: '429', count: 1, retryAfter: 1, path: '/v1/ssh-keys' }]);
      const r = await cli(emu, ['ssh-keys', 'list', '--debug'], { BACKUPCTL_RETRY_MAX_WAIT: '5s' });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('[debug] got 429; retry 1 of 4 in 1s\n');
      expect(emu.requests.filter((q) => q.path === '/v1/ssh-keys')).toHaveLength(2);
    } finally {
      await emu.close();
    }
  });

  it('honours Retry-After as an HTTP date', async () => {
    const emu = await startTestEmulator();
    try {
      const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000).toUTCString();
      emu.setFaults([{ fault: '503', count: 1, retryAfter: at, path: '/v1/ssh-keys' }]);
      const r = await cli(emu, ['ssh-keys', 'list', '--debug'], { BACKUPCTL_RETRY_MAX_WAIT: '5s' });
      expect(r.code).toBe(0);
      const wait = /got 503; retry 1 of 4 in (\d+)(ms|s)\n/.exec(r.stderr);
      expect(wait).not.toBeNull();
      const ms = Number(wait![1]) * (wait![2] === 's' ? 1000 : 1);
      // The date is at most 2 s ahead: the wait is read from it, not from the backoff (at most 50ms here).
      expect(ms).toBeLessThanOrEqual(2000);
    } finally {
      await emu.close();
    }
  });

  it('caps a long Retry-After at BACKUPCTL_RETRY_MAX_WAIT', async () => {
    const emu = await startTestEmulator();
    try {
      emu.setFaults([{ fault: '429', count: 1, retryAfter: 3600, path: '/v1/ssh-keys' }]);
      const r = await cli(emu, ['ssh-keys', 'list', '--debug'], { BACKUPCTL_RETRY_MAX_WAIT: '200ms' });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('[debug] got 429; retry 1 of 4 in 200ms\n');
    } finally {
      await emu.close();
    }
  });

  it('a bad retry setting is a configuration error naming the variable', async () => {
    const emu = await startTestEmulator();
    try {
      for (const name of ['BACKUPCTL_RETRY_MAX_WAIT', 'BACKUPCTL_RETRY_BASE']) {
        const r = await cli(emu, ['ssh-keys', 'list'], { [name]: 'soon' });
        expect(r.code).toBe(3);
        expect(r.stderr).toContain(name);
        expect(r.stderr).toMatch(/^error: invalid duration "soon"/);
      }
      expect(emu.requests).toHaveLength(0);
    } finally {
      await emu.close();
    }
  });

  it('without --debug a recovered request prints nothing about its retries', async () => {
    const emu = await startTestEmulator();
    try {
      emu.setFaults([{ fault: '500', count: 2, path: '/v1/ssh-keys' }]);
      const r = await cli(emu, ['ssh-keys', 'list', '-q'], RETRY_ENV);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout, 'one id a line, at least one').toMatch(/^(\d+\n)+$/);
    } finally {
      await emu.close();
    }
  });
});

// ---------------------------------------------------------------------------
// docs/faults.md

const DOC = path.join(ROOT, 'docs', 'faults.md');

function cellText(o: Observed | undefined): string {
  if (!o) return '(not run)';
  return `exit ${o.code}, ${o.requests} ${o.requests === 1 ? 'request' : 'requests'}`;
}

function firstLine(stderr: string): string {
  return stderr.split('\n')[0]!.replace(/\|/g, '\\|') || '(nothing)';
}

export function faultsMarkdown(): string {
  const heads = METHODS.map((m) => `${m} \`${targetsSeen.get(m) ?? '?'}\``);
  const lines = [
    '# What backupctl does when the service misbehaves',
    '',
    'Generated by `test/e2e/faults.test.ts`, which runs every cell below against the emulator and',
    'checks this file is current (regenerate: `UPDATE_FAULTS_DOC=1 npx vitest run --config',
    'test/vitest.config.ts test/e2e/faults.test.ts`). Each fault is injected only into the',
    "command's own request; \"requests\" counts what reached the emulator. The cells run with",
    `\`BACKUPCTL_RETRY_BASE=${RETRY_ENV.BACKUPCTL_RETRY_BASE}\` and \`BACKUPCTL_RETRY_MAX_WAIT=${RETRY_ENV.BACKUPCTL_RETRY_MAX_WAIT}\` so that no cell waits`,
    'for real seconds; by default the first wait is up to 0.5 s and a wait is at most 30 s.',
    '',
    'The rules: GET, PUT, PATCH and DELETE are retried on network errors, timeouts, answers that are',
    'not JSON, 408, 429 and 5xx, at most 4 times (5 attempts). A POST is sent again only when the',
    'connection was refused or the answer was 429; after any other failure it may have reached the',
    'service, so the command exits 7 and says how to check instead of risking a second backup.',
    'A DELETE retried after a lost answer that then finds nothing (404) has done its job: exit 0.',
    'An answer without a body (the 204 of rename and delete) is complete when its headers arrive,',
    'so a slow body cannot delay it.',
    '',
    `| fault | variant | ${heads.join(' | ')} |`,
    `|---|---|${METHODS.map(() => '---|').join('')}`,
  ];
  for (const row of ROWS) {
    const cells = METHODS.map((m) => cellText(observed.get(`${row.key} ${m}`)));
    lines.push(`| ${row.fault} | ${row.variant} | ${cells.join(' | ')} |`);
  }
  lines.push('', '## What stderr says', '', '| fault | variant | method | exit | stderr (first line) |', '|---|---|---|---|---|');
  for (const row of ROWS) {
    for (const m of METHODS) {
      const o = observed.get(`${row.key} ${m}`);
      lines.push(`| ${row.fault} | ${row.variant} | ${m} | ${o?.code ?? '?'} | ${o ? `\`${firstLine(o.stderr)}\`` : '(not run)'} |`);
    }
  }
  lines.push(
    '',
    'A POST that exits 7 adds a second line: for `jobs backup start` it is',
    '`Check before retrying: backupctl jobs backup list <job> --sort -created_at`; for other POSTs',
    'the command that shows whether it took effect, such as `Check before retrying: backupctl ssh-keys list --sort -created_at`.',
    '',
  );
  return lines.join('\n');
}

describe('docs/faults.md', () => {
  it('matches the matrix just observed', () => {
    const cells = ROWS.length * METHODS.length;
    expect(cells).toBeGreaterThanOrEqual(40);
    // Only a complete run may judge (or rewrite) the file.
    expect(observed.size).toBe(cells);
    const text = faultsMarkdown();
    let current = '';
    try {
      current = readFileSync(DOC, 'utf8');
    } catch {
      current = '';
    }
    if (current !== text && process.env.UPDATE_FAULTS_DOC === '1') {
      writeFileSync(DOC, text);
      current = text;
    }
    expect(current, 'docs/faults.md is out of date: rerun with UPDATE_FAULTS_DOC=1').toBe(text);
  });
});
