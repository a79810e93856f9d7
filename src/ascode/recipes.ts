// Recipe ids: a job is created with a `recipe_id`, but the service shows a
// job's recipe as a slug only and lists no recipes. So the CLI learns each
// pair where it can see one: a job record that carries `recipe_id` beside its
// `recipe`, and the answer to every job apply or `jobs create` creates (the id sent, the slug
// answered). Learnt pairs are kept per service in the state folder (src/jobs/recipe-ids.ts:
// $XDG_STATE_HOME/backupctl/recipes.json, mode 0600), so that `plan` can refuse
// a recipe_id known to be another recipe before anything is created, and
// `export` can write the ids it knows.
import { learntRecipes } from '../jobs/recipe-ids.js';
import type { CurrentJob } from './state.js';

export interface KnownRecipe {
  id: number;
  slug: string;
  /** How it is known, for messages: `learnt when job "x" was created`, `job "x" shows it`. */
  source: string;
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

/** The pairs known for a service: learnt ones first, then those its job records show. */
export async function knownRecipes(stateDir: string, baseUrl: string, jobs: readonly CurrentJob[]): Promise<RecipeIds> {
  const ids = new RecipeIds();
  const learnt = await learntRecipes(stateDir, baseUrl);
  for (const [id, l] of Object.entries(learnt)) {
    if (/^\d+$/.test(id) && typeof l?.slug === 'string') ids.add({ id: Number(id), slug: l.slug, source: `learnt when job "${l.job}" was created` });
  }
  for (const j of jobs) if (j.recipe_id != null && j.recipe) ids.add({ id: j.recipe_id, slug: j.recipe, source: `job "${j.name}" shows it` });
  return ids;
}
