// What a lower retention count costs, for `plan` and `apply` of a backups
// file: the backups (or snapshots) the next run will expire that it would
// have kept under the counts the service holds now, with the oldest and newest.
import type { Context } from '../contract/context.js';
import { collectJob, collectMachine } from './collect.js';
import { buildDocuments } from './forecast.js';
import type { Counts } from '../backups/retention.js';

export interface Lowering {
  target: 'job' | 'droplet' | 'volume';
  id: string;
  counts: Counts;
}

export interface LoweringCost {
  target: Lowering['target'];
  id: string;
  /** Backups or snapshots the next run expires because of the change. */
  expire: number;
  oldest: { id: string; created_at: string } | null;
  newest: { id: string; created_at: string } | null;
  /** When the next run is. */
  next_run: string | null;
  /** The newest backup proven by verify or restore-test, when it is among those the change expires. */
  proven: { id: string; created_at: string; by: 'verify' | 'restore-test' } | null;
  /** The last clean backup before anomalous ones (backupctl anomalies), when it is among those the change expires. */
  clean: { id: string; created_at: string } | null;
}

export async function costOfLowering(ctx: Context, l: Lowering, now: number): Promise<LoweringCost> {
  const target = l.target === 'job' ? await collectJob(ctx, l.id) : await collectMachine(ctx, l.target, l.id);
  // What the guard protects (issue 42.6): the newest proven backup and the last clean one.
  const [{ readProofs }, { readCleanSource }] = await Promise.all([import('./proven.js'), import('./clean.js')]);
  const guard = l.target === 'job' ? { proofs: await readProofs(ctx), cleans: await readCleanSource(ctx) } : {};
  const [current] = await buildDocuments([target], { now });
  const [lowered] = await buildDocuments([target], { now, counts: l.counts, ...guard });
  const goesNow = new Set(current!.backups.filter((b) => b.expires_run === 1).map((b) => b.id));
  const extra = lowered!.backups.filter((b) => b.expires_run === 1 && !goesNow.has(b.id)); // newest first
  const pick = (b: (typeof extra)[number] | undefined) => (b ? { id: b.id, created_at: b.created_at } : null);
  const newestProven = lowered!.backups.find((b) => b.proven !== null);
  const clean = lowered!.guard?.clean;
  return {
    target: l.target,
    id: l.id,
    expire: extra.length,
    oldest: pick(extra.at(-1)),
    newest: pick(extra[0]),
    next_run: lowered!.next_run?.at ?? null,
    proven: newestProven && extra.includes(newestProven) ? { ...pick(newestProven)!, by: newestProven.proven!.by } : null,
    clean: clean && extra.some((b) => b.id === clean.id) ? { id: clean.id, created_at: clean.created_at } : null,
  };
}

/** One line for the plan: "the next run (at ...) expires 3 backups it keeps today: oldest ..., newest ...". */
export function costLine(c: LoweringCost): string {
  const what = c.target === 'job' ? 'backup' : 'snapshot';
  if (!c.expire) return `lower retention: the next run expires no ${what} it keeps today`;
  const day = (x: { id: string; created_at: string }) => `${x.id} (${x.created_at.slice(0, 16).replace('T', ' ')}Z)`;
  const among = [
    ...(c.proven ? [`the newest proven (${c.proven.by}) ${day(c.proven)}`] : []),
    ...(c.clean ? [`the last clean one (backupctl anomalies) ${day(c.clean)}`] : []),
  ];
  return (
    `lower retention: the next run${c.next_run ? ` (${c.next_run.slice(0, 16).replace('T', ' ')}Z)` : ''} expires ${c.expire} ${what}${c.expire === 1 ? '' : 's'} it keeps today: ` +
    (c.expire === 1 ? day(c.oldest!) : `oldest ${day(c.oldest!)}, newest ${day(c.newest!)}`) +
    (among.length ? `; among them ${among.join(' and ')}` : '')
  );
}
