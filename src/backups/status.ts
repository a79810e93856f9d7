// The statuses of a backup and of a snapshot, and what each means: one
// definition that every command uses (verify's choice, --wait, status,
// report, jobs backup latest, download --latest). The rules, for users, are
// in docs/scripting.md ("Rules backupctl applies").

/** The backup statuses of the interface (the `--status` filter of a job's backups). */
export const BACKUP_STATUSES = ['pending', 'running', 'expired', 'failed', 'completed', 'completed_with_errors'] as const;
export type BackupStatus = (typeof BACKUP_STATUSES)[number];

/**
 * The snapshot statuses the service sends: droplet and volume snapshots
 * (`in-progress`, `transferring`), provider snapshots (`pre_request`,
 * `in_progress`, `delete-request`), and the common ones.
 */
export const SNAPSHOT_STATUSES = ['pre_request', 'in_progress', 'in-progress', 'transferring', 'completed', 'failed', 'expired', 'delete-request'] as const;
/** The backup statuses in the order metrics list them (status -o prometheus): by outcome. */
export const BACKUP_STATUSES_BY_OUTCOME = ['completed', 'completed_with_errors', 'failed', 'expired', 'running', 'pending'] as const satisfies readonly BackupStatus[];
/** The snapshot statuses metrics list (every one a snapshot of a schedule can have), in their order. */
export const SNAPSHOT_STATUSES_BY_OUTCOME = ['completed', 'failed', 'expired', 'in-progress', 'in_progress', 'transferring', 'pre_request'] as const;
/** The values the provider snapshots' `--status` filter takes. */
export const SNAPSHOT_STATUS_FILTER = ['pre_request', 'in_progress', 'expired', 'failed', 'completed'] as const;
/** The values the droplet and volume snapshots' `--status` filter takes. */
export const MACHINE_SNAPSHOT_STATUSES = ['failed', 'in-progress', 'completed', 'transferring', 'expired'] as const;

/**
 * What a status of a backup or snapshot means:
 * - success: `completed`, and only it;
 * - partial: `completed_with_errors`: finished, files written, with errors; not a success unless errors are allowed;
 * - failure: `failed`, `expired`, `delete-request`. A `delete-request` is a snapshot on its way out:
 *   it did complete once, but it no longer protects anything, so it means what `expired` means, in
 *   every command (status judges it failing, report counts it expired: statusWord below);
 * - running: not finished yet (`pending`, `running`, `in-progress`, `transferring`, ...);
 * - unknown: a status this version does not know (or none).
 */
export type Outcome = 'success' | 'partial' | 'failure' | 'running' | 'unknown';

const RUNNING = new Set(['pending', 'running', 'starting', 'queued', 'in_progress', 'in-progress', 'transferring', 'pre_request']);
const FAILURE = new Set(['failed', 'expired', 'delete-request']);

export function outcomeOf(status: string | null | undefined): Outcome {
  if (status === 'completed') return 'success';
  if (status === 'completed_with_errors') return 'partial';
  if (status == null) return 'unknown';
  if (FAILURE.has(status)) return 'failure';
  if (RUNNING.has(status)) return 'running';
  return 'unknown';
}

/**
 * The word a status is counted under (report's run outcomes, status's marks): completed,
 * completed_with_errors, failed, expired (`delete-request` too: see Outcome), in_progress;
 * undefined for no status or one this version does not know.
 */
export type StatusWord = 'completed' | 'completed_with_errors' | 'failed' | 'expired' | 'in_progress';
export function statusWord(status: string | null | undefined): StatusWord | undefined {
  switch (outcomeOf(status)) {
    case 'success':
      return 'completed';
    case 'partial':
      return 'completed_with_errors';
    case 'running':
      return 'in_progress';
    case 'failure':
      return status === 'failed' ? 'failed' : 'expired';
    default:
      return undefined;
  }
}

/** A successful backup or snapshot: `completed`; with `allowErrors`, `completed_with_errors` too. */
export function isSuccess(status: string | null | undefined, allowErrors = false): boolean {
  const o = outcomeOf(status);
  return o === 'success' || (allowErrors && o === 'partial');
}

/** A failed one: failed or expired; `completed_with_errors` too unless errors are allowed. */
export function isFailure(status: string | null | undefined, allowErrors = false): boolean {
  const o = outcomeOf(status);
  return o === 'failure' || (!allowErrors && o === 'partial');
}

/** Not finished yet. */
export function isInProgress(status: string | null | undefined): boolean {
  return outcomeOf(status) === 'running';
}

/** Finished, well or not: a wait for it ends. */
export function isFinished(status: string | null | undefined): boolean {
  const o = outcomeOf(status);
  return o === 'success' || o === 'partial' || o === 'failure';
}

/** The statuses that count as success, for a `--status` filter on the service (one request each). */
export function successStatuses(allowErrors = false): BackupStatus[] {
  return allowErrors ? ['completed', 'completed_with_errors'] : ['completed'];
}
