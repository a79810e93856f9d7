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

export class Ledger {
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
