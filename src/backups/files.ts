// The files of a backup with their signed URLs and the size bounds their
// transfer must keep: from the record, else from POST /backups/{id}/download.
import type { Client } from '../cli/types.js';
import type { Backup } from './record.js';
import { sizeBounds, type SizeBounds } from './size.js';

export interface BackupFile extends SizeBounds {
  name: string;
  url: string;
  /** The size as the record states it ("12.5 MB", 744), when it does. */
  stated?: unknown;
}

export async function filesOf(client: Client, backup: Backup, signal?: AbortSignal): Promise<BackupFile[]> {
  const listed = (Array.isArray(backup.files) ? backup.files : []).filter((f) => f && typeof f.name === 'string');
  if (listed.length && listed.every((f) => typeof f.url === 'string' && f.url)) {
    return listed.map((f) => ({ name: f.name, url: f.url as string, stated: f.size, ...sizeBounds(f.size) }));
  }
  const res = await client.request({ method: 'POST', path: `/backups/${encodeURIComponent(backup.id)}/download` }, { signal });
  const urls = (res.body as { data?: Record<string, unknown> } | undefined)?.data ?? {};
  const stated = new Map(listed.map((f) => [f.name, f.size as unknown]));
  return Object.entries(urls)
    .filter((e): e is [string, string] => typeof e[1] === 'string')
    .map(([name, url]) => ({ name, url, stated: stated.get(name), ...sizeBounds(stated.get(name)) }));
}
