// The recipe ids learnt from what the service answered (src/ascode/recipes.ts
// explains why): kept per service in the state folder
// ($XDG_STATE_HOME/backupctl/recipes.json, mode 0600). Both `apply` and
// `jobs create` record here the recipe_id they sent and the slug the created
// job came back with (issue 29).
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export const RECIPES_FILE = 'recipes.json';

interface Learnt {
  slug: string;
  job: string;
  at: string;
}
interface Data {
  version: 1;
  /** By service base URL, then by recipe id. */
  services: Record<string, Record<string, Learnt>>;
}

const fileIn = (dir: string) => path.join(dir, RECIPES_FILE);

async function readData(file: string): Promise<Data> {
  try {
    const data = JSON.parse(await readFile(file, 'utf8')) as Partial<Data>;
    if (data?.version === 1 && typeof data.services === 'object' && data.services !== null) return { version: 1, services: data.services };
  } catch {
    // Missing or unreadable: nothing learnt yet. The file is only a cache of what answers showed.
  }
  return { version: 1, services: {} };
}

/** The pairs learnt for a service: recipe id -> what was learnt. */
export async function learntRecipes(stateDir: string, baseUrl: string): Promise<Record<string, { slug: string; job: string; at: string }>> {
  return (await readData(fileIn(stateDir))).services[baseUrl] ?? {};
}

/** Records what a create showed: recipe_id `id` made a job of recipe `slug`. */
export async function learnRecipe(stateDir: string, baseUrl: string, id: number, slug: string, job: string, now: Date): Promise<void> {
  const file = fileIn(stateDir);
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const [{ withFileLock }, { writeFileAtomic }] = await Promise.all([import('../config/lock.js'), import('../output/output-file.js')]);
  await withFileLock(file, async () => {
    const data = await readData(file);
    const service = (data.services[baseUrl] ??= {});
    service[String(id)] = { slug, job, at: now.toISOString() };
    await writeFileAtomic(file, `${JSON.stringify(data, null, 1)}\n`, { mode: 0o600 });
  });
}
