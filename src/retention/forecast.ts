// From what was read to the forecast documents: the schedule's future runs
// (runs.ts), the counts (the service's or --what-if's), the proofs for the guard.
import { loadCronTools } from '../fleet/schedule.js';
import { applyWhatIf } from './keep-rules.js';
import { futureRuns } from './runs.js';
import { forecastDocument, horizonDays, type ForecastDocument } from './document.js';
import type { Target } from './collect.js';
import type { ProofSource } from './proven.js';
import type { CleanSource } from './clean.js';

const DAY = 86_400_000;

export interface BuildOptions {
  now: number;
  whatIf?: string;
  /** Counts to forecast with instead of the service's (plan of a backups file): a what-if. */
  counts?: import('../backups/retention.js').Counts;
  simulateMs?: number;
  proofs?: ProofSource;
  /** The last clean backups (anomalies), which the guard protects beside the proven ones. */
  cleans?: CleanSource;
  guardWithinMs?: number;
}

export async function buildDocuments(targets: readonly Target[], o: BuildOptions): Promise<ForecastDocument[]> {
  const tools = await loadCronTools();
  const cleans = new Map<string, Awaited<ReturnType<CleanSource['lastClean']>>>();
  if (o.cleans) for (const t of targets) if (t.kind === 'job') cleans.set(t.id, await o.cleans.lastClean(t.id));
  return targets.map((t) => {
    let counts = o.counts ?? t.counts;
    if (o.whatIf !== undefined) {
      const c = applyWhatIf(t.counts, o.whatIf);
      if ('error' in c) throw new Error(c.error);
      counts = c;
    }
    const days = horizonDays(counts, o.simulateMs ? Math.ceil(o.simulateMs / DAY) : 0);
    const until = o.now + days * DAY;
    const runs = futureRuns(tools, t.schedules, o.now, until) ?? [];
    return forecastDocument(t, {
      now: o.now,
      counts,
      countsFrom: o.whatIf !== undefined || o.counts !== undefined ? 'what-if' : 'service',
      runs,
      horizonUntil: until,
      simulateUntil: o.simulateMs !== undefined ? o.now + o.simulateMs : undefined,
      zone: t.schedules[0]?.timezone ?? 'UTC',
      proofOf: o.proofs && t.kind === 'job' ? (b) => o.proofs!.proofOf(t.id, b) : undefined,
      lastClean: cleans.get(t.id) ?? null,
      guardWithinMs: o.guardWithinMs,
    });
  });
}
