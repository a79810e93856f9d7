// The restore-test ledger: for each job, its last restore test and its last
// passing one, in the state folder beside verify's ledger
// ($XDG_STATE_HOME/backupctl/restore-tests.json, else ~/.local/state/backupctl/).
// `status` and `report` read it to say when a job's data last came back, and
// how long that took; a job with no entry was never restore-tested, and they
// say so. One JSON file, mode 0600, written atomically under a lock; a broken
// file is reported and never overwritten.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';

export const RESTORE_STATE_FILE = 'restore-tests.json';

/** One restore test of a job, as the ledger keeps it. */
export interface RestoreRun {
  /** When the test ended (ISO 8601). */
  at: string;
  backup_id: string;
  /** passed: every file restored (or extracted / structure-checked) and every check held. */
  verdict: 'passed' | 'failed';
  /** Time to read the files, to restore them, and their sum: the recovery time to plan for. */
  read_seconds: number;
  restore_seconds: number;
  total_seconds: number;
  rows: number;
  tables: number;
  /** "PostgreSQL 15.18 (local)", ... */
  engine: string | null;
  /** The first failure, for a failed run. */
  reason: string | null;
}

export interface JobRestoreState {
  last: RestoreRun;
  /** The last run that passed (the same object as `last` when it passed); null when none has. */
  last_success: RestoreRun | null;
}

interface StateData {
  version: 1;
  jobs: Record<string, JobRestoreState>;
}

function empty(): StateData {
  return { version: 1, jobs: {} };
}

function fileIn(dir: string): string {
  return path.join(dir, RESTORE_STATE_FILE);
}

async function readState(file: string): Promise<StateData> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return empty();
    throw new ConfigError(`cannot read the restore-test ledger ${file}: ${(err as Error).message}`);
  }
  try {
    const data = JSON.parse(text) as Partial<StateData>;
    if (data?.version !== 1 || typeof data.jobs !== 'object' || data.jobs === null) throw new Error('not a restore-test ledger of version 1');
    return { version: 1, jobs: data.jobs };
  } catch (err) {
    throw new ConfigError(`the restore-test ledger ${file} is broken (${(err as Error).message}); it was left as it is`, [
      '  Move it aside to start a new one (the history of restore tests is then lost).',
    ]);
  }
}

/** Every job's restore-test state, by job id (empty when no test ever ran). */
export async function readRestoreStates(stateDir: string): Promise<Record<string, JobRestoreState>> {
  return (await readState(fileIn(stateDir))).jobs;
}

/** Records a run for a job: re-reads the file under its lock and renames a new file over it. */
export async function recordRestoreRun(stateDir: string, jobId: string, run: RestoreRun): Promise<void> {
  const file = fileIn(stateDir);
  await mkdir(stateDir, { recursive: true, mode: 0o700 }).catch((err: Error) => {
    throw new ConfigError(`cannot create the state folder ${stateDir}: ${err.message}`);
  });
  const [{ withFileLock }, { writeFileAtomic }] = await Promise.all([import('../config/lock.js'), import('../output/output-file.js')]);
  await withFileLock(file, async () => {
    const current = await readState(file);
    const before = current.jobs[jobId];
    current.jobs[jobId] = { last: run, last_success: run.verdict === 'passed' ? run : (before?.last_success ?? null) };
    await writeFileAtomic(file, `${JSON.stringify(current, null, 1)}\n`, {
      mode: 0o600,
      failure: (err) => new ConfigError(`cannot write the restore-test ledger ${file}: ${err.message}`),
    });
  });
}
