// The plan: what must change for the service to match the file, each change
// with the requests that make it, in the order apply sends them (storage
// before the jobs that use it, jobs before their schedules and storage,
// deletions last).
import type { HttpMethod } from '../contract/spec.js';
import { KEYLESS_PROVIDERS } from '../resources/storage.js';
import { RETENTION_PERIODS, retentionText } from '../backups/retention.js';
import type { RequestSpec } from '../contract/context.js';
import { editDistance } from '../util/suggest.js';
import type { RecipeIds } from './recipes.js';
import { SECRET_REFERENCE, type BackupsFile, type JobEntry, type MachineEntry, type Retention as FileRetention, type ScheduleEntry, type Section } from './filespec.js';
import { pathText, type ParsedFile, type Problem } from './parse.js';
import { cronFields } from '../util/cron-macros.js';
import { duplicateNames, findByName, jobOf, NOT_SET, type CurrentJob, type CurrentMachine, type CurrentState, type Named, type Retention } from './state.js';

export type Action = 'create' | 'update' | 'replace' | 'delete';
export const MARKS: Record<Action, string> = { create: '+', update: '~', replace: '-/+', delete: '-' };
export type Kind = 'storage' | 'job' | 'droplet' | 'volume' | 'resource';

export interface FieldChange {
  field: string;
  before?: unknown;
  after?: unknown;
  /** A secret: shown as (sensitive). */
  sensitive?: boolean;
  /** What `after` means, when it is shorthand (a cron macro's 5 fields). */
  means?: string;
}

/** A secret reference that apply sends: only where something is created (or replaced). */
export interface SecretUse {
  ref: string;
  /** Dotted path of the value in the file. */
  at: string;
  kind: Kind;
  name: string;
  field: string;
  action: 'create' | 'replace';
}

/** What apply checks in the service's answer to a create. */
export interface CreateCheck {
  /** A recipe id and the recipe the service made of it, to remember. */
  recipe?: { id: number; slug: string };
  /** The answer differs from the file: apply stops, loudly. */
  problem?: string;
  /** Sent before stopping: the create is taken back (a job of another recipe is never left behind). */
  undo?: RequestSpec;
}

/** Ids learnt while applying: a storage created early is used by the jobs after it. */
export interface Ids {
  storage: Map<string, number>;
}

export interface Step {
  method: HttpMethod;
  /** The path as shown, `{new storage "x"}` where an id is known only once applied. */
  path: string;
  request(ids: Ids, secret: (ref: string) => Promise<string>): Promise<RequestSpec>;
  /** After the request: learn the id of what it created. */
  learn?(ids: Ids, body: unknown): void;
  /** After a create: compare the service's answer with the file. */
  check?(body: unknown): CreateCheck;
}

export interface Change {
  action: Action;
  kind: Kind;
  name: string;
  id?: string | number;
  fields: FieldChange[];
  /** Why a replace, or what the change cannot see. */
  note?: string;
  steps: Step[];
  /** A retention count goes down: the job's (largest of its schedules) or the droplet's / volume's counts after the change. */
  lowers?: { target: 'job' | 'droplet' | 'volume'; id: string; counts: Retention };
}

export interface Plan {
  changes: Change[];
  /** Things the plan could not compare (write-only fields), said once each. */
  notes: string[];
  /** The secret references apply sends, in plan order. */
  secrets: SecretUse[];
}

const full = (r: FileRetention | undefined): Retention => ({ hourly: r?.hourly ?? 0, daily: r?.daily ?? 0, weekly: r?.weekly ?? 0, monthly: r?.monthly ?? 0 });
const sameRetention = (a: Retention, b: Retention) => RETENTION_PERIODS.every((k) => a[k] === b[k]);
const enc = encodeURIComponent;

/** A config value as the service shows it: checkboxes are "True"/"False". */
function shown(v: string | number | boolean): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  return String(v);
}
const isSecretRef = (v: unknown) => typeof v === 'string' && SECRET_REFERENCE.test(v);
const isMasked = (v: unknown) => typeof v === 'string' && /^\*+$/.test(v);

