// What this machine knows of each job beyond the service: the last `verify`
// (verify's ledger) and the last restore test (restore-test's state), both in
// the state folder. `status` and `report` show them beside the service's
// records, so the health tools agree: a job whose last verify failed is not
// called healthy. A ledger that cannot be read is a warning, not the end of
// the run: the marks are then unknown.
import type { Context } from '../cli/types.js';

import type { RestoreMark, VerifyMark } from './marks-schema.js';


export interface JobMarksByJob {
  verify(jobId: string): VerifyMark | null;
  restoreTest(jobId: string): RestoreMark | null;
}

export const NO_MARKS: JobMarksByJob = { verify: () => null, restoreTest: () => null };

/** Reads both ledgers from the state folder once; a broken or unreadable one is warned about and left out. */
export async function readJobMarks(ctx: Pick<Context, 'env' | 'warn'>): Promise<JobMarksByJob> {
  const [{ stateDir }, { Ledger }, { readRestoreStates }] = await Promise.all([
    import('../config/paths.js'),
    import('../state/verify-ledger.js'),
    import('../state/restore-tests.js'),
  ]);
  const dir = stateDir(ctx.env);
  const [ledger, restores] = await Promise.all([
    Ledger.open(dir).catch((err: unknown) => {
      ctx.warn(`${(err as Error).message}: last verify verdicts are not shown`);
      return undefined;
    }),
    readRestoreStates(dir).catch((err: unknown) => {
      ctx.warn(`${(err as Error).message}: restore tests are not shown`);
      return undefined;
    }),
  ]);
  return {
    verify(jobId) {
      const marks = ledger?.job(jobId);
      if (!marks || typeof marks.last_verify !== 'string') return null;
      return {
        last_at: marks.last_verify,
        verdict: marks.last_success === marks.last_verify ? 'passed' : 'failed',
        last_passed_at: marks.last_success ?? null,
      };
    },
    restoreTest(jobId) {
      const state = restores?.[jobId];
      const last = state?.last;
      if (!last || typeof last.at !== 'string') return null;
      return {
        last_at: last.at,
        verdict: last.verdict === 'passed' ? 'passed' : 'failed',
        backup_id: String(last.backup_id),
        total_seconds: Number(last.total_seconds) || 0,
        restore_seconds: Number(last.restore_seconds) || 0,
        rows: Number(last.rows) || 0,
        engine: last.engine ?? null,
        reason: last.reason ?? null,
        last_passed_at: state.last_success?.at ?? null,
        last_passed_total_seconds: state.last_success?.total_seconds ?? null,
      };
    },
  };
}
