// verify's ledger (src/state/verify-ledger.ts) in a PostgreSQL state the team shares: one row per service,
// backup and file. A save is one transaction of INSERT ... ON CONFLICT: a known hash keeps its first-seen
// time (the row's, whoever wrote it first) and gets the later last-verified; different bytes never replace
// the reference (the row is left as it is), so two members verifying the same backup at once agree.
import { mergeEntry, type LedgerEntry, type LedgerRecord, type LedgerState } from './verify-ledger.js';
import { inTransaction, withState } from './pg.js';

interface Row {
  backup_id: string;
  file_name: string;
  sha256: string;
  bytes: string | number;
  first_seen: string;
  last_verified: string;
}

const entryOf = (r: Row): LedgerEntry => ({ sha256: r.sha256, bytes: Number(r.bytes), first_seen: r.first_seen, last_verified: r.last_verified });
const keyOf = (backupId: string, fileName: string) => `${backupId}/${fileName}`;

const UPSERT = `INSERT INTO backupctl.verify_ledger (service, backup_id, file_name, sha256, bytes, first_seen, last_verified) VALUES ($1, $2, $3, $4, $5, $6, $7)
  ON CONFLICT (service, backup_id, file_name) DO UPDATE SET
    first_seen = least(backupctl.verify_ledger.first_seen, EXCLUDED.first_seen),
    last_verified = greatest(backupctl.verify_ledger.last_verified, EXCLUDED.last_verified)
  WHERE backupctl.verify_ledger.sha256 = EXCLUDED.sha256`;

export class PgLedger implements LedgerState {
  private readonly changes = new Map<string, LedgerRecord>();

  private constructor(
    private readonly url: string,
    readonly service: string,
    private readonly known: Map<string, LedgerEntry>,
    private readonly timeoutMs?: number,
  ) {}

  /** The ledger of one service (of the given backups only, when named: a verify reads a few of many). */
  static async open(url: string, service: string, timeoutMs?: number, backupIds?: readonly string[]): Promise<PgLedger> {
    const r = await withState(
      url,
      (c) =>
        backupIds
          ? c.query<Row>('SELECT backup_id, file_name, sha256, bytes, first_seen, last_verified FROM backupctl.verify_ledger WHERE service = $1 AND backup_id = ANY($2)', [service, [...backupIds]])
          : c.query<Row>('SELECT backup_id, file_name, sha256, bytes, first_seen, last_verified FROM backupctl.verify_ledger WHERE service = $1', [service]),
      timeoutMs,
    );
    return new PgLedger(url, service, new Map(r.rows.map((row) => [keyOf(row.backup_id, row.file_name), entryOf(row)])), timeoutMs);
  }

  lookup(backupId: string, fileName: string): LedgerEntry | undefined {
    const key = keyOf(backupId, fileName);
    return this.changes.get(key)?.entry ?? this.known.get(key);
  }

  record(backupId: string, fileName: string, sha256: string, bytes: number, now: Date): void {
    const known = this.lookup(backupId, fileName);
    if (known && known.sha256 !== sha256) return;
    const entry = { sha256, bytes, first_seen: known?.first_seen ?? now.toISOString(), last_verified: now.toISOString() };
    this.changes.set(keyOf(backupId, fileName), { service: this.service, backup_id: backupId, file_name: fileName, entry });
  }

  async save(): Promise<void> {
    if (!this.changes.size) return;
    const records = [...this.changes.values()];
    await writePgLedger(this.url, records, this.timeoutMs);
    for (const r of records) this.known.set(keyOf(r.backup_id, r.file_name), mergeEntry(this.known.get(keyOf(r.backup_id, r.file_name)), r.entry));
    this.changes.clear();
  }
}

/** Every entry of every service in a state database (state migrate). */
export async function readPgLedger(url: string): Promise<LedgerRecord[]> {
  const r = await withState(url, (c) =>
    c.query<Row & { service: string }>('SELECT service, backup_id, file_name, sha256, bytes, first_seen, last_verified FROM backupctl.verify_ledger ORDER BY service, backup_id, file_name'),
  );
  return r.rows.map((row) => ({ service: row.service, backup_id: row.backup_id, file_name: row.file_name, entry: entryOf(row) }));
}

/** Merges entries into a state database in one transaction, in one order for every writer (no deadlock); the number given. */
export async function writePgLedger(url: string, records: readonly LedgerRecord[], timeoutMs?: number): Promise<number> {
  const sorted = [...records].sort((a, b) => cmp(a.service, b.service) || cmp(a.backup_id, b.backup_id) || cmp(a.file_name, b.file_name));
  await withState(
    url,
    (c) =>
      inTransaction(c, async () => {
        for (const r of sorted) await c.query(UPSERT, [r.service, r.backup_id, r.file_name, r.entry.sha256, r.entry.bytes, r.entry.first_seen, r.entry.last_verified]);
      }),
    timeoutMs,
  );
  return records.length;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
