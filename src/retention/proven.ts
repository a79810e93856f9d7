// Which backups were proven: a `passed` verify or restore-test mark of the
// backup itself (per service and backup, src/state/marks.ts). The ONE adapter
// the retention guard reads proofs through.
import type { Context } from '../contract/context.js';

export interface Proof {
  backup_id: string;
  /** What proved it: verify or restore-test. */
  by: 'verify' | 'restore-test';
  /** When (ISO 8601), when known. */
  at: string | null;
}

export interface ProofSource {
  /** The proof of a backup of `jobId` with these file names, or null. */
  proofOf(jobId: string, backup: { id: string; files: readonly string[] }): Proof | null;
  /** Whether any backup of the job may be proven (a verify or restore test passed once): the guard reads its backups only then. */
  mayHaveProof(jobId: string): boolean;
}

/**
 * Reads the per-backup marks of the context's service once (src/state/marks.ts, keyed by service and
 * backup): a backup is proven when its conclusive verify or restore-test mark is `passed`. An
 * unreadable marks file is warned about and gives no proofs.
 */
export async function readProofs(ctx: Pick<Context, 'env' | 'warn' | 'settings'>): Promise<ProofSource> {
  const { openMarks, sharedState } = await import('../fleet/marks.js');
  const shared = await sharedState(ctx);
  const store = await openMarks(ctx).catch((err: unknown) => {
    if (shared) throw err;
    ctx.warn(`${(err as Error).message}: verified and restore-tested backups are not known`);
    return undefined;
  });
  const passed = (k: { conclusive: { state: string; at: string } | null } | undefined) => (k?.conclusive?.state === 'passed' ? k.conclusive : null);
  return {
    mayHaveProof(jobId) {
      return Boolean(store?.ofJob(jobId).some((b) => passed(b.verify) || passed(b.restore_test)));
    },
    proofOf(_jobId, backup) {
      const marks = store?.backup(backup.id);
      if (!marks) return null;
      const restored = passed(marks.restore_test);
      if (restored) return { backup_id: backup.id, by: 'restore-test', at: restored.at };
      const verified = passed(marks.verify);
      if (verified) return { backup_id: backup.id, by: 'verify', at: verified.at };
      return null;
    },
  };
}
