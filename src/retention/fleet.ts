// The forecast for the fleet views: `status --check` warns with the guard
// (a warning kind of its own), `report` shows what expires next per job.
// Both call these with the jobs they already listed; each job costs one
// GET of the job and its backup list.
import type { Context } from '../contract/context.js';
import { collectJob } from './collect.js';
import { buildDocuments } from './forecast.js';
import { readProofs } from './proven.js';
import { readCleanSource } from './clean.js';
import type { ForecastDocument } from './document.js';

const CONCURRENCY = 4;

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The guard of each job that has a proven backup or a last clean one; one warning line per job it fails for. */
export async function guardWarnings(ctx: Context, jobIds: readonly string[], now: number): Promise<string[]> {
  const [proofs, cleans] = await Promise.all([readProofs(ctx), readCleanSource(ctx)]);
  // A job with a proven backup, or with a last clean one before anomalous backups (the catalog: no request).
  const lastClean = new Map(await Promise.all(jobIds.map(async (id) => [id, await cleans.lastClean(id)] as const)));
  const candidates = jobIds.filter((id) => proofs.mayHaveProof(id) || lastClean.get(id));
  const known = { lastClean: async (id: string) => lastClean.get(id) ?? null };
  const docs = await mapLimited(candidates, CONCURRENCY, async (id) => (await buildDocuments([await collectJob(ctx, id)], { now, proofs, cleans: known }))[0]!);
  const { sanitize } = await import('../output/sanitize.js');
  return docs.filter((d) => d.guard?.fails).map((d) => `retention guard: ${sanitize(d.target.name ?? d.target.id)} (${sanitize(d.target.id)}): ${sanitize(d.guard!.message)}`);
}

/** Each job's forecast (no guard): the jobs from one list (their schedules), then each one's backups. */
export async function jobForecasts(ctx: Context, jobIds: readonly string[], now: number): Promise<ForecastDocument[]> {
  const client = await ctx.client();
  const records = new Map<string, Record<string, unknown>>();
  for await (const page of client.pages({ method: 'GET', path: '/jobs', query: { page_size: 100 } }, { all: true, signal: ctx.signal })) {
    for (const r of page.records as Array<Record<string, unknown>>) records.set(String(r.id), r);
  }
  return mapLimited(jobIds, CONCURRENCY, async (id) => (await buildDocuments([await collectJob(ctx, id, records.get(id))], { now }))[0]!);
}

/** report's "Expires next" section: per job, the backup predicted to go first, and when. */
export async function expiresNextSection(ctx: Context, jobIds: readonly string[], now: number, markdown: boolean): Promise<string> {
  if (!jobIds.length) return '';
  const docs = await jobForecasts(ctx, jobIds, now);
  const { sanitize } = await import('../output/sanitize.js');
  const line = (d: ForecastDocument) => {
    const name = sanitize(d.target.name ?? d.target.id);
    const next = d.expires_next;
    if (!next) return [name, 'nothing predicted to expire'];
    const row = d.backups.find((b) => b.id === next.id)!;
    const alsoNow = d.next_run?.expiring.length ?? 0;
    const at = next.at.replace(/:\d\d\.\d+Z$/, 'Z').replace('T', ' ');
    return [name, `${sanitize(next.id)} (created ${row.created_at.slice(0, 10)}) at ${at}${alsoNow > 1 ? `, with ${alsoNow - 1} more at the next run` : ''}`];
  };
  const rows = docs.map(line);
  if (markdown) return `\n## Expires next\n\n| job | expires next |\n|---|---|\n${rows.map(([a, b]) => `| ${a!.replace(/\|/g, '\\|')} | ${b} |`).join('\n')}\n`;
  const width = Math.max(...rows.map(([a]) => a!.length));
  // A narrow terminal: the job on its line, then the backup and the time under it (an id is never cut).
  const fit = (a: string, b: string) => {
    const one = `  ${a.padEnd(width)}  ${b}`;
    if (one.length <= ctx.io.columns) return one;
    // Words wrapped at the width, four spaces in; a word longer than the line (an id) stays whole.
    const lines: string[] = [`  ${a}`];
    let line = '   ';
    for (const word of b.split(' ')) {
      if (line.length + 1 + word.length > ctx.io.columns && line.trim()) {
        lines.push(line);
        line = '   ';
      }
      line += ` ${word}`;
    }
    lines.push(line);
    return lines.join('\n');
  };
  return `\nExpires next (backupctl retention <job> for why):\n${rows.map(([a, b]) => fit(a!, b!)).join('\n')}\n`;
}
