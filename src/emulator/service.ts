// The service itself, without sockets: the seeded state, its clock, and the
// answer of a route. startEmulator() puts HTTP, auth and faults around it; a
// test can ask it directly, in-process, at any instant (createService({ now })).
import { randomBytes } from 'node:crypto';
import { FileSigner } from './files.js';
import { HttpError, jsonAnswer, reportInternalError, type Answer, type Reply } from './reply.js';
import { matchRoute } from './router.js';
import { type Query, type RouteDef } from './routing.js';
import { Runtime } from './runtime.js';
import { addFleetJobs } from './fleet-jobs.js';
import { seedStore } from './seed.js';
import { Store } from './store.js';
import type { EmulatorOptions } from './types.js';
import { addBigFileJob, addDamagedFilesJob, addHostileArchivesJob, addKeyedFilesJob, addListedFilesJob, addHostileRestoreJobs, addUnsafeArchiveJob, plantDemoCorruption } from './verify-fixtures.js';
import { addRestoreFixtureJobs } from './restore-fixtures.js';
import { addBadNightJobs } from './bad-night-jobs.js';
import { isObject } from './validate.js';
import { addRetentionJobs } from './retention.js';

export type ServiceOptions = Pick<EmulatorOptions, 'seed' | 'now' | 'tickMs' | 'backupOutcome' | 'bigJob' | 'damagedFiles' | 'bigFile' | 'archiveFaults' | 'retentionJobs' | 'dialect' | 'urlTtlMs' | 'badNight' | 'fleetJobs'> & {
  /** Days of scheduled history to seed (see SeedOptions.historyDays). */
  historyDays?: number;
};

export interface Service {
  store: Store;
  rt: Runtime;
  /** The answer to a request, as the API would give it to an authorised caller (no faults, no latency). */
  answer(method: string, path: string, query?: Query, body?: unknown): Answer;
}

export function replyToAnswer(reply: Reply): Answer {
  if (reply.json !== undefined) {
    const headers = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', ...reply.headers };
    return { status: reply.status, headers, body: Buffer.from(reply.json) };
  }
  if (reply.body === undefined) {
    return { status: reply.status, headers: { 'Cache-Control': 'no-cache, private', ...reply.headers }, body: Buffer.alloc(0) };
  }
  return jsonAnswer(reply.status, reply.body, reply.headers);
}

/** The route of a request, or the 404 or 405 answer when there is none. */
export function findRoute(method: string, path: string): { route: RouteDef; params: Record<string, string> } | Answer {
  const routePath = path.replace(/^\//, '');
  let match: ReturnType<typeof matchRoute>;
  try {
    match = matchRoute(method, path);
  } catch {
    match = { kind: 'not-found' };
  }
  if (match.kind === 'not-found') return jsonAnswer(404, { message: `The route ${routePath} could not be found.` });
  if (match.kind === 'method-not-allowed') {
    const allowed = match.allowed.join(', ');
    return jsonAnswer(
      405,
      { message: `The ${method} method is not supported for route ${routePath}. Supported methods: ${allowed}.` },
      { Allow: allowed },
    );
  }
  return match;
}

/** Runs a route's handler: its reply, or the answer of the error it threw. */
export function runRoute(
  rt: Runtime,
  found: { route: RouteDef; params: Record<string, string> },
  path: string,
  query: Query,
  body: unknown,
): Answer {
  try {
    const reply = found.route.handler({
      rt,
      params: found.params,
      query,
      input: { ...query, ...(isObject(body) ? body : {}) },
      path,
    });
    return replyToAnswer(reply);
  } catch (err) {
    if (err instanceof HttpError) return jsonAnswer(err.status, err.body, err.headers);
    reportInternalError(err);
    return jsonAnswer(500, { message: 'Server Error' });
  }
}

/** The seeded state and its clock: `now` (epoch ms) when given, else the real clock, running on in real time. */
export function createService(opts: ServiceOptions = {}): Service {
  const store = new Store();
  const rt = new Runtime(store, new FileSigner(randomBytes(32)), opts.tickMs ?? 300, opts.backupOutcome ?? 'completed', opts.now, opts.urlTtlMs);
  seedStore(store, { seed: opts.seed ?? 'demo', now: rt.startedAt, bigJob: opts.bigJob ?? 0, historyDays: opts.historyDays, onTheHour: opts.dialect === 'published' });
  if ((opts.seed ?? 'demo') === 'demo') plantDemoCorruption(store);
  if (opts.damagedFiles) {
    addDamagedFilesJob(store, rt.startedAt);
    addKeyedFilesJob(store, rt.startedAt);
    addListedFilesJob(store, rt.startedAt);
    addHostileArchivesJob(store, rt.startedAt);
  }
  if (opts.bigFile) addBigFileJob(store, rt.startedAt, opts.bigFile);
  if (opts.retentionJobs) addRetentionJobs(store, rt.startedAt);
  if (opts.badNight) addBadNightJobs(store, rt.startedAt);
  if (opts.fleetJobs) addFleetJobs(store, rt.startedAt, opts.fleetJobs);
  if (opts.archiveFaults) {
    addUnsafeArchiveJob(store, rt.startedAt);
    addHostileRestoreJobs(store, rt.startedAt);
    addRestoreFixtureJobs(store, rt.startedAt);
  }
  return {
    store,
    rt,
    answer(method, path, query = {}, body = undefined) {
      const found = findRoute(method, path);
      return 'route' in found ? runRoute(rt, found, path, query, body) : found;
    },
  };
}
