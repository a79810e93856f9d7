// The verify ledger (verify and restore-test read it): the sha256 of every file verified, with when it was first
// seen, so a later verify that reads different bytes for the same file can say
// "changed since <date>" (bit rot or tampering in storage). One JSON file in
// the state folder, mode 0600, written atomically under a lock; a broken
// ledger is reported and never overwritten. What a verify concluded about a
// backup is a mark (src/state/marks.ts); the per-job `jobs` section of older
// versions named neither the service nor the backup and is dropped at the next save.
// Files are kept per service (the marks' key: base URL and account), as two services may
// hold backups of the same id; an entry of older versions, keyed by backup and name
// alone, is still read as the reference until this service records its own.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';

export interface LedgerEntry {
  sha256: string;
  bytes: number;
  /** When these bytes were first verified (ISO 8601). */
  first_seen: string;
  last_verified: string;
}

interface LedgerData {
  version: 1;
  /** Entries of older versions, keyed `<backup>/<file>` with no service: read, never written. */
  files: Record<string, LedgerEntry>;
  /** service key (src/state/marks.ts serviceKey) -> `<backup>/<file>` -> entry. */
  services: Record<string, Record<string, LedgerEntry>>;
}

export const LEDGER_FILE = 'verify-ledger.json';

/** THE ledger key of a file: its backup and its name (`<backup>/<file>`). */
function ledgerKey(backupId: string, fileName: string): string {
  return `${backupId}/${fileName}`;
}

function empty(): LedgerData {
  return { version: 1, files: {}, services: {} };
}

async function readLedger(file: string): Promise<LedgerData> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return empty();
    throw new ConfigError(`cannot read the verify ledger ${file}: ${(err as Error).message}`);
  }
  try {
    const data = JSON.parse(text) as Partial<LedgerData>;
    if (data?.version !== 1 || typeof data.files !== 'object' || data.files === null) throw new Error('not a ledger of version 1');
    const services = data.services ?? {};
    if (typeof services !== 'object' || services === null || Array.isArray(services)) throw new Error('"services" is not an object');
    return { version: 1, files: data.files, services };
  } catch (err) {
    throw new ConfigError(`the verify ledger ${file} is broken (${(err as Error).message}); it was left as it is`, [
      '  Move it aside to start a new ledger (the "changed since" history is then lost).',
    ]);
  }
}

/**
 * verify's ledger of one service, whichever backend keeps it (src/state/open.ts picks one): this folder's
 * verify-ledger.json (Ledger) or a PostgreSQL state the team shares (src/state/pg-ledger.ts). What is read is
 * read when opened; `record` notes bytes read now, `save` writes them (a known hash keeps its first-seen time;
 * different bytes never replace the reference).
 */
export interface LedgerState {
  readonly service: string;
  lookup(backupId: string, fileName: string): LedgerEntry | undefined;
  record(backupId: string, fileName: string, sha256: string, bytes: number, now: Date): void;
  save(): Promise<void>;
}

/** One file's entry of one service (what `state migrate` copies). */
export interface LedgerRecord {
  service: string;
  backup_id: string;
  file_name: string;
  entry: LedgerEntry;
}

/** The ledger key split back: the backup id holds no "/" (it names a folder), the file name may. */
function splitKey(key: string): { backup_id: string; file_name: string } | undefined {
  const i = key.indexOf('/');
  return i > 0 ? { backup_id: key.slice(0, i), file_name: key.slice(i + 1) } : undefined;
}

const isEntry = (e: unknown): e is LedgerEntry =>
  typeof e === 'object' && e !== null && typeof (e as LedgerEntry).sha256 === 'string' && typeof (e as LedgerEntry).first_seen === 'string';

/** Every entry of every service in a state folder's ledger (entries of older versions, which name no service, are not copied). */
export async function readFolderLedger(dir: string): Promise<LedgerRecord[]> {
  const data = await readLedger(path.join(dir, LEDGER_FILE));
  const out: LedgerRecord[] = [];
  for (const [service, files] of Object.entries(data.services)) {
    for (const [key, entry] of Object.entries(files ?? {})) {
      const k = splitKey(key);
      if (k && isEntry(entry)) out.push({ service, ...k, entry });
    }
  }
  return out;
}

