// The status document as Prometheus metrics in the text exposition format
// (version 0.0.4), for node_exporter's textfile collector.
import { parseServiceTime } from '../util/time.js';
import {
  BACKUP_STATUSES,
  HEALTH_VALUES,
  RECENT_WINDOW,
  SNAPSHOT_STATUSES,
  type Health,
  type JobStatus,
  type SnapshotSummary,
  type StatusDocument,
} from './document.js';

// The text-format writer moved to src/output/prometheus.ts (issue 25 §17); re-exported for its importers.
import { Exposition, type Labels } from '../output/prometheus.js';
import { WARNING_KINDS } from '../fleet/marks-schema.js';
import { MARK_STATES } from '../state/marks.js';

const seconds = (text: string | null | undefined): number | undefined => {
  const ms = parseServiceTime(text);
  return ms === undefined ? undefined : ms / 1000;
};

export function prometheusText(doc: StatusDocument): string {
  const out = new Exposition();
  const jobLabels = (j: JobStatus): Labels => ({ job_id: j.id, job_name: j.name ?? '' });
  const each = (value: (j: JobStatus) => number | undefined | null): Array<[Labels, number]> =>
    doc.jobs.flatMap((j): Array<[Labels, number]> => {
      const v = value(j);
      return v === undefined || v === null ? [] : [[jobLabels(j), v]];
    });
  // Every known status gets a sample (0 included) so queries need no absent(); unknown ones seen are added.
  const statusesWith = (seen: readonly string[]) => [...new Set([...BACKUP_STATUSES, ...seen])];

  out.family('backupctl_status_generated_timestamp_seconds', 'gauge', 'Unix time backupctl status read the service.', [
    [{}, Date.parse(doc.generated_at) / 1000],
  ]);
  out.family(
    'backupctl_job_health',
    'gauge',
    '1 for the health of the job, 0 for the others: failing (its newest finished backup failed, or a verify or restore test of its newest completed backup), stale (no completed backup within its max age), unknown (no backup yet, job younger than its max age), healthy.',
    doc.jobs.flatMap((j) => HEALTH_VALUES.map((h): [Labels, number] => [{ ...jobLabels(j), health: h }, j.health === h ? 1 : 0])),
  );
  out.family(
    'backupctl_job_last_success_timestamp_seconds',
    'gauge',
    `Unix time the newest completed backup of the job completed${doc.allow_errors ? ' (completed_with_errors counted as completed)' : ''}; absent when it has none.`,
    each((j) => (j.last_completed ? (seconds(j.last_completed.completed_at) ?? seconds(j.last_completed.created_at)) : undefined)),
  );
  out.family(
    'backupctl_job_last_completed_age_seconds',
    'gauge',
    'Age of the newest completed backup of the job when status ran; absent when it has none.',
    each((j) => j.last_completed?.age_seconds),
  );
  out.family('backupctl_job_max_age_seconds', 'gauge', 'The max age applied to the job (--max-age).', each((j) => j.max_age_seconds));
  out.family(
    'backupctl_job_within_max_age',
    'gauge',
    '1 when the newest completed backup is younger than the max age (or the job is new): not stale; 0 otherwise.',
    each((j) => (j.within_max_age ? 1 : 0)),
  );
  out.family(
    'backupctl_job_newest_backup_timestamp_seconds',
    'gauge',
    'Unix time the newest backup of the job was created, whatever its status; absent when it has none.',
    each((j) => seconds(j.newest?.created_at)),
  );
  out.family(
    'backupctl_job_newest_backup_status',
    'gauge',
    '1 for the status of the newest backup of the job, 0 for the other statuses (all 0 when it has no backup).',
    doc.jobs.flatMap((j) =>
      statusesWith(j.newest?.status ? [j.newest.status] : []).map((s): [Labels, number] => [
        { ...jobLabels(j), status: s },
        j.newest?.status === s ? 1 : 0,
      ]),
    ),
  );
  out.family(
    'backupctl_job_backups',
    'gauge',
    `Backups of the job by status among its last ${RECENT_WINDOW} (the window status reads, not all time).`,
    doc.jobs.flatMap((j) =>
      statusesWith(j.recent).map((s): [Labels, number] => [
        { ...jobLabels(j), status: s },
        j.recent.filter((r) => r === s).length,
      ]),
    ),
  );
  out.family(
    'backupctl_job_next_run_timestamp_seconds',
    'gauge',
    'Unix time of the next scheduled run of the job, from its cron expressions and time zones; absent when unknown.',
    each((j) => (j.next_run ? Date.parse(j.next_run) / 1000 : undefined)),
  );
  // The marks of the newest completed backup (of_newest), in the words of the marks; absent when it has none.
  const newestMark = (j: JobStatus, kind: 'verify' | 'restore_test') => (j[kind]?.of_newest ? j[kind] : null);
  for (const [kind, what] of [['verify', 'verify'], ['restore_test', 'restore test']] as const) {
    out.family(
      `backupctl_job_${kind}_state`,
      'gauge',
      `1 for the state of the ${what} mark of the newest completed backup (passed, unchecked, structure-only, failed, not-tested), 0 for the others; absent when that backup has none on this machine.`,
      doc.jobs.flatMap((j) => {
        const m = newestMark(j, kind);
        return m ? MARK_STATES.map((st): [Labels, number] => [{ ...jobLabels(j), state: st }, m.state === st ? 1 : 0]) : [];
      }),
    );
    out.family(
      `backupctl_job_${kind}_timestamp_seconds`,
      'gauge',
      `Unix time of the ${what} mark of the newest completed backup; absent when it has none.`,
      each((j) => {
        const m = newestMark(j, kind);
        return m ? Date.parse(m.at) / 1000 : undefined;
      }),
    );
  }
  out.family(
    'backupctl_job_restore_test_duration_seconds',
    'gauge',
    'Recovery time (read and restore) of the passed restore test of the newest completed backup; absent otherwise.',
    each((j) => {
      const m = j.restore_test;
      return m?.of_newest && m.state === 'passed' ? (m.total_seconds ?? undefined) : undefined;
    }),
  );
  out.family(
    'backupctl_job_warnings',
    'gauge',
    'Warnings of the job by kind (unchecked, not-tested, not-tested-too-long, anomaly): status --check fails on them only with --strict.',
    doc.jobs.flatMap((j) => WARNING_KINDS.map((k): [Labels, number] => [{ ...jobLabels(j), kind: k }, j.warnings.filter((w) => w.kind === k).length])),
  );
  anomalyFamilies(out, doc);
  snapshotFamilies(out, doc);
  return out.toString();
}

