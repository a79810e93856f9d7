// What the service has now, read with the list endpoints and reduced to what
// a backups file describes. Records are read leniently: a field the service
// does not send is simply absent here.
import type { Client, RequestSpec } from '../contract/context.js';
import type { Section } from './filespec.js';
import type { CliError } from '../errors.js';
import { looksLikeId, NAMED_KINDS, pickByName } from '../cli/resolve.js';
import { providerToken } from '../util/providers.js';

type Rec = Record<string, unknown>;

export interface Retention {
  hourly: number;
  daily: number;
  weekly: number;
  monthly: number;
}

export interface CurrentStorage {
  id: number;
  name: string;
  provider: string | null;
  region: string | null;
  bucket: string | null;
  endpoint: string | null;
}
export interface CurrentSchedule {
  id: number | null;
  order: number;
  cron: string;
  timezone: string;
  run_offset: number;
  retention: Retention;
}
export interface CurrentJob {
  id: string;
  name: string;
  recipe: string | null;
  /** Only when the service shows it beside the slug (the interface's job record does not). */
  recipe_id?: number | null;
  compute: { type: string | null; server_id: number | null; server_name: string | null; region: string | null };
  /** Config values as the service shows them ("True"/"False", numbers, "********" for a secret). */
  config: Record<string, string | number | boolean>;
  /** Config keys whose own `type` says the value is secret (password). */
  secretKeys: string[];
  /** Storage ids in priority order (the service lists a job's storage by priority). */
  storage: Array<{ id: number; name: string | null }>;
  schedules: CurrentSchedule[];
  /** Only when the service shows them (the interface's job record does not). */
  encryption_key_id?: string | number | null;
  proxy_id?: number | null;
}
export interface CurrentMachine {
  id: number | string;
  name: string;
  status: string | null;
  frequency: number | null;
  timezone: string | null;
  run_offset: number | null;
  retention: Retention;
}
export interface CurrentResource {
  id: number;
  type: string | null;
  activated: boolean;
  last_known_ip: string | null;
}
export interface Named {
  id: number | string;
  name: string | null;
}

export interface CurrentState {
  storage?: CurrentStorage[];
  jobs?: CurrentJob[];
  droplets?: CurrentMachine[];
  volumes?: CurrentMachine[];
  resources?: CurrentResource[];
  servers?: Named[];
}

/** An unset text value of a job's config, as the service shows it. */
export const NOT_SET = '**not set**';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** The token of a provider as the service sent it (`aws` or `cloud_a` -> `cloud_a`), so a backups file in either spelling compares equal. */
const providerOf = (v: unknown): string | null => (typeof v === 'string' ? (providerToken(v) ?? v) : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null);
const obj = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const arr = (v: unknown): Rec[] => (Array.isArray(v) ? v.map(obj) : []);

export function retentionOf(v: unknown): Retention {
  const r = obj(v);
  return { hourly: int(r.hourly) ?? 0, daily: int(r.daily) ?? 0, weekly: int(r.weekly) ?? 0, monthly: int(r.monthly) ?? 0 };
}

async function all(client: Client, path: string, signal: AbortSignal): Promise<Rec[]> {
  const out: Rec[] = [];
  const req: RequestSpec = { method: 'GET', path, query: { page_size: 100 } };
  for await (const page of client.pages(req, { all: true, signal })) out.push(...page.records.map(obj));
  return out;
}

/** A config field's `type` that marks its value secret. */
const SECRET_TYPE = /^(password|secret)$/i;