function computeOf(j: JobEntry, servers: readonly Named[]): { type: string; server_id?: number; region?: string } {
  if (j.compute.server !== undefined) return { type: 'server', server_id: Number(findByName(servers, j.compute.server, 'servers').found?.id) };
  if (j.compute.serverless !== undefined) return { type: 'ss_serverless', region: j.compute.serverless };
  return { type: 'ss_agent' };
}
const computeText = (c: { type: string | null; server_name?: string | null; server_id?: number | null; region?: string | null }) =>
  c.type === 'server' ? `server ${c.server_name ?? c.server_id}` : c.type === 'ss_serverless' ? `serverless ${c.region}` : c.type === 'ss_agent' ? 'agent' : String(c.type);

function scheduleBody(s: ScheduleEntry, order: number) {
  const r = full(s.retention);
  return {
    order,
    cron: cronFields(s.cron),
    timezone: s.timezone ?? 'UTC',
    run_offset: s.run_offset ?? 0,
    retention_hourly: r.hourly,
    retention_daily: r.daily,
    retention_weekly: r.weekly,
    retention_monthly: r.monthly,
  };
}

/** The file's storage of a job in priority order (stable for equal priorities). */
function orderedStorage(j: JobEntry) {
  return j.storage.map((s, i) => ({ name: s.storage, priority: s.priority ?? i + 1, i })).sort((a, b) => a.priority - b.priority || a.i - b.i);
}

/** The nearest of `names` to `word` (case ignored), for "did you mean". */
function nearest(word: string, names: Iterable<string>): string | undefined {
  let best: { n: string; d: number } | undefined;
  for (const n of names) {
    const d = editDistance(word.toLowerCase(), n.toLowerCase());
    if (d <= Math.max(2, Math.floor(n.length / 3)) && (!best || d < best.d)) best = { n, d };
  }
  return best?.n;
}

