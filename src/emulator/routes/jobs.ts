// Backup jobs and what hangs on them: schedules, storage, encryption key, proxy.
import { listPage, type ListDef } from '../listing.js';
import { recipeById, type Recipe } from '../recipes.js';
import { created, noContent, notFound, okData } from '../reply.js';
import { renderJob } from '../render.js';
import type { RouteContext, RouteDef } from '../routing.js';
import type { Runtime } from '../runtime.js';
import { snapshotScheduleCron } from '../../util/snapshot-cron.js';
import { FREQUENCIES, type ComputeType, type JobCompute, type JobRecord, type ScheduleRecord, type Store } from '../store.js';
import { isCronExpression } from '../util.js';
import { Validation, isObject } from '../validate.js';

const COMPUTE_TYPES: readonly ComputeType[] = ['server', 'ss_serverless', 'ss_agent'];
const DEFAULT_RETENTION = { hourly: 0, daily: 7, weekly: 4, monthly: 3 };

/** How often a schedule runs, from its frequency string (`h6`) or else its cron expression. */
export function scheduleFrequency(cron: string, frequency?: string): Pick<ScheduleRecord, 'frequency' | 'frequency_mode'> {
  const given = frequency ? /^([hm])(\d+)$/.exec(frequency) : null;
  if (given) return { frequency_mode: given[1] === 'm' ? 'minute' : 'hour', frequency: Number(given[2]) };
  const [minute = '', hour = '', , , weekday = '*'] = cron.trim().split(/\s+/);
  const everyMinutes = /^\*\/(\d+)$/.exec(minute);
  if (everyMinutes) return { frequency_mode: 'minute', frequency: Number(everyMinutes[1]) };
  const everyHours = /^\*\/(\d+)$/.exec(hour);
  if (everyHours) return { frequency_mode: 'hour', frequency: Number(everyHours[1]) };
  if (hour === '*') return { frequency_mode: 'hour', frequency: 1 };
  return { frequency_mode: 'hour', frequency: weekday === '*' ? 24 : 168 };
}

/** An active schedule in UTC, first in its job, with the retention given (the seeded jobs' nightly schedule). */
export function activeUtcSchedule(store: Store, cron: string, retention: ScheduleRecord['retention']): ScheduleRecord {
  return { id: store.newScheduleId(), order: 1, cron, timezone: 'UTC', run_offset: 0, retention, status: 'active', ...scheduleFrequency(cron) };
}

/** Reads `schedules[]` of a create or update body into schedule records. */
function readSchedules(rt: Runtime, v: Validation, required: boolean): ScheduleRecord[] | undefined {
  const items = v.list('schedules', { required, min: 1 });
  if (!items) return undefined;
  return items.map((item, i) => {
    const at = (field: string) => `schedules.${i}.${field}`;
    if (!isObject(item)) {
      v.fail(`schedules.${i}`, `The schedules.${i} field must be an array.`);
      return undefined;
    }
    const cron = v.string(at('cron'), { required: true });
    if (cron !== undefined && !isCronExpression(cron)) v.fail(at('cron'), `The ${at('cron')} field must be a valid cron expression.`);
    const timezone = v.timezone(at('timezone'), { required: true });
    const frequency = v.string(at('frequency'), { oneOf: FREQUENCIES });
    const order = v.integer(at('order'), { min: 0 });
    const runOffset = v.integer(at('run_offset'), { min: 0 });
    const retention = { ...DEFAULT_RETENTION };
    for (const key of ['hourly', 'daily', 'weekly', 'monthly'] as const) {
      const count = v.integer(at(`retention_${key}`), { min: 0 });
      if (count !== undefined) retention[key] = count;
    }
    return {
      id: rt.store.newScheduleId(),
      order: order ?? i + 1,
      cron: cron ?? '',
      timezone: timezone ?? 'UTC',
      run_offset: runOffset ?? 0,
      retention,
      status: 'active',
      ...scheduleFrequency(cron ?? '', frequency),
    };
  }).filter((s): s is ScheduleRecord => s !== undefined);
}

/** Reads `storage[]` ({storage_id, priority}); priority defaults to the position. */
function readStorage(rt: Runtime, v: Validation, required: boolean): JobRecord['storage'] | undefined {
  const items = v.list('storage', { required, min: 1 });
  if (!items) return undefined;
  return items.map((_, i) => {
    const id = v.integer(`storage.${i}.storage_id`, { required: true });
    if (id !== undefined) v.exists(`storage.${i}.storage_id`, rt.store.storage.get(id) !== undefined);
    const priority = v.integer(`storage.${i}.priority`, { min: 0 });
    return { storage_id: id ?? 0, priority: priority ?? i + 1 };
  });
}

