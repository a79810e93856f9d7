// The demo's story at one instant, checked in-process: the emulator's service
// seeded at an injected clock, read by the status collector through an
// in-process Client (the same queries and pages as over HTTP), judged by
// `status --check`, and phrased by the demo's commentary. Used by the sweeps
// of test/unit/demo-clock*.test.ts.
import { expect } from 'vitest';
import type { Client, Context, QueryValue, RequestSpec } from '../../src/contract/context.js';
import { check } from '../../src/commands/status.js';
import { createService, parseQuery, type Service } from '../../src/emulator/index.js';
import { NOT_YET_STARTED } from '../../src/emulator/seed.js';
import { CliError, ExitCode } from '../../src/errors.js';
import { nextPageQuery } from '../../src/http/paging.js';
import { encodeQuery } from '../../src/http/query.js';
import { collectStatus } from '../../src/status/collect.js';
import { parseMaxAges, type StatusDocument } from '../../src/status/document.js';
import { loadCronTools, type CronTools } from '../../src/fleet/schedule.js';
import { slidingCronTools } from './sliding-cron.js';
import { checkStory, statusStory } from '../../src/scripts/demo-story.mjs';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/**
 * Only what status needs to judge is seeded at each step: a week of history holds every job's and
 * machine's newest backups, its newest completed one, and the stale job's last success (checked below).
 */
export const SWEEP_HISTORY_DAYS = 7;
/** A day of steps takes about 2 s on a quiet machine; a loaded one (8 engineers on 2 cores) took up to 27 s. */
export const SWEEP_TIMEOUT_MS = 120_000;

/** The Client of the CLI over the service's answers, in-process: the same queries and pages as over HTTP. */
function inProcessClient(service: Service): Client {
  const request = async (req: RequestSpec) => {
    const url = new URL(`http://in-process/v1${req.path}${encodeQuery(req.query)}`);
    const answer = service.answer(req.method, url.pathname, parseQuery(url.searchParams), req.body);
    const body: unknown = answer.body.length ? JSON.parse(answer.body.toString('utf8')) : undefined;
    if (answer.status >= 400) throw new Error(`${answer.status} ${req.method} ${url.pathname}: ${JSON.stringify(body)}`);
    return { status: answer.status, headers: answer.headers, body };
  };
  return {
    request,
    async *pages(req, o) {
      let query: Record<string, QueryValue> | undefined = { ...req.query };
      while (query) {
        const { body } = await request({ ...req, query });
        const records = (body as { data: unknown[] }).data;
        yield { records, raw: body };
        query = o.all ? nextPageQuery(query, body, records.length) : undefined;
      }
    },
    close: async () => {},
  };
}

function context(client: Client): Context {
  const fail = () => {
    throw new Error('not used');
  };
  return {
    globals: {},
    io: fail as never,
    env: {},
    output: { format: 'json', quiet: false, noHeaders: false, color: false, pretty: false },
    settings: fail,
    client: async () => client,
    confirm: fail,
    signal: new AbortController().signal,
    spinner: () => ({ update() {}, stop() {} }),
    warn: (message) => {
      throw new Error(`status warned: ${message}`);
    },
    note: () => {},
  };
}

export async function statusAt(
  now: number,
  historyDays = SWEEP_HISTORY_DAYS,
  tools?: CronTools,
): Promise<{ doc: StatusDocument; service: Service }> {
  const service = createService({ seed: 'demo', now, historyDays });
  const doc = await collectStatus(context(inProcessClient(service)), {
    jobs: [],
    sections: true,
    maxAges: parseMaxAges([], () => undefined, () => new Error('no max age given')),
    allowErrors: false,
    now,
    tools: tools ?? (await loadCronTools()),
  });
  return { doc, service };
}

const ages = (s: { age_seconds: number | null } | null) => (s?.age_seconds ?? Infinity) * 1000;

