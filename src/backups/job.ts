// A job's record as the read-back commands need it: its id, name and recipe.
// The one GET /jobs/{id} for a name (verify, restore-test, scan, anomalies,
// and the ownership message of src/backups/ownership.ts).
import type { Client } from '../contract/context.js';

export interface JobRef {
  id: string;
  name: string | null;
  recipe: string | null;
}

/** GET /jobs/{id}: the job's name and recipe (null when the record has none). Errors are thrown as the client throws them. */
export async function fetchJob(client: Client, id: string, signal?: AbortSignal): Promise<JobRef> {
  const res = await client.request({ method: 'GET', path: `/jobs/${encodeURIComponent(id)}` }, { signal });
  const data = (res.body as { data?: Record<string, unknown> } | undefined)?.data;
  return { id, name: typeof data?.name === 'string' ? data.name : null, recipe: typeof data?.recipe === 'string' ? data.recipe : null };
}
