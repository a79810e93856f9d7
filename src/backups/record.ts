// The backup record as the service sends it (GET /backups/{id}, a job's
// backups list), parsed leniently: unknown fields kept, odd values passed through.
import * as z from 'zod/mini';
import type { ApiResponse } from '../contract/context.js';
import { idOf, listField, recordOf } from '../http/shape.js';

const datetime = z.string();
const record = z.looseObject;

export const backupFileSchema = record({
  id: z.nullish(z.union([z.string(), z.number()])),
  name: z.string(),
  size: z.nullish(z.union([z.string(), z.number()])),
  url: z.nullish(z.string()),
});

export const backupSchema = record({
  id: z.string(),
  job_id: z.nullish(z.string()),
  status: z.nullish(z.string()),
  tags: z.nullish(z.record(z.string(), z.unknown())),
  s3_directory: z.nullish(z.string()),
  created_at: z.nullish(datetime),
  started_at: z.nullish(datetime),
  completed_at: z.nullish(datetime),
  monitoring_available: z.nullish(z.boolean()),
  encryption_key: z.nullish(z.string()),
  files: z.nullish(z.array(backupFileSchema)),
});

export type Backup = z.infer<typeof backupSchema>;

/** The record parsed leniently: the schema's output when it fits, else the record as sent. */
export function looseBackup(raw: unknown): Backup {
  const parsed = backupSchema.safeParse(raw);
  return parsed.success ? parsed.data : (raw as Backup);
}

/**
 * The backup record of an answer, with what the next requests build on
 * checked: an object, an `id` (the next request's path), `files` a list when present.
 */
export function checkedBackup(res: ApiResponse): Backup {
  const raw = recordOf(res);
  idOf(res, raw, 'backup');
  listField(res, raw, 'files', 'backup');
  return looseBackup(raw);
}

/** Whether a backup holds files (a finished backup that wrote any). */
export function hasFiles(b: Pick<Backup, 'files'> | null | undefined): boolean {
  return Array.isArray(b?.files) && b.files.length > 0;
}
