// What the forecast reads from the service: the job (its schedules and their
// retention counts) or the droplet / volume / snapshot resource (frequency,
// run offset, time zone, retention), and every backup or snapshot it holds.
import type { Client, Context } from '../contract/context.js';
import { NotFoundTarget } from './errors.js';
import { RETENTION_PERIODS, type Counts } from '../backups/retention.js';
import type { ModelBackup } from './keep-rules.js';
import { scheduleSpec, type ScheduleSpec } from './runs.js';

export type TargetKind = 'job' | 'droplet' | 'volume' | 'resource';

export interface TargetBackup extends ModelBackup {
  files: string[];
}

export interface Target {
  kind: TargetKind;
  id: string;
  name: string | null;
  schedules: ScheduleSpec[];
  /** Why a schedule could not be read (the forecast then has no runs). */
  unreadable: string[];
  counts: Counts;
  /** The counts of each schedule as the service holds them (a job may have several). */
  scheduleCounts: Counts[];
  backups: TargetBackup[];
}

type Rec = Record<string, unknown>;

const asRecord = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : 0);

/** The counts of a schedule: a `retention` object (or array) of hourly/daily/weekly/monthly, or retention_* fields. */
export function countsOf(s: Rec): Counts {
  const r = asRecord(Array.isArray(s.retention) ? Object.assign({}, ...s.retention.map(asRecord)) : s.retention);
  return Object.fromEntries(RETENTION_PERIODS.map((p) => [p, num(r[p] ?? s[`retention_${p}`])])) as Counts;
}

/** A1: a job with several schedules keeps, per period, the most any schedule asks for. */
export function mergedCounts(all: readonly Counts[]): Counts {
  return Object.fromEntries(RETENTION_PERIODS.map((p) => [p, Math.max(0, ...all.map((c) => c[p]))])) as Counts;
}

/** The tags set on a record: booleans, 0/1 or "1". */
export function tagsOf(v: unknown): string[] {
  const t = asRecord(v);
  return ['manual', ...RETENTION_PERIODS].filter((k) => t[k] === true || t[k] === 1 || t[k] === '1');
}

function time(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}

async function all(client: Client, ctx: Context, path: string, query: Record<string, string | number> = {}): Promise<Rec[]> {
  const out: Rec[] = [];
  for await (const page of client.pages({ method: 'GET', path, query: { page_size: 100, ...query } }, { all: true, signal: ctx.signal })) {
    for (const r of page.records) out.push(asRecord(r));
  }
  return out;
}

async function one(client: Client, ctx: Context, path: string): Promise<Rec> {
  const res = await client.request({ method: 'GET', path }, { signal: ctx.signal });
  return asRecord(asRecord(res.body).data ?? res.body);
}

function toBackup(r: Rec, createdField: 'created_at' | 'started_at'): TargetBackup | undefined {
  const created = time(r[createdField]) ?? time(r.created_at);
  if (created === undefined || r.id === undefined || r.id === null) return undefined;
  const files = Array.isArray(r.files) ? r.files.map((f) => String(asRecord(f).name ?? '')).filter(Boolean) : [];
  return { id: String(r.id), created_at: created, status: typeof r.status === 'string' ? r.status : 'unknown', tags: tagsOf(r.tags), files };
}

function target(kind: TargetKind, rec: Rec, schedules: Rec[], backups: TargetBackup[]): Target {
  const specs: ScheduleSpec[] = [];
  const unreadable: string[] = [];
  for (const s of schedules) {
    const spec = scheduleSpec(s);
    if ('unreadable' in spec) unreadable.push(spec.unreadable);
    else specs.push(spec);
  }
  const scheduleCounts = schedules.map(countsOf);
  return {
    kind,
    id: String(rec.id),
    name: typeof rec.name === 'string' ? rec.name : null,
    schedules: specs,
    unreadable,
    counts: mergedCounts(scheduleCounts),
    scheduleCounts,
    backups,
  };
}

const defined = <T>(x: T | undefined): x is T => x !== undefined;

export async function collectJob(ctx: Context, id: string, rec?: Rec): Promise<Target> {
  const client = await ctx.client();
  const job = rec ?? (await one(client, ctx, `/jobs/${encodeURIComponent(id)}`));
  // The service answers `schedule` (an array); creation bodies say `schedules`.
  const list = Array.isArray(job.schedule) ? job.schedule : Array.isArray(job.schedules) ? job.schedules : [];
  const schedules = list.map(asRecord);
  const backups = (await all(client, ctx, `/jobs/${encodeURIComponent(id)}/backups`, { sort: '-created_at' })).map((b) => toBackup(b, 'created_at')).filter(defined);
  return target('job', { ...job, id }, schedules, backups);
}

export async function collectMachine(ctx: Context, kind: 'droplet' | 'volume', id: string, rec?: Rec): Promise<Target> {
  const client = await ctx.client();
  const base = kind === 'droplet' ? '/cloud_i/droplets' : '/cloud_i/volumes';
  const machine = rec ?? (await one(client, ctx, `${base}/${encodeURIComponent(id)}`));
  const snapshots = (await all(client, ctx, `${base}/${encodeURIComponent(id)}/snapshots`, { sort: '-started_at' })).map((b) => toBackup(b, 'started_at')).filter(defined);
  return target(kind, { ...machine, id }, [machine], snapshots);
}

export async function collectResource(ctx: Context, id: string, rec?: Rec, snapshots?: Rec[]): Promise<Target> {
  const client = await ctx.client();
  let resource = rec;
  if (!resource) {
    resource = (await all(client, ctx, '/snapshots/resources')).find((r) => String(r.id) === id);
    if (!resource) throw new NotFoundTarget(`no snapshot resource ${id}`);
  }
  const list = snapshots ?? (await all(client, ctx, '/snapshots', { sort: '-started_at' }));
  const own = list.filter((s) => String(s.resource_id ?? asRecord(s.resource).id) === id).map((b) => toBackup(b, 'started_at')).filter(defined);
  const schedule = asRecord(resource.schedule);
  return target('resource', { ...resource, id, name: resource.name ?? `resource ${id}` }, Object.keys(schedule).length ? [schedule] : [], own);
}

/** --all: every job, every droplet and volume with a schedule, every resource with backups activated. */
export async function collectAll(ctx: Context): Promise<Target[]> {
  const client = await ctx.client();
  const [jobs, droplets, volumes, resources] = await Promise.all([
    all(client, ctx, '/jobs'),
    all(client, ctx, '/cloud_i/droplets'),
    all(client, ctx, '/cloud_i/volumes'),
    all(client, ctx, '/snapshots/resources'),
  ]);
  const out: Target[] = [];
  for (const j of jobs) out.push(await collectJob(ctx, String(j.id), j));
  for (const d of droplets) if (d.frequency) out.push(await collectMachine(ctx, 'droplet', String(d.id), d));
  for (const v of volumes) if (v.frequency) out.push(await collectMachine(ctx, 'volume', String(v.id), v));
  const activated = resources.filter((r) => r.backups_activated === true || r.backups_activated === 1);
  if (activated.length) {
    const snapshots = await all(client, ctx, '/snapshots', { sort: '-started_at' });
    for (const r of activated) out.push(await collectResource(ctx, String(r.id), r, snapshots));
  }
  return out;
}
