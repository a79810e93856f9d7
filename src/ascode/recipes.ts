// Recipe ids: a job is created with a `recipe_id`, but the service shows a
// job's recipe as a slug only and lists no recipes. So the CLI learns each
// pair where it can see one: a job record that carries `recipe_id` beside its
// `recipe`, and the answer to every job apply creates (the id sent, the slug
// answered). Learnt pairs are kept per service in the state folder
// ($XDG_STATE_HOME/backupctl/recipes.json, mode 0600), so that `plan` can refuse
// a recipe_id known to be another recipe before anything is created, and
// `export` can write the ids it knows.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CurrentJob } from './state.js';

export const RECIPES_FILE = 'recipes.json';

export interface KnownRecipe {
  id: number;
  slug: string;
  /** How it is known, for messages: `learnt when job "x" was created`, `job "x" shows it`. */
  source: string;
}

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

export class RecipeIds {
  readonly byId = new Map<number, KnownRecipe>();
  readonly bySlug = new Map<string, KnownRecipe>();

  add(r: KnownRecipe): void {
    if (!this.byId.has(r.id)) this.byId.set(r.id, r);
    if (!this.bySlug.has(r.slug)) this.bySlug.set(r.slug, r);
  }

  /** What is wrong with `recipe_id` for `slug`, when a known pair says so. */
  problem(slug: string, id: number): string | undefined {
    const k = this.byId.get(id);
    if (k && k.slug !== slug) return `recipe_id ${id} is ${k.slug}, not ${slug} (${k.source})`;
    const s = this.bySlug.get(slug);
    if (s && s.id !== id) return `${slug} is recipe_id ${s.id}, not ${id} (${s.source})`;
    return undefined;
  }

  known(slug: string, id: number): boolean {
    return this.byId.get(id)?.slug === slug;
  }
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

/** The pairs known for a service: learnt ones first, then those its job records show. */
export async function knownRecipes(stateDir: string, baseUrl: string, jobs: readonly CurrentJob[]): Promise<RecipeIds> {
  const ids = new RecipeIds();
  const learnt = (await readData(fileIn(stateDir))).services[baseUrl] ?? {};
  for (const [id, l] of Object.entries(learnt)) {
    if (/^\d+$/.test(id) && typeof l?.slug === 'string') ids.add({ id: Number(id), slug: l.slug, source: `learnt when job "${l.job}" was created` });
  }
  for (const j of jobs) if (j.recipe_id != null && j.recipe) ids.add({ id: j.recipe_id, slug: j.recipe, source: `job "${j.name}" shows it` });
  return ids;
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
