// The leases of `assure run`'s runners in a PostgreSQL state (docs/assurance.md, "Runners"): one row
// per service, job and kind of test. A runner claims a row that nobody holds (or whose holder's lease
// ran out: a runner that died) and that was not done within the plan's window, with
// SELECT ... FOR UPDATE SKIP LOCKED, so two runners never wait on nor take the same test; it renews
// the lease while the test runs and marks the row done at the end. No backup is tested twice within
// its window: a done row is not claimed again before the window has passed.
import type { Client } from 'pg';
import type { MarkKind } from './marks.js';
import { connectState, inTransaction, stateError } from './pg.js';
import { ConfigError } from '../errors.js';

export interface LeaseKey {
  job_id: string;
  kind: MarkKind;
}

/** What a claim found: taken (this runner holds it), held by another live runner, or done within the window. */
export type ClaimResult = 'taken' | 'held' | 'done';

/** One runner's connection to the leases; every method is exit 3 with the URL redacted when the database fails. */
export class Leases {
  private constructor(
    private readonly url: string,
    private readonly client: Client,
    readonly service: string,
    readonly holder: string,
    private readonly leaseMs: number,
  ) {}

  static async open(url: string, service: string, holder: string, leaseMs: number, timeoutMs?: number): Promise<Leases> {
    return new Leases(url, await connectState(url, timeoutMs), service, holder, leaseMs);
  }

  private async run<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw stateError(this.url, 'cannot use', err);
    }
  }

  /**
   * Claims a test for this runner unless another holds it or it was done within `windowMs`.
   * `provenSince` answers whether a conclusive mark of it was recorded within the window (a runner
   * that died after recording and before saying done): then it is marked done, not taken.
   */
  claim(key: LeaseKey, windowMs: number, provenWithin: (c: Client) => Promise<boolean>): Promise<ClaimResult> {
    return this.run(() =>
      inTransaction(this.client, async () => {
        await this.client.query('INSERT INTO backupctl.assure_leases (service, job_id, kind) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [this.service, key.job_id, key.kind]);
        const r = await this.client.query<{ holder: string | null; live: boolean; done: boolean }>(
          `SELECT holder, (until IS NOT NULL AND until > now()) AS live, (done_at IS NOT NULL AND done_at > now() - make_interval(secs => $4::double precision / 1000)) AS done
             FROM backupctl.assure_leases WHERE service = $1 AND job_id = $2 AND kind = $3 FOR UPDATE SKIP LOCKED`,
          [this.service, key.job_id, key.kind, windowMs],
        );
        const row = r.rows[0];
        // Locked by another runner's claim this very moment: held.
        if (!row) return 'held';
        if (row.done) return 'done';
        if (row.live && row.holder !== this.holder) return 'held';
        if (await provenWithin(this.client)) {
          await this.client.query('UPDATE backupctl.assure_leases SET holder = NULL, until = NULL, done_at = now() WHERE service = $1 AND job_id = $2 AND kind = $3', [this.service, key.job_id, key.kind]);
          return 'done';
        }
        await this.client.query(
          `UPDATE backupctl.assure_leases SET holder = $4, until = now() + make_interval(secs => $5::double precision / 1000) WHERE service = $1 AND job_id = $2 AND kind = $3`,
          [this.service, key.job_id, key.kind, this.holder, this.leaseMs],
        );
        return 'taken';
      }),
    );
  }

  /** Extends the leases this runner holds (while their tests run). */
  renew(): Promise<void> {
    return this.run(async () => {
      await this.client.query(
        `UPDATE backupctl.assure_leases SET until = now() + make_interval(secs => $3::double precision / 1000) WHERE service = $1 AND holder = $2`,
        [this.service, this.holder, this.leaseMs],
      );
    });
  }

  /** Ends this runner's lease of a test: done (a conclusive result) or given back (it could not run: another may try). */
  finish(key: LeaseKey, done: boolean): Promise<void> {
    return this.run(async () => {
      await this.client.query(
        `UPDATE backupctl.assure_leases SET holder = NULL, until = NULL, done_at = CASE WHEN $5 THEN now() ELSE done_at END
           WHERE service = $1 AND job_id = $2 AND kind = $3 AND holder = $4`,
        [this.service, key.job_id, key.kind, this.holder, done],
      );
    });
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => {});
  }
}

/** Whether the state holds a conclusive mark of a job's test recorded within the window. */
export async function provenWithin(c: Client, service: string, key: LeaseKey, windowMs: number, nowIso: string): Promise<boolean> {
  const since = new Date(Date.parse(nowIso) - windowMs).toISOString();
  const r = await c.query<{ n: string }>(
    `SELECT count(*) AS n FROM backupctl.marks WHERE service = $1 AND job_id = $2 AND kind = $3 AND conclusive IS NOT NULL AND conclusive->>'at' >= $4`,
    [service, key.job_id, key.kind, since],
  );
  return Number(r.rows[0]?.n ?? 0) > 0;
}