export function makePlan(parsed: ParsedFile, state: CurrentState, opts: { prune: boolean; recipes?: RecipeIds }): { plan: Plan; problems: Problem[] } {
  const file: BackupsFile = parsed.file;
  const problems: Problem[] = [];
  const problem = (parts: Array<string | number>, message: string) => {
    const at = pathText(parts);
    problems.push({ ...parsed.where(at), at, message });
  };
  const changes: Change[] = [];
  const notes = new Set<string>();
  const deletions: Change[] = [];
  const secrets: SecretUse[] = [];
  const sends = (action: 'create' | 'replace', kind: Kind, name: string, field: string, parts: Array<string | number>, ref: unknown) => {
    if (isSecretRef(ref)) secrets.push({ ref: ref as string, at: pathText(parts), kind, name, field, action });
  };

  // ---- storage
  const storageNow = state.storage ?? [];
  const replacedStorage = new Set<string>();
  const storageIdOf = (ids: Ids, name: string) => {
    const id = ids.storage.get(name) ?? findByName(storageNow, name, 'storage').found?.id;
    if (id === undefined) throw new Error(`storage "${name}" has no id yet`);
    return id;
  };
  if (file.storage) {
    for (const d of duplicateNames(storageNow)) if (file.storage[d.name]) problem(['storage', d.name], `the service has ${d.ids.length} storage destinations named "${d.name}" (ids ${d.ids.join(', ')}): rename one first`);
    for (const [name, want] of Object.entries(file.storage)) {
      const have = storageNow.filter((s) => s.name === name);
      if (have.length > 1) continue;
      const create: Step = {
        method: 'POST',
        path: '/storage',
        async request(_ids, secret) {
          const body: Record<string, unknown> = { name, provider: want.provider, bucket: want.bucket };
          if (want.region !== undefined) body.region = want.region;
          if (want.endpoint !== undefined) body.endpoint = want.endpoint;
          if (want.key !== undefined) body.key = await secret(want.key);
          if (want.secret !== undefined) body.secret = await secret(want.secret);
          return { method: 'POST', path: '/storage', body };
        },
        learn(ids, body) {
          const id = (body as { data?: { id?: unknown } } | undefined)?.data?.id;
          if (typeof id === 'number') ids.storage.set(name, id);
        },
      };
      const wantFields: Array<[string, unknown]> = [
        ['provider', want.provider],
        ['region', want.region ?? null],
        ['bucket', want.bucket ?? null],
        ['endpoint', want.endpoint ?? null],
      ];
      const secrets: FieldChange[] = (['key', 'secret'] as const).filter((k) => want[k] !== undefined).map((k) => ({ field: k, after: want[k], sensitive: true }));
      const sendSecrets = (action: 'create' | 'replace') => (['key', 'secret'] as const).forEach((k) => sends(action, 'storage', name, k, ['storage', name, k], want[k]));
      if (!have.length) {
        sendSecrets('create');
        if (want.region === undefined && want.provider !== 'custom') problem(['storage', name], `"region" is needed to create storage "${name}" (every provider but custom has one)`);
        if (want.endpoint === undefined && want.provider === 'custom') problem(['storage', name], `"endpoint" is needed to create custom storage "${name}"`);
        const keyless = KEYLESS_PROVIDERS.includes(want.provider);
        if (!keyless && (want.key === undefined || want.secret === undefined)) problem(['storage', name], `"key" and "secret" are needed to create storage "${name}" (provider ${want.provider})`);
        if (keyless && (want.key !== undefined || want.secret !== undefined)) problem(['storage', name, want.key !== undefined ? 'key' : 'secret'], `provider ${want.provider} takes no key or secret`);
        changes.push({ action: 'create', kind: 'storage', name, fields: [...wantFields.filter(([, v]) => v !== null).map(([field, after]) => ({ field, after })), ...secrets], steps: [create] });
        continue;
      }
      const cur = have[0]!;
      const differ = wantFields.filter(([k, v]) => (cur as unknown as Record<string, unknown>)[k] !== v && !(v === null && (cur as unknown as Record<string, unknown>)[k] === ''));
      if (secrets.length) notes.add('Storage keys and secrets are sent when a storage is created; the service never shows them, so a plan cannot see them change.');
      if (!differ.length) continue;
      sendSecrets('replace');
      replacedStorage.add(name);
      changes.push({
        action: 'replace',
        kind: 'storage',
        name,
        id: cur.id,
        fields: [...differ.map(([field, after]) => ({ field, before: (cur as unknown as Record<string, unknown>)[field], after })), ...secrets],
        note: `the service cannot change ${differ.map(([k]) => k).join(', ')} of a storage`,
        steps: [{ method: 'DELETE', path: `/storage/${cur.id}`, request: async () => ({ method: 'DELETE', path: `/storage/${cur.id}` }) }, create],
      });
    }
    if (opts.prune) {
      for (const s of storageNow) if (!(s.name in file.storage)) deletions.push({ action: 'delete', kind: 'storage', name: s.name, id: s.id, fields: [], steps: [{ method: 'DELETE', path: `/storage/${s.id}`, request: async () => ({ method: 'DELETE', path: `/storage/${s.id}` }) }] });
    }
  }
  const storageKnown = (name: string) => (file.storage && name in file.storage) || findByName(storageNow, name, 'storage').found !== undefined;

  // ---- jobs
  if (file.jobs) {
    const jobsNow = state.jobs ?? [];
    const servers = state.servers ?? [];
    for (const d of duplicateNames(jobsNow)) if (file.jobs[d.name]) problem(['jobs', d.name], `the service has ${d.ids.length} jobs named "${d.name}" (ids ${d.ids.join(', ')}): rename one first`);
    for (const [name, want] of Object.entries(file.jobs)) {
      const at = ['jobs', name];
      // References first: a server, storage and encryption key that exist.
      if (want.compute.server !== undefined) {
        const r = findByName(servers, want.compute.server, 'servers');
        if (!r.found) problem([...at, 'compute', 'server'], r.error!);
      }
      want.storage.forEach((s, i) => {
        if (storageKnown(s.storage)) return;
        const near = nearest(s.storage, [...Object.keys(file.storage ?? {}), ...storageNow.map((x) => x.name)]);
        problem([...at, 'storage', i, 'storage'], `no storage named "${s.storage}" in the file or the service${near ? `: did you mean "${near}"?` : ''}`);
      });
      // Recipe ids: a pair known to say otherwise stops the plan; an unknown one is checked in the answer to the create.
      if (want.recipe_id !== undefined && opts.recipes) {
        const wrong = opts.recipes.problem(want.recipe, want.recipe_id);
        if (wrong) problem([...at, 'recipe_id'], wrong);
      }
      const sendConfig = (action: 'create' | 'replace') => Object.entries(want.config ?? {}).forEach(([k, v]) => sends(action, 'job', name, `config.${k}`, [...at, 'config', k], v));
      const unknownRecipe = () => {
        if (want.recipe_id !== undefined && !opts.recipes?.known(want.recipe, want.recipe_id))
          notes.add(`recipe_id ${want.recipe_id} of job "${name}" is not yet known to be ${want.recipe} (the service lists no recipes): apply compares the service's answer with the file, and deletes the job again if its recipe differs.`);
      };
      const have = jobsNow.filter((j) => j.name === name);
      if (have.length > 1) continue;
      const createStep = (): Step => ({
        method: 'POST',
        path: '/jobs',
        async request(ids, secret) {
          const config: Record<string, string | number> = {};
          for (const [k, v] of Object.entries(want.config ?? {})) config[k] = typeof v === 'string' && isSecretRef(v) ? await secret(v) : typeof v === 'boolean' ? shown(v) : v;
          const body: Record<string, unknown> = {
            name,
            recipe_id: want.recipe_id,
            config,
            compute: computeOf(want, servers),
            storage: orderedStorage(want).map((s) => ({ storage_id: storageIdOf(ids, s.name), priority: s.priority })),
            schedules: want.schedules.map((s, i) => scheduleBody(s, i + 1)),
          };
          if (want.encryption_key !== undefined) body.encryption_key_id = String(want.encryption_key);
          if (want.proxy !== undefined) body.proxy_id = want.proxy;
          return { method: 'POST', path: '/jobs', body };
        },
        check(answer) {
          const data = (answer as { data?: unknown } | undefined)?.data;
          if (data === null || typeof data !== 'object') return { problem: `job "${name}": the service's answer to the create holds no job record to compare with the file` };
          const got = jobOf(data as Record<string, unknown>);
          const undo: RequestSpec = { method: 'DELETE', path: `/jobs/${enc(got.id)}` };
          const out: CreateCheck = {};
          if (got.recipe !== null && want.recipe_id !== undefined) out.recipe = { id: want.recipe_id, slug: got.recipe };
          if (got.recipe !== want.recipe)
            return { ...out, undo, problem: `job "${name}": recipe_id ${want.recipe_id} made a ${got.recipe ?? 'job of no recipe'} job, not ${want.recipe}; the job was deleted again` };
          const wantCompute = computeOf(want, servers);
          if (got.compute.type !== null && got.compute.type !== wantCompute.type)
            return { ...out, problem: `job "${name}": the service made a job with compute ${computeText(got.compute)}, not ${computeText({ ...wantCompute, server_name: want.compute.server })}` };
          if (got.schedules.length && got.schedules.map((x) => x.cron).join('|') !== want.schedules.map((x) => cronFields(x.cron)).join('|'))
            return { ...out, problem: `job "${name}": the service made a job with the schedules ${got.schedules.map((x) => x.cron).join(', ')}, not ${want.schedules.map((x) => cronFields(x.cron)).join(', ')}` };
          return out;
        },
      });
      const createFields = (): FieldChange[] => [
        { field: 'recipe', after: want.recipe },
        { field: 'compute', after: want.compute.server !== undefined ? `server ${want.compute.server}` : want.compute.serverless !== undefined ? `serverless ${want.compute.serverless}` : 'agent' },
        ...Object.entries(want.config ?? {}).map(([k, v]) => ({ field: `config.${k}`, after: v, ...(isSecretRef(v) ? { sensitive: true } : {}) })),
        { field: 'storage', after: orderedStorage(want).map((s) => `${s.name}:${s.priority}`).join(', ') },
        ...want.schedules.map((s, i) => ({ field: `schedules[${i}]`, after: `${cronFields(s.cron)} ${s.timezone ?? 'UTC'}, offset ${s.run_offset ?? 0}, keep ${retentionText(full(s.retention))}` })),
        ...(want.encryption_key !== undefined ? [{ field: 'encryption_key', after: want.encryption_key }] : []),
        ...(want.proxy !== undefined ? [{ field: 'proxy', after: want.proxy }] : []),
      ];
      if (!have.length) {
        if (want.recipe_id === undefined) problem(at, `"recipe_id" is needed to create job "${name}" (the service shows a recipe's slug, not its id)`);
        sendConfig('create');
        unknownRecipe();
        changes.push({ action: 'create', kind: 'job', name, fields: createFields(), steps: [createStep()] });
        continue;
      }
      const cur = have[0]!;
      // What the service cannot change in place: recipe, compute, config.
      const forced: FieldChange[] = [];
      if (cur.recipe !== null && cur.recipe !== want.recipe) forced.push({ field: 'recipe', before: cur.recipe, after: want.recipe });
      const wantCompute = computeOf(want, servers);
      const computeSame =
        cur.compute.type === wantCompute.type &&
        (wantCompute.type !== 'server' || cur.compute.server_id === wantCompute.server_id) &&
        (wantCompute.type !== 'ss_serverless' || cur.compute.region === wantCompute.region);
      if (!computeSame) forced.push({ field: 'compute', before: computeText(cur.compute), after: computeText({ ...wantCompute, server_name: want.compute.server }) });
      for (const [k, v] of Object.entries(want.config ?? {})) {
        const before = cur.config[k];
        if (isSecretRef(v) || isMasked(before)) {
          notes.add('Secret config values are sent when a job is created; the service shows them masked, so a plan cannot see them change.');
          continue;
        }
        const b = before === undefined || before === NOT_SET ? undefined : shown(before);
        if (b !== shown(v)) forced.push({ field: `config.${k}`, before: b ?? null, after: v });
      }
      if (forced.length) {
        if (want.recipe_id === undefined) problem(at, `"recipe_id" is needed to replace job "${name}" (the service shows a recipe's slug, not its id)`);
        sendConfig('replace');
        unknownRecipe();
        changes.push({
          action: 'replace',
          kind: 'job',
          name,
          id: cur.id,
          fields: forced,
          note: `the service cannot change ${forced.map((f) => f.field.split('.')[0]).filter((x, i, a) => a.indexOf(x) === i).join(', ')} of a job; replacing it loses the link to its backups`,
          // Create before delete: the old job is deleted only once the new one proved to be what the file says
          // (a create answered with another recipe is taken back, and the old job keeps running).
          steps: [createStep(), { method: 'DELETE', path: `/jobs/${cur.id}`, request: async () => ({ method: 'DELETE', path: `/jobs/${enc(cur.id)}` }) }],
        });
        continue;
      }
      const update = jobUpdate(cur, want, name, storageIdOf, replacedStorage, (ref) => findByName(storageNow, ref, 'storage').found?.id);
      if (update) changes.push(update);
      if ((want.encryption_key !== undefined && cur.encryption_key_id === undefined) || (want.proxy !== undefined && cur.proxy_id === undefined))
        notes.add('A job\'s encryption key and proxy are set when the job is created; the service does not show them, so a plan cannot see them change.');
    }
    if (opts.prune) {
      // The service deletes a job's backups with it (docs/backups-as-code.md, "--prune"): said on the change itself.
      for (const j of jobsNow) if (!(j.name in file.jobs)) deletions.unshift({ action: 'delete', kind: 'job', name: j.name, id: j.id, fields: [{ field: 'backups', after: 'deleted with the job' }], steps: [{ method: 'DELETE', path: `/jobs/${j.id}`, request: async () => ({ method: 'DELETE', path: `/jobs/${enc(j.id)}` }) }] });
    }
  }

  // ---- droplets and volumes
  for (const [section, kind] of [['droplets', 'droplet'], ['volumes', 'volume']] as const) {
    const entries = file[section];
    if (!entries) continue;
    const now = state[section] ?? [];
    for (const [name, want] of Object.entries(entries)) {
      const have = now.filter((m) => m.name === name);
      if (!have.length) problem([section, name], `no ${kind} named "${name}" (the service finds droplets and volumes in connected accounts; they cannot be created here)`);
      else if (have.length > 1) problem([section, name], `the service has ${have.length} ${section} named "${name}" (ids ${have.map((m) => m.id).join(', ')})`);
      else {
        const c = machineChange(have[0]!, want, kind, section, (field, msg) => problem([section, name, ...(field ? [field] : [])], msg));
        if (c) changes.push(c);
      }
    }
    if (opts.prune) {
      for (const m of now)
        if (!(m.name in entries) && scheduled(m.status)) deletions.push({ action: 'delete', kind, name: m.name, id: m.id, fields: [{ field: 'status', before: m.status, after: 'inactive' }], note: 'deactivates the snapshot schedule', steps: [machineStep(section, m.id, 'deactivate')] });
    }
  }

  // ---- snapshot resources
  if (file.resources) {
    const now = state.resources ?? [];
    for (const [key, want] of Object.entries(file.resources)) {
      const cur = now.find((r) => String(r.id) === key);
      if (!cur) {
        problem(['resources', key], `no snapshot resource with id ${key}`);
        continue;
      }
      if (want.activated === cur.activated) {
        if (want.activated && (want.frequency !== undefined || want.retention !== undefined)) notes.add('A snapshot resource\'s frequency, time zone, offset and retention are sent when it is activated; the service does not show them back.');
        continue;
      }
      const path = `/snapshots/resources/${cur.id}/${want.activated ? 'activate' : 'deactivate'}`;
      if (!want.activated) {
        changes.push({ action: 'update', kind: 'resource', name: key, id: cur.id, fields: [{ field: 'activated', before: true, after: false }], steps: [{ method: 'PATCH', path, request: async () => ({ method: 'PATCH', path }) }] });
        continue;
      }
      for (const k of ['frequency', 'timezone', 'run_offset', 'retention'] as const) if (want[k] === undefined) problem(['resources', key], `"${k}" is needed to activate snapshot resource ${key}`);
      const r = full(want.retention);
      const body = { frequency: want.frequency, retention_hourly: r.hourly, retention_daily: r.daily, retention_weekly: r.weekly, retention_monthly: r.monthly, timezone: want.timezone, run_offset: want.run_offset };
      changes.push({
        action: 'update',
        kind: 'resource',
        name: key,
        id: cur.id,
        fields: [{ field: 'activated', before: false, after: true }, { field: 'frequency', after: want.frequency }, { field: 'timezone', after: want.timezone }, { field: 'run_offset', after: want.run_offset }, { field: 'retention', after: retentionText(r) }],
        steps: [{ method: 'PATCH', path, request: async () => ({ method: 'PATCH', path, body }) }],
      });
    }
    if (opts.prune) {
      for (const r of now)
        if (r.activated && !(String(r.id) in file.resources)) {
          const path = `/snapshots/resources/${r.id}/deactivate`;
          deletions.push({ action: 'delete', kind: 'resource', name: String(r.id), id: r.id, fields: [{ field: 'activated', before: true, after: false }], note: 'deactivates its snapshots', steps: [{ method: 'PATCH', path, request: async () => ({ method: 'PATCH', path }) }] });
        }
    }
  }

  return { plan: { changes: [...changes, ...deletions], notes: [...notes], secrets }, problems };
}

