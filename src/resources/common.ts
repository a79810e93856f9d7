// Pieces several resources share: lenient record schemas and reusable params.
import * as z from 'zod/mini';
import type { ParamSpec } from '../contract/spec.js';
import type { NamedKind } from '../contract/spec.js';

/** A service datetime: ISO with microseconds, or `YYYY-MM-DD HH:MM:SS`; null where the field is nullable. */
export const datetime = z.string();
/** A lenient object: unknown fields kept and passed through to --json. */
export const record = z.looseObject;
/** Status words: known values listed for the docs, unknown ones accepted. */
export const status = (..._known: string[]) => z.string();

export const sshKeySchema = record({
  id: z.int(),
  name: z.nullish(z.string()),
  public_key: z.nullish(z.string()),
  created_at: z.nullish(datetime),
  last_used: z.nullish(datetime),
});

export const serverSchema = record({
  id: z.int(),
  name: z.nullish(z.string()),
  host: z.nullish(z.string()),
  user: z.nullish(z.string()),
  port: z.nullish(z.union([z.number(), z.string()])),
  created_at: z.nullish(datetime),
  last_used: z.nullish(datetime),
  status: z.nullish(status('success')),
  key: z.nullish(sshKeySchema),
});

export const modifiedSince: ParamSpec = {
  name: 'modified_since',
  in: 'query',
  type: 'datetime',
  description: 'Only records changed since (ISO 8601 or an age: 24h, 7d)',
  placeholder: 'when',
};

/**
 * The filters of a list of snapshots (the accounts' snapshots, and a droplet's or volume's): the state,
 * tags set and tags not set, started and completed since. `tagsExample` closes the --tags description.
 */
export function snapshotFilters(o: { statuses: readonly string[]; tags: readonly string[]; tagsExample?: string }): ParamSpec[] {
  const example = o.tagsExample ? `, e.g. ${o.tagsExample}` : '';
  return [
    { name: 'status', in: 'query', type: 'enum', values: o.statuses, description: 'Only snapshots in this state' },
    { name: 'tags', in: 'query', type: 'tags', values: o.tags, tagValue: 1, placeholder: 'tags', description: `Only snapshots with all these tags set${example}` },
    { name: 'tags#without', flag: 'without-tags', in: 'query', type: 'tags', values: o.tags, tagValue: 0, placeholder: 'tags', description: 'Only snapshots with none of these tags set' },
    { name: 'started_since', in: 'query', type: 'datetime', placeholder: 'when', description: 'Only snapshots started since (ISO 8601 or an age: 24h, 7d)' },
    { name: 'completed_since', in: 'query', type: 'datetime', placeholder: 'when', description: 'Only snapshots completed since (ISO 8601 or an age: 24h, 7d)' },
  ];
}

export const idArg = (name: string, what: string, type: ParamSpec['type'] = 'integer', names?: NamedKind): ParamSpec => ({
  name,
  flag: 'id',
  in: 'path',
  type,
  positional: true,
  required: true,
  min: type === 'integer' ? 1 : undefined,
  description: names ? `${what} id or name` : `${what} id`,
  names,
});

/** `<job>`: a job's id or name, in the path. */
export const jobArg = (name = 'job_id'): ParamSpec => ({
  name,
  flag: 'job',
  in: 'path',
  type: 'uuid',
  positional: true,
  required: true,
  description: 'Job id or name',
  names: 'jobs',
});

/**
 * The names of the tags that are set, comma-separated: snapshot tags are 0/1,
 * backup tags booleans, start-backup tags `is_manual`-style.
 */
export function setTagNames(tags: unknown): string | undefined {
  if (!tags || typeof tags !== 'object' || Array.isArray(tags)) return undefined;
  return Object.entries(tags as Record<string, unknown>)
    .filter(([, set]) => set === 1 || set === true || set === '1')
    .map(([name]) => name.replace(/^is_/, ''))
    .join(',');
}

/**
 * A record parsed leniently: the schema's output when it fits, else the
 * record as the service sent it (the same rule as src/cli/lenient.ts).
 */
export function loose<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  return parsed.success ? parsed.data : (raw as T);
}

