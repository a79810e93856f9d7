// The catalog (src/state/catalog.ts) and the anomalies accepted as the new normal (--ack) in a PostgreSQL
// state the team shares: one row per service and backup for a fingerprint, one per listing file (its
// gzip bytes and their sha256), one per acknowledged backup. A fingerprint and its listings are written
// in one transaction, so another member never reads a fingerprint whose listings are missing; two
// writers of the same backup each write a whole record and the later one stays (both read the same bytes).
//
// `ls`, `find`, `diff` and `anomalies` read a listing as a stream from a local file: the listings are
// written while a backup is read into a spool folder of this process (mode 0700 under the system's
// temporary folder, removed when the process ends), and fetched there from the database when read.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from 'pg';
import { oldestFirst, type Ack, type BackupFingerprint, type CatalogState, type ListingBytes } from './catalog.js';
import { inTransaction, withState } from './pg.js';
import { redactStateUrl } from '../config/state-url.js';

const SAFE_ID = /^[A-Za-z0-9._-]{1,100}$/;

let spoolRoot: string | undefined;

/** This process's spool folder (made on first use, removed at exit). */
function spool(): string {
  if (!spoolRoot) {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-catalog-'));
    spoolRoot = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return spoolRoot;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export class PgCatalog implements CatalogState {
  /** Backups whose listings are in the spool folder as the database holds them: the listing files' names. */
  private readonly fetched = new Map<string, Set<string>>();
  private readonly dir: string;

  constructor(
    private readonly url: string,
    readonly service: string,
    private readonly timeoutMs?: number,
  ) {
    this.dir = path.join(spool(), sha256(Buffer.from(service)).slice(0, 16));
  }

  get where(): string {
    return redactStateUrl(this.url);
  }

  private backupDir(backupId: string): string {
    if (!SAFE_ID.test(backupId)) throw new Error(`not a backup id: ${JSON.stringify(backupId)}`);
    return path.join(this.dir, backupId);
  }

  listingPath(backupId: string, index: number): string {
    return path.join(this.backupDir(backupId), `${index}.ndjson.gz`);
  }

  private use<T>(fn: (c: Client) => Promise<T>): Promise<T> {
    return withState(this.url, fn, this.timeoutMs);
  }

  async save(fp: BackupFingerprint): Promise<void> {
    const listings: ListingBytes[] = [];
    for (const f of fp.files) {
      if (!f.listing || !SAFE_ID.test(f.listing)) continue;
      const data = await readFile(path.join(this.backupDir(fp.backup_id), f.listing)).catch(() => undefined);
      if (data) listings.push({ name: f.listing, data });
    }
    await this.put(fp, listings);
    this.fetched.set(fp.backup_id, new Set(listings.map((l) => l.name)));
  }

  async put(fp: BackupFingerprint, listings: readonly ListingBytes[]): Promise<void> {
    await this.use((c) =>
      inTransaction(c, async () => {
        await c.query(
          `INSERT INTO backupctl.catalog_fingerprints (service, backup_id, job_id, created_at, fingerprint) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (service, backup_id) DO UPDATE SET job_id = EXCLUDED.job_id, created_at = EXCLUDED.created_at, fingerprint = EXCLUDED.fingerprint`,
          [this.service, fp.backup_id, fp.job_id, fp.created_at, JSON.stringify(fp)],
        );
        await c.query('DELETE FROM backupctl.catalog_listings WHERE service = $1 AND backup_id = $2', [this.service, fp.backup_id]);
        for (const l of listings) {
          await c.query('INSERT INTO backupctl.catalog_listings (service, backup_id, name, sha256, data) VALUES ($1, $2, $3, $4, $5)', [
            this.service,
            fp.backup_id,
            l.name,
            sha256(l.data),
            l.data,
          ]);
        }
      }),
    );
    this.fetched.delete(fp.backup_id);
  }

  async get(backupId: string): Promise<BackupFingerprint | undefined> {
    const r = await this.use((c) => c.query<{ fingerprint: BackupFingerprint }>('SELECT fingerprint FROM backupctl.catalog_fingerprints WHERE service = $1 AND backup_id = $2', [this.service, backupId]));
    const fp = r.rows[0]?.fingerprint;
    return fp?.version === 1 ? fp : undefined;
  }

  async ofJob(jobId: string): Promise<BackupFingerprint[]> {
    const r = await this.use((c) => c.query<{ fingerprint: BackupFingerprint }>('SELECT fingerprint FROM backupctl.catalog_fingerprints WHERE service = $1 AND job_id = $2', [this.service, jobId]));
    return oldestFirst(r.rows.map((x) => x.fingerprint).filter((fp) => fp?.version === 1));
  }

  async all(): Promise<BackupFingerprint[]> {
    const r = await this.use((c) => c.query<{ fingerprint: BackupFingerprint }>('SELECT fingerprint FROM backupctl.catalog_fingerprints WHERE service = $1', [this.service]));
    return oldestFirst(r.rows.map((x) => x.fingerprint).filter((fp) => fp?.version === 1));
  }

  async listingBytes(fp: BackupFingerprint): Promise<ListingBytes[]> {
    const r = await this.use((c) =>
      c.query<{ name: string; data: Buffer }>('SELECT name, data FROM backupctl.catalog_listings WHERE service = $1 AND backup_id = $2 ORDER BY name', [this.service, fp.backup_id]),
    );
    return r.rows;
  }

  async listings(fp: BackupFingerprint): Promise<Array<{ file: string; path: string }>> {
    const named = fp.files.filter((f) => f.listing && SAFE_ID.test(f.listing));
    if (!named.length) return [];
    let held = this.fetched.get(fp.backup_id);
    if (!held) {
      const dir = this.backupDir(fp.backup_id);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      held = new Set();
      for (const l of await this.listingBytes(fp)) {
        if (!SAFE_ID.test(l.name)) continue;
        await writeFile(path.join(dir, l.name), l.data, { mode: 0o600 });
        held.add(l.name);
      }
      this.fetched.set(fp.backup_id, held);
    }
    return named.filter((f) => held.has(f.listing!)).map((f) => ({ file: f.name, path: path.join(this.backupDir(fp.backup_id), f.listing!) }));
  }

  async remove(backupId: string): Promise<void> {
    await this.use((c) =>
      inTransaction(c, async () => {
        await c.query('DELETE FROM backupctl.catalog_listings WHERE service = $1 AND backup_id = $2', [this.service, backupId]);
        await c.query('DELETE FROM backupctl.catalog_fingerprints WHERE service = $1 AND backup_id = $2', [this.service, backupId]);
      }),
    );
    this.fetched.delete(backupId);
  }

  async acks(): Promise<Ack[]> {
    const r = await this.use((c) =>
      c.query<Ack>('SELECT backup_id, job_id, at, note FROM backupctl.anomaly_acks WHERE service = $1 ORDER BY at, backup_id', [this.service]),
    );
    return r.rows.map((a) => ({ backup_id: a.backup_id, job_id: a.job_id, at: a.at, note: a.note }));
  }

  async addAck(ack: Ack): Promise<void> {
    await this.use((c) =>
      c.query(
        `INSERT INTO backupctl.anomaly_acks (service, backup_id, job_id, at, note) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (service, backup_id) DO UPDATE SET job_id = EXCLUDED.job_id, at = EXCLUDED.at, note = EXCLUDED.note`,
        [this.service, ack.backup_id, ack.job_id, ack.at, ack.note],
      ),
    );
  }
}

/** The services that hold a catalog, fingerprints or acknowledgements, in a state database (state migrate). */
export async function pgCatalogServices(url: string): Promise<string[]> {
  const r = await withState(url, (c) =>
    c.query<{ service: string }>('SELECT service FROM backupctl.catalog_fingerprints UNION SELECT service FROM backupctl.anomaly_acks ORDER BY 1'),
  );
  return r.rows.map((x) => x.service);
}