/** A droplet, volume or snapshot resource as the snapshot metrics see it. */
interface Snapshotted {
  labels: Labels;
  newest: SnapshotSummary | null;
  last_completed: SnapshotSummary | null;
  health: Health;
}

/**
 * Droplets, volumes and snapshot resources (what status lists below the jobs):
 * labelled kind (droplet, volume, resource), id and name (a resource's last
 * known IP). Absent when status did not read them (--job, or a list failed).
 */
function snapshotFamilies(out: Exposition, doc: StatusDocument): void {
  const things: Snapshotted[] = [
    ...(['droplet', 'volume'] as const).flatMap((kind) =>
      ((kind === 'droplet' ? doc.droplets : doc.volumes) ?? []).map((m) => ({
        labels: { kind, id: String(m.id), name: m.name ?? '' },
        newest: m.newest,
        last_completed: m.last_completed,
        health: m.health,
      })),
    ),
    ...(doc.resources ?? []).map((r) => ({
      labels: { kind: 'resource', id: String(r.id), name: r.last_known_ip ?? '' },
      newest: r.newest,
      last_completed: r.last_completed,
      health: r.health,
    })),
  ];
  if (!things.length) return;
  const each = (value: (t: Snapshotted) => number | undefined): Array<[Labels, number]> =>
    things.flatMap((t): Array<[Labels, number]> => {
      const v = value(t);
      return v === undefined ? [] : [[t.labels, v]];
    });
  out.family(
    'backupctl_snapshot_health',
    'gauge',
    '1 for the health of the droplet, volume or snapshot resource, 0 for the others: failing (its newest finished snapshot failed or expired), ' +
      'stale (no completed snapshot within its frequency plus a grace of 25%, at least 2h; 26h when unknown), unknown (no completed snapshot yet), healthy.',
    things.flatMap((t) => HEALTH_VALUES.map((h): [Labels, number] => [{ ...t.labels, health: h }, t.health === h ? 1 : 0])),
  );
  out.family(
    'backupctl_snapshot_newest_status',
    'gauge',
    '1 for the status of the newest snapshot, 0 for the other statuses (all 0 when there is none).',
    things.flatMap((t) =>
      [...new Set([...SNAPSHOT_STATUSES, ...(t.newest?.status ? [t.newest.status] : [])])].map((s): [Labels, number] => [
        { ...t.labels, status: s },
        t.newest?.status === s ? 1 : 0,
      ]),
    ),
  );
  out.family(
    'backupctl_snapshot_newest_timestamp_seconds',
    'gauge',
    'Unix time the newest snapshot started, whatever its status; absent when there is none.',
    each((t) => seconds(t.newest?.started_at)),
  );
  out.family(
    'backupctl_snapshot_last_completed_timestamp_seconds',
    'gauge',
    'Unix time the newest completed snapshot completed (started, when the service gives no completion time); absent when there is none.',
    each((t) => (t.last_completed ? (seconds(t.last_completed.completed_at) ?? seconds(t.last_completed.started_at)) : undefined)),
  );
  out.family(
    'backupctl_snapshot_last_completed_age_seconds',
    'gauge',
    'Age of the newest completed snapshot when status ran; absent when there is none.',
    each((t) => t.last_completed?.age_seconds ?? undefined),
  );
}

