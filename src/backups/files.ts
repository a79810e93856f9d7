// The files of a backup with their signed URLs and the size bounds their
// transfer must keep: from the record, else from POST /backups/{id}/download.
import type { Client } from '../contract/context.js';
import type { Backup } from './record.js';
import { sizeBounds, type SizeBounds } from './size.js';

export interface BackupFile extends SizeBounds {
  name: string;
  url: string;
  /** The size as the record states it ("12.5 MB", 744), when it does. */
  stated?: unknown;
  /** The name as the record gives it, when it differs (the published service's storage path, `…/21-01/test.sql.gz`). */
  recordName?: string;
}

/** The last segment of a file name or storage path (`a/b/test.sql.gz` -> `test.sql.gz`). */
export function baseName(name: string): string {
  return name.replace(/\\/g, '/').split('/').filter(Boolean).pop() ?? name;
}

/**
 * The record's file for a key of the download answer: the same name, else the one file whose
 * last path segment is that name (the published service names a backup's files by their storage
 * path, and the download answer by their bare names: issue 30 §4). Undefined when none or several.
 */
export function recordFileFor<T extends { name: string }>(listed: readonly T[], key: string): T | undefined {
  const exact = listed.find((f) => f.name === key);
  if (exact) return exact;
  const byBase = listed.filter((f) => baseName(f.name) === baseName(key));
  return byBase.length === 1 ? byBase[0] : undefined;
}

/**
 * The files `--file` names: the full name, else every file whose last path segment it is.
 * More than one is for the caller to refuse (exit 2, listing them).
 */
export function filesNamed<T extends { name: string; recordName?: string }>(files: readonly T[], wanted: string): T[] {
  const full = files.filter((f) => f.name === wanted || f.recordName === wanted);
  if (full.length) return full;
  return files.filter((f) => baseName(f.recordName ?? f.name) === wanted || baseName(f.name) === wanted);
}

export async function filesOf(client: Client, backup: Backup, signal?: AbortSignal): Promise<BackupFile[]> {
  const listed = (Array.isArray(backup.files) ? backup.files : []).filter((f) => f && typeof f.name === 'string');
  if (listed.length && listed.every((f) => typeof f.url === 'string' && f.url)) {
    return listed.map((f) => ({ name: f.name, url: f.url as string, stated: f.size, ...sizeBounds(f.size) }));
  }
  const res = await client.request({ method: 'POST', path: `/backups/${encodeURIComponent(backup.id)}/download` }, { signal });
  const urls = (res.body as { data?: Record<string, unknown> } | undefined)?.data ?? {};
  return Object.entries(urls)
    .filter((e): e is [string, string] => typeof e[1] === 'string')
    .map(([name, url]) => {
      const file = recordFileFor(listed, name);
      return { name, url, stated: file?.size, ...(file && file.name !== name ? { recordName: file.name } : {}), ...sizeBounds(file?.size) };
    });
}
