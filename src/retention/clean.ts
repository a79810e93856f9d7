// The last clean backup of a job, for the guard and for `plan` (issue 42.6):
// after backups that `anomalies` flags (ransomware, damage), the newest clean
// one before them is the one to restore from, so retention must not let it go
// unseen. Read from the catalog as status reads it (src/fleet/anomalies.ts: the
// same model, settings and acknowledgements); no backup is read for it. A job
// the catalog knows nothing of, or without an anomaly, has nothing to protect.
import type { Context } from '../contract/context.js';

export interface CleanBackup {
  id: string;
  created_at: string | null;
  /** The first anomalous backup after it (what made it the last clean one). */
  before: { id: string; created_at: string | null };
}

export interface CleanSource {
  /** The last clean backup before the job's anomalous backups, or null. */
  lastClean(jobId: string): Promise<CleanBackup | null>;
}

export const NO_CLEAN: CleanSource = { lastClean: async () => null };

/** The catalog of the context's service, every backup it holds judged (not only the last 30 days). */
export async function readCleanSource(ctx: Context): Promise<CleanSource> {
  const { readFleetAnomalies } = await import('../fleet/anomalies.js');
  const anomalies = await readFleetAnomalies(ctx, { since: 0 });
  return {
    async lastClean(jobId) {
      const a = await anomalies.forJob(jobId);
      if (!a?.anomalous) return null;
      // backups are oldest first: the clean one before the newest anomalous backup, and the first bad one after it.
      const bad = a.backups.filter((b) => b.verdict === 'anomalous');
      const clean = bad.at(-1)!.last_clean;
      if (!clean) return null;
      const after = (b: (typeof bad)[number]) => clean.created_at === null || b.created_at === null || b.created_at > clean.created_at;
      const first = bad.find(after) ?? bad.at(-1)!;
      return { id: clean.id, created_at: clean.created_at, before: { id: first.backup_id, created_at: first.created_at } };
    },
  };
}