/**
 * What `anomalies` finds in the catalog, per job the catalog knows (issue 33): the same series, names and labels
 * as `backupctl anomalies -o prometheus` (job_id and job_name, as every job series), over the same 30 days. Write one or the
 * other into a textfile collector's folder: the two files together would repeat these series.
 */
function anomalyFamilies(out: Exposition, doc: StatusDocument): void {
  const known = doc.jobs.filter((j) => j.anomalies);
  if (!known.length) return;
  // job_id and job_name, as every other job series (issue 42.13).
  const job = (j: JobStatus) => j.name ?? '';
  out.family(
    'backupctl_anomalous_backups',
    'gauge',
    'Backups of the window with a finding not acknowledged.',
    known.map((j): [Labels, number] => [{ job_id: j.id, job_name: job(j) }, j.anomalies!.anomalous]),
  );
  out.family(
    'backupctl_anomaly_findings',
    'gauge',
    'Findings of the newest judged backup, by signal.',
    known.flatMap((j) => {
      const a = j.anomalies!;
      const newest = a.newest?.verdict === 'anomalous' ? a.backups.find((b) => b.backup_id === a.newest!.backup_id) : undefined;
      const bySignal = new Map<string, number>();
      for (const f of newest?.findings ?? []) bySignal.set(f.signal, (bySignal.get(f.signal) ?? 0) + 1);
      return [...bySignal].map(([signal, n]): [Labels, number] => [{ job_id: j.id, job_name: job(j), signal }, n]);
    }),
  );
  out.family(
    'backupctl_last_clean_backup_timestamp_seconds',
    'gauge',
    'When the newest clean backup was made.',
    known.flatMap((j): Array<[Labels, number]> => {
      const t = seconds(j.anomalies!.last_clean?.created_at);
      return t === undefined ? [] : [[{ job_id: j.id, job_name: job(j) }, Math.floor(t)]];
    }),
  );
}
