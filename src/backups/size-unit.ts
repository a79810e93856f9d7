// Which unit a service states sizes in (issue 30 §3), remembered per profile once a file has shown
// it: a length that fits "1.25 KB" read in 1000s and not in 1024s says the service counts in
// 1000s. One JSON file in the state folder (size-units.json, mode 0600, written atomically under
// a lock); a cache of what transfers showed, so a broken or missing file is read as empty.
// `backupctl doctor` shows it; --debug names it when a download matches.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseStatedSize, telltaleUnit, type SizeUnit } from '../util/stated-size.js';

export const SIZE_UNITS_FILE = 'size-units.json';

export interface KnownUnit {
  unit: SizeUnit;
  /** The service it was seen on. */
  base_url: string;
  /** The file that showed it, and when. */
  file: string;
  seen_at: string;
}

interface Data {
  version: 1;
  profiles: Record<string, KnownUnit>;
}

async function readData(file: string): Promise<Data> {
  try {
    const data = JSON.parse(await readFile(file, 'utf8')) as Partial<Data>;
    if (data?.version === 1 && typeof data.profiles === 'object' && data.profiles !== null) return { version: 1, profiles: data.profiles };
  } catch {
    // Missing or unreadable: nothing known yet.
  }
  return { version: 1, profiles: {} };
}

/** The unit remembered for a profile on this base URL, if any. */
export async function knownSizeUnit(stateDir: string, profile: string, baseUrl: string): Promise<KnownUnit | undefined> {
  const known = (await readData(path.join(stateDir, SIZE_UNITS_FILE))).profiles[profile];
  return known && known.base_url === baseUrl && (known.unit === 1000 || known.unit === 1024) ? known : undefined;
}

/** The unit the first telling file of `files` shows (its stated size against the bytes read), if any. */
export function unitShown(files: ReadonlyArray<{ name: string; stated: unknown; bytes: number }>): { unit: SizeUnit; file: string } | undefined {
  for (const f of files) {
    const stated = parseStatedSize(f.stated);
    const unit = stated ? telltaleUnit(stated, f.bytes) : undefined;
    if (unit) return { unit, file: f.name };
  }
  return undefined;
}

/** Records the unit a file showed, for the profile on this base URL (kept unless it changes). */
export async function rememberSizeUnit(stateDir: string, profile: string, baseUrl: string, shown: { unit: SizeUnit; file: string }, now: Date): Promise<void> {
  const file = path.join(stateDir, SIZE_UNITS_FILE);
  const before = await knownSizeUnit(stateDir, profile, baseUrl);
  if (before?.unit === shown.unit) return;
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const [{ withFileLock }, { writeFileAtomic }] = await Promise.all([import('../config/lock.js'), import('../output/output-file.js')]);
  await withFileLock(file, async () => {
    const data = await readData(file);
    data.profiles[profile] = { unit: shown.unit, base_url: baseUrl, file: shown.file, seen_at: now.toISOString() };
    await writeFileAtomic(file, `${JSON.stringify(data, null, 1)}\n`, { mode: 0o600 });
  });
}