function jobUpdate(
  cur: CurrentJob,
  want: JobEntry,
  name: string,
  storageIdOf: (ids: Ids, name: string) => number,
  replacedStorage: ReadonlySet<string>,
  existingStorageId: (ref: string) => number | undefined,
): Change | undefined {
  const fields: FieldChange[] = [];
  const steps: Step[] = [];
  const jobPath = `/jobs/${enc(cur.id)}`;
  // Schedules: one PATCH per changed schedule; a different count replaces them all.
  if (want.schedules.length !== cur.schedules.length) {
    fields.push({ field: 'schedules', before: `${cur.schedules.length} schedule(s)`, after: `${want.schedules.length} schedule(s)` });
    const body = { schedules: want.schedules.map((s, i) => scheduleBody(s, i + 1)) };
    steps.push({ method: 'PATCH', path: jobPath, request: async () => ({ method: 'PATCH', path: jobPath, body }) });
  } else {
    want.schedules.forEach((s, i) => {
      const c = cur.schedules[i]!;
      const body: Record<string, unknown> = {};
      const tz = s.timezone ?? 'UTC';
      const off = s.run_offset ?? 0;
      const r = full(s.retention);
      const cron = cronFields(s.cron);
      if (c.cron !== cron) (fields.push({ field: `schedules[${i}].cron`, before: c.cron, after: s.cron, ...(cron !== s.cron ? { means: cron } : {}) }), (body.cron = cron));
      if (c.timezone !== tz) (fields.push({ field: `schedules[${i}].timezone`, before: c.timezone, after: tz }), (body.timezone = tz));
      if (c.run_offset !== off) (fields.push({ field: `schedules[${i}].run_offset`, before: c.run_offset, after: off }), (body.run_offset = off));
      if (!sameRetention(c.retention, r)) {
        fields.push({ field: `schedules[${i}].retention`, before: retentionText(c.retention), after: retentionText(r) });
        Object.assign(body, { retention_hourly: r.hourly, retention_daily: r.daily, retention_weekly: r.weekly, retention_monthly: r.monthly });
      }
      if (!Object.keys(body).length) return;
      if (c.id === null) {
        // A schedule the service shows without an id can only be changed with the whole list.
        const all = { schedules: want.schedules.map((x, j) => scheduleBody(x, j + 1)) };
        steps.push({ method: 'PATCH', path: jobPath, request: async () => ({ method: 'PATCH', path: jobPath, body: all }) });
        return;
      }
      const path = `${jobPath}/schedules/${c.id}`;
      steps.push({ method: 'PATCH', path, request: async () => ({ method: 'PATCH', path, body }) });
    });
  }
  // Storage: the service lists a job's storage by priority; compare that order.
  const wantOrder = orderedStorage(want);
  const curNames = cur.storage.map((s) => s.name ?? String(s.id));
  const relinked = wantOrder.some((s) => replacedStorage.has(s.name));
  // A name resolves as everywhere in the CLI (an id, the exact name, else the one name equal ignoring case): same storage, no change.
  if (relinked || wantOrder.length !== curNames.length || wantOrder.some((s, i) => existingStorageId(s.name) !== cur.storage[i]!.id)) {
    fields.push({ field: 'storage', before: curNames.map((n, i) => `${n}:${i + 1}`).join(', '), after: wantOrder.map((s) => `${s.name}:${s.priority}`).join(', ') });
    const path = `${jobPath}/storage`;
    steps.push({
      method: 'PATCH',
      path,
      request: async (ids) => ({ method: 'PATCH', path, body: { storage: wantOrder.map((s) => ({ storage_id: storageIdOf(ids, s.name), priority: s.priority })) } }),
    });
  }
  if (!steps.length) return undefined;
  // The job keeps, per period, the most any schedule asks for (docs/retention.md, A1): lower means lower than that.
  const most = (all: Retention[]): Retention => ({ hourly: Math.max(0, ...all.map((x) => x.hourly)), daily: Math.max(0, ...all.map((x) => x.daily)), weekly: Math.max(0, ...all.map((x) => x.weekly)), monthly: Math.max(0, ...all.map((x) => x.monthly)) });
  const before = most(cur.schedules.map((c) => c.retention));
  const after = most(want.schedules.map((x) => full(x.retention)));
  const lowers = RETENTION_PERIODS.some((k) => after[k] < before[k]) ? { target: 'job' as const, id: cur.id, counts: after } : undefined;
  return { action: 'update', kind: 'job', name, id: cur.id, fields, steps, ...(lowers ? { lowers } : {}) };
}