function readCompute(rt: Runtime, v: Validation): JobCompute | undefined {
  if (!v.object('compute', { required: true })) return undefined;
  const type = v.string('compute.type', { required: true, oneOf: COMPUTE_TYPES }) as ComputeType | undefined;
  if (type === 'server') {
    const serverId = v.integer('compute.server_id', { required: true });
    if (serverId !== undefined) v.exists('compute.server_id', rt.store.servers.get(serverId) !== undefined);
    return { type, server_id: serverId };
  }
  if (type === 'ss_serverless') {
    const region = v.string('compute.region', { required: true, oneOf: ['EU', 'US'] }) as 'EU' | 'US' | undefined;
    return { type, region };
  }
  return type ? { type } : undefined;
}

/** Config values by the recipe's fields; keys the recipe does not have are dropped. */
function readConfig(v: Validation, recipe: Recipe | undefined): JobRecord['config'] {
  const config: JobRecord['config'] = {};
  if (!v.object('config') || !recipe) return config;
  for (const field of recipe.config) {
    const name = `config.${field.key}`;
    if (!v.filled(name)) continue;
    let value: string | number | boolean | undefined;
    if (field.type === 'number') value = v.integer(name, { min: field.min, max: field.max });
    else if (field.type === 'checkbox') {
      const raw = v.value(name);
      value = raw === 'True' ? true : raw === 'False' ? false : v.boolean(name);
    } else value = v.string(name);
    if (value !== undefined) config[field.key] = value;
  }
  return config;
}

/** The encryption key id may come as a string (job creation) or an integer (attach). */
function readEncryptionKeyId(rt: Runtime, v: Validation, required: boolean): number | undefined {
  const raw = v.value('encryption_key_id');
  const id = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : v.integer('encryption_key_id', { required });
  if (id !== undefined) v.exists('encryption_key_id', rt.store.encryptionKeys.get(id) !== undefined);
  return id;
}

function readProxyId(rt: Runtime, v: Validation, required: boolean): number | undefined {
  const id = v.integer('proxy_id', { required });
  if (id !== undefined) v.exists('proxy_id', rt.store.proxies.get(id) !== undefined);
  return id;
}

function findJob(c: RouteContext): JobRecord {
  return c.rt.store.jobs.require(c.params.job_id!);
}