/** Everything the demo promises at one instant; throws with the instant in the message on the first broken promise. */
export async function expectStory(now: number, tools?: CronTools): Promise<void> {
  const at = new Date(now).toISOString();
  const { doc, service } = await statusAt(now, SWEEP_HISTORY_DAYS, tools);
  const story = {
    summary: doc.summary,
    jobs: doc.jobs.map((j) => [j.name, j.health, j.within_max_age]),
  };
  const healthy = ['api postgres', 'events mongodb', 'git server', 'marketing site', 'shop mysql', 'web-01 files'];
  expect(story, at).toEqual({
    summary: { failing: 1, stale: 1, healthy: 6, unknown: 0 },
    jobs: [['crm-db-failing', 'failing', false], ['archive files', 'stale', false], ...healthy.map((n) => [n, 'healthy', true])],
  });
  expect(doc.jobs[0]!.recent.slice(0, 3), at).toEqual(['failed', 'failed', 'failed']);

  // status --check: exit 9, one line for each of the two and for nothing else.
  const refused = await check(doc).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(refused, at).toBeInstanceOf(CliError);
  const err = refused as CliError;
  // Issue 29: --check judges droplets, volumes and resources too (the paused droplet, the failed volume snapshot).
  expect([err.exitCode, err.message], at).toEqual([ExitCode.empty, 'status --check: 2 failing, 2 stale of 8 jobs and 9 droplets, volumes and snapshot resources']);
  expect(err.details.map((l) => /^ {2}(.+?) \(/.exec(l)?.[1]), at).toEqual(['crm-db-failing', 'archive files', 'droplet staging', 'volume uploads-fra1']);
  expect(err.exitCode).toBe(9);

  // Droplets and volumes with a schedule, each with a recent snapshot; resources with backups activated.
  const machines = (list: StatusDocument['droplets']) => list!.map((m) => [m.name, m.status, m.frequency_hours]);
  expect(machines(doc.droplets), at).toEqual([
    ['web-01', 'active', 24],
    ['db-primary', 'active', 6],
    ['staging', 'paused', 24],
  ]);
  expect(machines(doc.volumes), at).toEqual([
    ['pgdata-fra1', 'active', 24],
    ['uploads-fra1', 'active', 24],
  ]);
  // Their health as README (Fleet health), --json and -o prometheus judge it: one failing volume, the paused droplet stale.
  expect(doc.droplets!.map((m) => m.health), at).toEqual(['healthy', 'healthy', 'stale']);
  expect(doc.volumes!.map((m) => m.health), at).toEqual(['healthy', 'failing']);
  expect(doc.volumes![1]!.newest!.status, at).toBe('failed');
  expect(doc.resources!.map((r) => r.id), at).toEqual([1, 2, 4, 6]);
  expect(doc.resources!.map((r) => r.health), at).toEqual(['healthy', 'healthy', 'healthy', 'healthy']);
  // The newest snapshot of a scheduled machine is its newest due run: no older than a period (plus a clock change's hour).
  for (const m of [...doc.droplets!, ...doc.volumes!].filter((x) => x.status === 'active')) {
    expect(ages(m.newest), `${at} ${m.name}`).toBeLessThanOrEqual((m.frequency_hours! + 1) * HOUR + NOT_YET_STARTED);
  }

  // Nothing of the seed finished (or started) after now.
  const store = service.store;
  // (One assertion over the records that break it, not one per record: an expect() per record cost a fifth of a step.)
  const future = [
    ...store.backups.rows.filter((b) => Math.max(b.created_at, b.started_at ?? 0, b.completed_at ?? 0) > now).map((b) => `backup ${b.id}`),
    ...[...store.snapshots.rows, ...store.machineSnapshots.rows].filter((s) => Math.max(s.started_at, s.completed_at ?? 0) > now).map((s) => `snapshot ${s.id}`),
  ];
  expect(future, at).toEqual([]);

  // What the demo says of the fleet.
  expect(statusStory(doc), at).toMatch(
    /^8 jobs: 1 failing: crm-db-failing \(its last 3 runs failed\); 1 stale: archive files \(newest completed backup [4-6] days old\); 6 healthy$/,
  );
  expect(checkStory(doc), at).toBe('status --check names crm-db-failing (failing), archive files (stale), droplet staging (stale) and volume uploads-fra1 (failing) (exit 9)');
}

/**
 * Checks the story every 5 minutes for `days` days from `from`; the number of steps. Status reads the
 * schedules' runs through slidingCronTools (test/helpers/sliding-cron.ts): croner enumerates each
 * schedule's runs once for many steps. At the first step of every hour it also asks croner afresh for
 * every answer and fails on a difference.
 */
export async function sweep(from: string, days: number): Promise<number> {
  const start = Date.parse(from);
  const tools = slidingCronTools(await loadCronTools());
  let steps = 0;
  for (let t = start; t < start + days * DAY; t += 5 * MINUTE, steps++) {
    tools.verify = (t - start) % HOUR === 0;
    await expectStory(t, tools);
  }
  // Every hour's check compared the answers of a step (each job's interval runs and next run).
  expect(tools.verified).toBeGreaterThanOrEqual(Math.ceil((days * DAY) / HOUR) * 8 * 2);
  return steps;
}