const scheduled = (status: string | null) => status !== null && status !== 'inactive' && status !== 'destroyed';

function machineStep(section: 'droplets' | 'volumes', id: number | string, verb: 'activate' | 'pause' | 'resume' | 'deactivate', body?: unknown): Step {
  const path = `/cloud_i/${section}/${enc(String(id))}/${verb}`;
  return { method: 'PATCH', path, request: async () => ({ method: 'PATCH', path, ...(body === undefined ? {} : { body }) }) };
}

function machineChange(cur: CurrentMachine, want: MachineEntry, kind: Kind, section: 'droplets' | 'volumes', problem: (field: string | undefined, msg: string) => void): Change | undefined {
  const wantStatus = want.status ?? 'active';
  if (cur.status === 'destroyed') {
    problem(undefined, `${kind} "${cur.name}" is destroyed`);
    return undefined;
  }
  const isOn = scheduled(cur.status);
  const fields: FieldChange[] = [];
  const steps: Step[] = [];
  const r = full(want.retention);
  const retentionBody = { hourly: r.hourly, daily: r.daily, weekly: r.weekly, monthly: r.monthly };
  if (wantStatus === 'inactive') {
    if (!isOn) return undefined;
    return { action: 'update', kind, name: cur.name, id: cur.id, fields: [{ field: 'status', before: cur.status, after: 'inactive' }], note: 'deactivates the snapshot schedule', steps: [machineStep(section, cur.id, 'deactivate')] };
  }
  if (!isOn) {
    for (const k of ['frequency', 'timezone', 'retention'] as const) if (want[k] === undefined) problem(undefined, `"${k}" is needed to activate the snapshots of ${kind} "${cur.name}"`);
    const body: Record<string, unknown> = { frequency: want.frequency, retention: retentionBody, timezone: want.timezone, run_offset: want.run_offset ?? 0 };
    if (want.secondary_region !== undefined && section === 'droplets') body.secondary_region = want.secondary_region;
    fields.push({ field: 'status', before: cur.status, after: wantStatus }, { field: 'frequency', after: want.frequency }, { field: 'timezone', after: want.timezone }, { field: 'run_offset', after: want.run_offset ?? 0 }, { field: 'retention', after: retentionText(r) });
    steps.push(machineStep(section, cur.id, 'activate', body));
    if (wantStatus === 'paused') steps.push(machineStep(section, cur.id, 'pause'));
    return { action: 'update', kind, name: cur.name, id: cur.id, fields, steps };
  }
  const patch: Record<string, unknown> = {};
  if (want.frequency !== undefined && want.frequency !== cur.frequency) (fields.push({ field: 'frequency', before: cur.frequency, after: want.frequency }), (patch.frequency = want.frequency));
  if (want.timezone !== undefined && want.timezone !== cur.timezone) (fields.push({ field: 'timezone', before: cur.timezone, after: want.timezone }), (patch.timezone = want.timezone));
  if (want.run_offset !== undefined && want.run_offset !== cur.run_offset) (fields.push({ field: 'run_offset', before: cur.run_offset, after: want.run_offset }), (patch.run_offset = want.run_offset));
  if (want.retention !== undefined && !sameRetention(cur.retention, r)) (fields.push({ field: 'retention', before: retentionText(cur.retention), after: retentionText(r) }), (patch.retention = retentionBody));
  if (Object.keys(patch).length) {
    const path = `/cloud_i/${section}/${enc(String(cur.id))}`;
    steps.push({ method: 'PATCH', path, request: async () => ({ method: 'PATCH', path, body: patch }) });
  }
  if (wantStatus === 'paused' && cur.status !== 'paused') (fields.push({ field: 'status', before: cur.status, after: 'paused' }), steps.push(machineStep(section, cur.id, 'pause')));
  if (wantStatus === 'active' && cur.status === 'paused') (fields.push({ field: 'status', before: 'paused', after: 'active' }), steps.push(machineStep(section, cur.id, 'resume')));
  if (!steps.length) return undefined;
  const lowers = want.retention !== undefined && isOn && RETENTION_PERIODS.some((k) => r[k] < cur.retention[k]) ? { target: kind as 'droplet' | 'volume', id: String(cur.id), counts: r } : undefined;
  return { action: 'update', kind, name: cur.name, id: cur.id, fields, steps, ...(lowers ? { lowers } : {}) };
}

export function summary(plan: Plan): Record<Action, number> {
  const out: Record<Action, number> = { create: 0, update: 0, replace: 0, delete: 0 };
  for (const c of plan.changes) out[c.action]++;
  return out;
}

/** Sections a file manages (a section left out is not touched, not even by --prune). */
export function sectionsOf(file: BackupsFile): Section[] {
  return (['storage', 'jobs', 'droplets', 'volumes', 'resources'] as const).filter((s) => file[s] !== undefined);
}