/** Merges entries into a state folder's ledger under its lock (a known hash keeps the earlier first-seen; other bytes never replace it). */
export async function writeFolderLedger(dir: string, records: readonly LedgerRecord[]): Promise<number> {
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((err: Error) => {
    throw new ConfigError(`cannot create the state folder ${dir}: ${err.message}`);
  });
  const file = path.join(dir, LEDGER_FILE);
  const [{ withFileLock }, { writeFileAtomic }] = await Promise.all([import('../config/lock.js'), import('../output/output-file.js')]);
  return withFileLock(file, async () => {
    const current = await readLedger(file);
    for (const r of records) {
      const own = (current.services[r.service] ??= {});
      const key = ledgerKey(r.backup_id, r.file_name);
      own[key] = mergeEntry(own[key], r.entry);
    }
    await writeFileAtomic(file, `${JSON.stringify(current, null, 1)}\n`, { mode: 0o600, failure: (err) => new ConfigError(`cannot write the verify ledger ${file}: ${err.message}`) });
    return records.length;
  });
}

/** Two entries of one file as one: the same bytes keep the earlier first-seen and the later last-verified; other bytes, the earlier reference. */
export function mergeEntry(known: LedgerEntry | undefined, next: LedgerEntry): LedgerEntry {
  if (!known) return next;
  if (known.sha256 !== next.sha256) return known.first_seen <= next.first_seen ? known : next;
  return {
    sha256: known.sha256,
    bytes: known.bytes,
    first_seen: known.first_seen <= next.first_seen ? known.first_seen : next.first_seen,
    last_verified: known.last_verified >= next.last_verified ? known.last_verified : next.last_verified,
  };
}

export class Ledger implements LedgerState {
  private readonly changes = new Map<string, LedgerEntry>();

  private constructor(
    readonly file: string,
    /** The service whose files this run reads and records (src/state/marks.ts serviceKey). */
    readonly service: string,
    private data: LedgerData,
  ) {}

  static async open(dir: string, service: string): Promise<Ledger> {
    const file = path.join(dir, LEDGER_FILE);
    return new Ledger(file, service, await readLedger(file));
  }

  /** This service's entry, else one of an older version that named no service. */
  lookup(backupId: string, fileName: string): LedgerEntry | undefined {
    return this.entry(ledgerKey(backupId, fileName));
  }

  private entry(key: string): LedgerEntry | undefined {
    return this.changes.get(key) ?? this.data.services[this.service]?.[key] ?? this.data.files[key];
  }

  /** Notes bytes read now. A hash already known keeps its first-seen time; a different one is not recorded (the old one stays the reference). */
  record(backupId: string, fileName: string, sha256: string, bytes: number, now: Date): void {
    const key = ledgerKey(backupId, fileName);
    const known = this.entry(key);
    if (known && known.sha256 !== sha256) return;
    this.changes.set(key, { sha256, bytes, first_seen: known?.first_seen ?? now.toISOString(), last_verified: now.toISOString() });
  }

  /** Re-reads the file under its lock, adds this run's changes and renames a new file over it. */
  async save(): Promise<void> {
    if (!this.changes.size) return;
    const dir = path.dirname(this.file);
    await mkdir(dir, { recursive: true, mode: 0o700 }).catch((err: Error) => {
      throw new ConfigError(`cannot create the state folder ${dir}: ${err.message}`);
    });
    const [{ withFileLock }, { writeFileAtomic }] = await Promise.all([import('../config/lock.js'), import('../output/output-file.js')]);
    await withFileLock(this.file, async () => {
      const current = await readLedger(this.file);
      const own = (current.services[this.service] ??= {});
      for (const [key, entry] of this.changes) {
        const known = own[key] ?? current.files[key];
        // Another run recorded other bytes meanwhile: its first record stays the reference.
        if (known && known.sha256 !== entry.sha256) continue;
        own[key] = { ...entry, first_seen: known?.first_seen ?? entry.first_seen };
      }
      await writeFileAtomic(this.file, `${JSON.stringify(current, null, 1)}\n`, {
        mode: 0o600,
        failure: (err) => new ConfigError(`cannot write the verify ledger ${this.file}: ${err.message}`),
      });
      this.data = current;
    });
  }
}
