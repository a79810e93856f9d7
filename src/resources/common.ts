// Pieces several resources share: lenient record schemas and reusable params.
import { z } from 'zod';
import type { ParamSpec } from './types.js';

/** A service datetime: ISO with microseconds, or `YYYY-MM-DD HH:MM:SS`; null where the field is nullable. */
export const datetime = z.string();
/** A lenient object: unknown fields kept and passed through to --json. */
export const record = z.looseObject;
/** Status words: known values listed for the docs, unknown ones accepted. */
export const status = (..._known: string[]) => z.string();

export const sshKeySchema = record({
  id: z.int(),
  name: z.string().nullish(),
  public_key: z.string().nullish(),
  created_at: datetime.nullish(),
  last_used: datetime.nullish(),
});

export const serverSchema = record({
  id: z.int(),
  name: z.string().nullish(),
  host: z.string().nullish(),
  user: z.string().nullish(),
  port: z.union([z.number(), z.string()]).nullish(),
  created_at: datetime.nullish(),
  last_used: datetime.nullish(),
  status: status('success').nullish(),
  key: sshKeySchema.nullish(),
});

export const modifiedSince: ParamSpec = {
  name: 'modified_since',
  in: 'query',
  type: 'datetime',
  description: 'Only records changed since (ISO 8601 or an age: 24h, 7d)',
  placeholder: 'when',
};

export const idArg = (name: string, what: string, type: ParamSpec['type'] = 'integer'): ParamSpec => ({
  name,
  flag: 'id',
  in: 'path',
  type,
  positional: true,
  required: true,
  min: type === 'integer' ? 1 : undefined,
  description: `${what} id`,
});