/** A job record of the service, reduced to what a backups file describes. */
export function jobOf(r: Rec): CurrentJob {
  const compute = obj(r.compute);
  const server = obj(compute.server);
  const config: CurrentJob['config'] = {};
  const secretKeys: string[] = [];
  for (const [k, v] of Object.entries(obj(r.config))) {
    const value = typeof v === 'object' && v !== null ? (v as Rec).value : v;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') config[k] = value;
    if (typeof v === 'object' && v !== null && typeof (v as Rec).type === 'string' && SECRET_TYPE.test((v as Rec).type as string)) secretKeys.push(k);
  }
  const schedules = arr(r.schedule)
    .map((s, i) => ({
      id: int(s.id),
      order: int(s.schedule_order) ?? i + 1,
      cron: str(s.cron) ?? '',
      timezone: str(s.timezone) ?? 'UTC',
      run_offset: int(s.run_offset) ?? 0,
      retention: retentionOf(s.retention),
    }))
    .sort((a, b) => a.order - b.order);
  const out: CurrentJob = {
    id: String(r.id),
    name: str(r.name) ?? '',
    recipe: str(r.recipe),
    compute: {
      type: str(compute.type) ?? str(r.compute_type),
      server_id: int(compute.server_id) ?? int(server.id),
      server_name: str(server.name),
      region: str(compute.region),
    },
    config,
    secretKeys,
    storage: arr(r.storage).flatMap((s) => (int(s.id) === null ? [] : [{ id: int(s.id)!, name: str(s.name) }])),
    schedules,
  };
  if ('recipe_id' in r) out.recipe_id = int(r.recipe_id);
  if ('encryption_key_id' in r) out.encryption_key_id = (r.encryption_key_id as string | number | null) ?? null;
  if ('proxy_id' in r) out.proxy_id = int(r.proxy_id);
  return out;
}

function machine(r: Rec): CurrentMachine {
  return {
    id: r.id as number | string,
    name: str(r.name) ?? '',
    status: str(r.status),
    frequency: int(r.frequency),
    timezone: str(r.timezone),
    run_offset: int(r.run_offset),
    retention: retentionOf(r.retention),
  };
}

const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 'true';

/**
 * Reads the sections asked for, plus what their references need (servers and
 * storage for jobs), a few lists at a time. (The interface has no list of
 * encryption keys: a job names its key by id.)
 */
export async function readState(client: Client, sections: readonly Section[], signal: AbortSignal): Promise<CurrentState> {
  const want = new Set<string>(sections);
  if (want.has('jobs')) {
    want.add('storage');
    want.add('servers');
  }
  const state: CurrentState = {};
  const tasks: Array<Promise<void>> = [];
  const read = (path: string, put: (records: Rec[]) => void) => tasks.push(all(client, path, signal).then(put));
  if (want.has('storage'))
    read('/storage', (rs) => {
      state.storage = rs.map((s) => ({ id: int(s.id)!, name: str(s.name) ?? '', provider: providerOf(s.provider), region: str(s.region), bucket: str(s.bucket), endpoint: str(s.endpoint) }));
    });
  if (want.has('jobs')) read('/jobs', (rs) => (state.jobs = rs.map(jobOf)));
  if (want.has('servers')) read('/servers', (rs) => (state.servers = rs.map((s) => ({ id: int(s.id) ?? String(s.id), name: str(s.name) }))));
  if (want.has('droplets')) read('/cloud_i/droplets', (rs) => (state.droplets = rs.map(machine)));
  if (want.has('volumes')) read('/cloud_i/volumes', (rs) => (state.volumes = rs.map(machine)));
  if (want.has('resources'))
    read('/snapshots/resources', (rs) => {
      state.resources = rs.map((r) => ({ id: int(r.id)!, type: str(r.type), activated: truthy(r.backups_activated), last_known_ip: str(r.last_known_ip) }));
    });
  await Promise.all(tasks);
  return state;
}

/**
 * A reference as everywhere in the CLI (src/cli/resolve.ts): a value shaped
 * like an id is the id; else the exact name, else the one name that matches
 * ignoring case. `error` is the resolver's own message (candidates listed).
 */
export function findByName<T extends Named>(items: readonly T[], ref: string, kind: 'servers' | 'storage'): { found?: T; error?: string } {
  if (looksLikeId(kind, ref)) {
    const found = items.find((i) => String(i.id) === ref.trim());
    return found ? { found } : { error: `no ${NAMED_KINDS[kind].singular} with the id ${ref}` };
  }
  try {
    return { found: pickByName(items, ref, kind) };
  } catch (e) {
    const err = e as CliError;
    return { error: [err.message, ...(err.details ?? []).map((d) => d.trim())].join('; ') };
  }
}

/** Names held by more than one record of a kind: each with its ids. */
export function duplicateNames(items: ReadonlyArray<{ id: number | string; name: string }>): Array<{ name: string; ids: Array<number | string> }> {
  const by = new Map<string, Array<number | string>>();
  for (const i of items) by.set(i.name, [...(by.get(i.name) ?? []), i.id]);
  return [...by].filter(([, ids]) => ids.length > 1).map(([name, ids]) => ({ name, ids }));
}
