// The marks (src/state/marks.ts) in a PostgreSQL state the team shares: one row per service, backup and
// kind of test. A writer takes the row's lock (INSERT ... ON CONFLICT, then SELECT ... FOR UPDATE) and
// merges its attempt into what is there by the same rule as the state folder (mergeMark: the newer `at`
// wins), so two runners recording the same backup at once lose nothing and never go back in time.
import type { Client } from 'pg';
import {
  KEEP_PER_JOB,
  mergeKinds,
  mergeMark,
  readBackupMarks,
  type BackupMarks,
  type KindMarks,
  type Mark,
  type MarkInput,
  type MarkKind,
  type MarkRecord,
  type MarkedBackup,
  type MarksState,
} from './marks.js';
import { inTransaction, withState } from './pg.js';
import { redactStateUrl } from '../config/state-url.js';

interface Row {
  backup_id: string;
  kind: MarkKind;
  job_id: string;
  created_at: string | null;
  last: Mark;
  conclusive: Mark | null;
}

export class PgMarksStore implements MarksState {
  private constructor(
    private readonly url: string,
    readonly service: string,
    private backups: Map<string, BackupMarks>,
    private readonly timeoutMs?: number,
  ) {}

  get where(): string {
    return redactStateUrl(this.url);
  }

  /** Reads every mark of the service from the state database (exit 3 when it cannot be reached). */
  static async open(url: string, service: string, timeoutMs?: number): Promise<PgMarksStore> {
    const rows = await withState(url, (c) => c.query<Row>('SELECT backup_id, kind, job_id, created_at, last, conclusive FROM backupctl.marks WHERE service = $1', [service]), timeoutMs);
    const store = new PgMarksStore(url, service, new Map(), timeoutMs);
    for (const r of rows.rows) store.put(r);
    return store;
  }

  private put(r: Row): void {
    const before = this.backups.get(r.backup_id) ?? { job_id: r.job_id, created_at: r.created_at };
    const raw = { ...before, job_id: r.job_id, created_at: r.created_at ?? before.created_at, [r.kind]: { last: r.last, conclusive: r.conclusive } };
    const clean = readBackupMarks(raw);
    if (clean) this.backups.set(r.backup_id, clean);
  }

  backup(backupId: string): BackupMarks | undefined {
    return this.backups.get(backupId);
  }

  all(): MarkedBackup[] {
    return [...this.backups].map(([backup_id, b]) => ({ backup_id, ...b }));
  }

  ofJob(jobId: string): MarkedBackup[] {
    return this.all()
      .filter((b) => b.job_id === jobId)
      .sort((a, b) => (b.created_at ?? '').localeCompare(a.created_at ?? ''));
  }

  async record(kind: MarkKind, inputs: readonly MarkInput[]): Promise<void> {
    if (!inputs.length) return;
    const written = await withState(this.url, (c) => inTransaction(c, () => recordRows(c, this.service, kind, inputs)), this.timeoutMs);
    for (const r of written) this.put(r);
  }
}

/** Merges each attempt into its row under the row's lock; prunes each job to its KEEP_PER_JOB newest backups. */
async function recordRows(c: Client, service: string, kind: MarkKind, inputs: readonly MarkInput[]): Promise<Row[]> {
  const out: Row[] = [];
  // One order for every writer (by backup id): two runners recording overlapping sets never deadlock.
  const sorted = [...inputs].sort((a, b) => (a.backupId < b.backupId ? -1 : a.backupId > b.backupId ? 1 : 0));
  for (const input of sorted) {
    await c.query(
      `INSERT INTO backupctl.marks (service, backup_id, kind, job_id, created_at, last, conclusive) VALUES ($1, $2, $3, $4, $5, $6, NULL)
       ON CONFLICT (service, backup_id, kind) DO NOTHING`,
      [service, input.backupId, kind, input.jobId, input.createdAt, JSON.stringify({ ...input.mark, at: '' })],
    );
    const cur = await c.query<Row>('SELECT backup_id, kind, job_id, created_at, last, conclusive FROM backupctl.marks WHERE service = $1 AND backup_id = $2 AND kind = $3 FOR UPDATE', [
      service,
      input.backupId,
      kind,
    ]);
    const row = cur.rows[0]!;
    // The placeholder inserted above (at '') is no attempt: the first attempt merges into nothing.
    const prior: KindMarks | undefined = row.last.at === '' ? undefined : { last: row.last, conclusive: row.conclusive };
    const next = mergeMark(prior, input.mark);
    const createdAt = input.createdAt ?? row.created_at;
    await c.query('UPDATE backupctl.marks SET job_id = $4, created_at = $5, last = $6, conclusive = $7 WHERE service = $1 AND backup_id = $2 AND kind = $3', [
      service,
      input.backupId,
      kind,
      input.jobId,
      createdAt,
      JSON.stringify(next.last),
      next.conclusive ? JSON.stringify(next.conclusive) : null,
    ]);
    out.push({ backup_id: input.backupId, kind, job_id: input.jobId, created_at: createdAt, last: next.last, conclusive: next.conclusive });
  }
  for (const job of new Set(inputs.map((i) => i.jobId))) {
    await c.query(
      `DELETE FROM backupctl.marks WHERE service = $1 AND job_id = $2 AND backup_id NOT IN (
         SELECT backup_id FROM backupctl.marks WHERE service = $1 AND job_id = $2
         GROUP BY backup_id ORDER BY max(created_at) DESC NULLS LAST LIMIT $3)`,
      [service, job, KEEP_PER_JOB],
    );
  }
  return out;
}

/** Every mark of every service in a state database (`state migrate` copies them). */
export async function readPgMarks(url: string): Promise<MarkRecord[]> {
  const r = await withState(url, (c) => c.query<Row & { service: string }>('SELECT service, backup_id, kind, job_id, created_at, last, conclusive FROM backupctl.marks ORDER BY service, backup_id, kind'));
  return r.rows.map((row) => ({ service: row.service, backup_id: row.backup_id, kind: row.kind, job_id: row.job_id, created_at: row.created_at, marks: { last: row.last, conclusive: row.conclusive } }));
}

/** Merges marks into a state database in one transaction (the newer mark wins); the number written. */
export async function writePgMarks(url: string, records: readonly MarkRecord[]): Promise<number> {
  return withState(url, (c) =>
    inTransaction(c, async () => {
      for (const r of records) {
        const cur = await c.query<Row>('SELECT backup_id, kind, job_id, created_at, last, conclusive FROM backupctl.marks WHERE service = $1 AND backup_id = $2 AND kind = $3 FOR UPDATE', [
          r.service,
          r.backup_id,
          r.kind,
        ]);
        const before = cur.rows[0];
        const next = mergeKinds(before ? { last: before.last, conclusive: before.conclusive } : undefined, r.marks);
        await c.query(
          `INSERT INTO backupctl.marks (service, backup_id, kind, job_id, created_at, last, conclusive) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (service, backup_id, kind) DO UPDATE SET job_id = EXCLUDED.job_id, created_at = coalesce(EXCLUDED.created_at, backupctl.marks.created_at), last = EXCLUDED.last, conclusive = EXCLUDED.conclusive`,
          [r.service, r.backup_id, r.kind, r.job_id, r.created_at, JSON.stringify(next.last), next.conclusive ? JSON.stringify(next.conclusive) : null],
        );
      }
      return records.length;
    }),
  );
}