export const jobRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/jobs',
    handler: ({ rt, input }) => {
      const v = new Validation(input);
      const name = v.string('name', { required: true, max: 255 });
      const recipeId = v.integer('recipe_id', { required: true });
      const recipe = recipeId === undefined ? undefined : recipeById(recipeId);
      if (recipeId !== undefined) v.exists('recipe_id', recipe !== undefined);
      const config = readConfig(v, recipe);
      const compute = readCompute(rt, v);
      const storage = readStorage(rt, v, true);
      const schedules = readSchedules(rt, v, true);
      const encryptionKeyId = readEncryptionKeyId(rt, v, false);
      const proxyId = readProxyId(rt, v, false);
      v.check();
      const now = rt.now();
      const job = rt.store.jobs.insert({
        id: rt.uuid(),
        name: name!,
        recipe_id: recipeId!,
        compute: compute!,
        config,
        schedules: schedules!,
        storage: storage!,
        encryption_key_id: encryptionKeyId ?? null,
        proxy_id: proxyId ?? null,
        last_ran_at: null,
        created_at: now,
        updated_at: now,
      });
      return created(renderJob(rt, job));
    },
  },
  {
    method: 'GET',
    path: '/v1/jobs',
    handler: (c) => {
      const { store } = c.rt;
      const def: ListDef<JobRecord> = {
        filters: [
          {
            param: 'host',
            kind: 'exact',
            get: (j) => (j.compute.server_id === undefined ? null : (store.servers.get(j.compute.server_id)?.host ?? null)),
          },
          { param: 'modified_since', kind: 'since', get: (j) => j.updated_at },
        ],
        sort: {
          id: (j) => j.id,
          name: (j) => j.name,
          last_ran_at: (j) => j.last_ran_at,
          created_at: (j) => j.created_at,
          updated_at: (j) => j.updated_at,
        },
      };
      return listPage(c, store.jobs, def, (j) => renderJob(c.rt, j));
    },
  },
  {
    method: 'GET',
    path: '/v1/jobs/{job_id}',
    handler: (c) => okData(renderJob(c.rt, findJob(c))),
  },
  {
    method: 'PATCH',
    path: '/v1/jobs/{job_id}',
    handler: (c) => {
      const job = findJob(c);
      const v = new Validation(c.input);
      const schedules = readSchedules(c.rt, v, false);
      const storage = readStorage(c.rt, v, false);
      v.check();
      c.rt.store.jobs.patch(job, {
        schedules: schedules ?? job.schedules,
        storage: storage ?? job.storage,
        updated_at: c.rt.now(),
      });
      return noContent();
    },
  },
  {
    method: 'DELETE',
    path: '/v1/jobs/{job_id}',
    handler: (c) => {
      const job = findJob(c);
      c.rt.store.jobs.remove(job);
      c.rt.store.backups.removeWhere((b) => b.job_id === job.id);
      return noContent();
    },
  },
  {
    method: 'POST',
    path: '/v1/jobs/{job_id}/encryption-key',
    handler: (c) => {
      const job = findJob(c);
      const v = new Validation(c.input);
      const id = readEncryptionKeyId(c.rt, v, true);
      v.check();
      c.rt.store.jobs.patch(job, { encryption_key_id: id!, updated_at: c.rt.now() });
      return noContent();
    },
  },
  {
    method: 'DELETE',
    path: '/v1/jobs/{job_id}/encryption-key',
    handler: (c) => {
      c.rt.store.jobs.patch(findJob(c), { encryption_key_id: null, updated_at: c.rt.now() });
      return noContent();
    },
  },
  {
    method: 'POST',
    path: '/v1/jobs/{job_id}/proxy',
    handler: (c) => {
      const job = findJob(c);
      const v = new Validation(c.input);
      const id = readProxyId(c.rt, v, true);
      v.check();
      c.rt.store.jobs.patch(job, { proxy_id: id!, updated_at: c.rt.now() });
      return noContent();
    },
  },
  {
    method: 'DELETE',
    path: '/v1/jobs/{job_id}/proxy',
    handler: (c) => {
      c.rt.store.jobs.patch(findJob(c), { proxy_id: null, updated_at: c.rt.now() });
      return noContent();
    },
  },
  {
    method: 'PATCH',
    path: '/v1/jobs/{job_id}/schedules/{schedule_id}',
    handler: (c) => {
      const job = findJob(c);
      const scheduleId = c.params.schedule_id!;
      const schedule = /^\d+$/.test(scheduleId) ? job.schedules.find((s) => s.id === Number(scheduleId)) : undefined;
      if (!schedule) throw notFound('Schedule', scheduleId);
      const v = new Validation(c.input);
      const timezone = v.timezone('timezone');
      const runOffset = v.integer('run_offset', { min: 0 });
      let cron = v.string('cron');
      if (cron !== undefined && !isCronExpression(cron)) v.fail('cron', 'The cron field must be a valid cron expression.');
      const frequency = v.string('frequency', { oneOf: FREQUENCIES });
      // A frequency without a cron: its runs from run_offset hours after 00:00, as a cron.
      if (frequency !== undefined && cron === undefined) {
        const made = snapshotScheduleCron(frequency, runOffset ?? schedule.run_offset);
        if ('cron' in made) cron = made.cron;
      }
      const retention = { ...schedule.retention };
      for (const key of ['hourly', 'daily', 'weekly', 'monthly'] as const) {
        const count = v.integer(`retention_${key}`, { min: 0 });
        if (count !== undefined) retention[key] = count;
      }
      v.check();
      Object.assign(schedule, {
        timezone: timezone ?? schedule.timezone,
        run_offset: runOffset ?? schedule.run_offset,
        retention,
        ...(cron !== undefined ? { cron, ...scheduleFrequency(cron, frequency) } : {}),
      });
      c.rt.store.jobs.patch(job, { updated_at: c.rt.now() });
      return noContent();
    },
  },
  {
    method: 'PATCH',
    path: '/v1/jobs/{job_id}/storage',
    handler: (c) => {
      const job = findJob(c);
      const v = new Validation(c.input);
      const storage = readStorage(c.rt, v, true);
      v.check();
      c.rt.store.jobs.patch(job, { storage: storage!, updated_at: c.rt.now() });
      return noContent();
    },
  },
];
