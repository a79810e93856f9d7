// retention's predictions (src/retention/audit.ts) in a PostgreSQL state the team shares: one row per service,
// target (`<kind>:<id>`) and record (its recorded_at), the record as retention wrote it. A write inserts
// (a record already there is left as it is: copying twice adds nothing) and keeps the newest `keep` of each
// target, in one transaction.
import { inTransaction, withState } from './pg.js';

export interface PredictionRow {
  service: string;
  /** `<kind>:<id>`: a job, droplet, volume or resource. */
  target: string;
  recorded_at: string;
  record: unknown;
}

/** The records of one service (or of every service), oldest first per target. */
export async function readPgPredictions(url: string, service?: string, timeoutMs?: number): Promise<PredictionRow[]> {
  const r = await withState(
    url,
    (c) =>
      service === undefined
        ? c.query<PredictionRow>('SELECT service, target, recorded_at, record FROM backupctl.retention_predictions ORDER BY service, target, recorded_at')
        : c.query<PredictionRow>('SELECT service, target, recorded_at, record FROM backupctl.retention_predictions WHERE service = $1 ORDER BY target, recorded_at', [service]),
    timeoutMs,
  );
  return r.rows;
}

/** Adds records and keeps the newest `keep` of each target; the number given. */
export async function writePgPredictions(url: string, rows: readonly PredictionRow[], keep: number, timeoutMs?: number): Promise<number> {
  const sorted = [...rows].sort((a, b) => cmp(a.service, b.service) || cmp(a.target, b.target) || cmp(a.recorded_at, b.recorded_at));
  await withState(
    url,
    (c) =>
      inTransaction(c, async () => {
        // Target by target, in one order for every writer: each target's insert and prune under its own lock,
        // so two writers of one target at once keep its newest `keep`, not more.
        const targets = new Map<string, PredictionRow[]>();
        for (const r of sorted) {
          const k = `${r.service}\n${r.target}`;
          targets.set(k, [...(targets.get(k) ?? []), r]);
        }
        for (const [k, group] of targets) {
          await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TARGET_LOCK, k]);
          for (const r of group) {
            await c.query(
              'INSERT INTO backupctl.retention_predictions (service, target, recorded_at, record) VALUES ($1, $2, $3, $4) ON CONFLICT (service, target, recorded_at) DO NOTHING',
              [r.service, r.target, r.recorded_at, JSON.stringify(r.record)],
            );
          }
          await c.query(
            `DELETE FROM backupctl.retention_predictions WHERE service = $1 AND target = $2 AND recorded_at NOT IN (
               SELECT recorded_at FROM backupctl.retention_predictions WHERE service = $1 AND target = $2 ORDER BY recorded_at DESC LIMIT $3)`,
            [group[0]!.service, group[0]!.target, keep],
          );
        }
      }),
    timeoutMs,
  );
  return rows.length;
}

/** The first key of the advisory locks of prediction targets (the second is a hash of the target). */
const TARGET_LOCK = 4_407_332;

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
