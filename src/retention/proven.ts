// Which backups were proven: passed `verify` (every file of the backup is in
// verify's ledger, which records only files that verified) or passed
// `restore-test` (its last success). The ONE adapter the retention guard reads
// proofs through: when per-backup marks replace the ledgers, repoint this
// function and nothing else.
import type { Context } from '../cli/types.js';

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

/** Reads both ledgers once; an unreadable one is warned about and gives no proofs. */
export async function readProofs(ctx: Pick<Context, 'env' | 'warn'>): Promise<ProofSource> {
  const [{ stateDir }, { Ledger, ledgerKey }, { readRestoreStates }] = await Promise.all([
    import('../config/paths.js'),
    import('../state/verify-ledger.js'),
    import('../state/restore-tests.js'),
  ]);
  const dir = stateDir(ctx.env);
  const [ledger, restores] = await Promise.all([
    Ledger.open(dir).catch((err: unknown) => {
      ctx.warn(`${(err as Error).message}: verified backups are not known`);
      return undefined;
    }),
    readRestoreStates(dir).catch((err: unknown) => {
      ctx.warn(`${(err as Error).message}: restore-tested backups are not known`);
      return undefined;
    }),
  ]);
  return {
    mayHaveProof(jobId) {
      return Boolean(restores?.[jobId]?.last_success) || Boolean(ledger?.job(jobId)?.last_success);
    },
    proofOf(jobId, backup) {
      const restored = restores?.[jobId]?.last_success;
      if (restored && String(restored.backup_id) === backup.id) return { backup_id: backup.id, by: 'restore-test', at: restored.at ?? null };
      if (ledger && backup.files.length) {
        const entries = backup.files.map((f) => ledger.lookup(ledgerKey(backup.id, f)));
        if (entries.every((e) => e !== undefined)) {
          const at = entries.map((e) => e!.last_verified).sort().at(-1) ?? null;
          return { backup_id: backup.id, by: 'verify', at };
        }
      }
      return null;
    },
  };
}
