// What route handlers share: the state, the clock, id makers, timers that
// close() can cancel, and the signer of download URLs.
import type { FileSigner } from './files.js';
import type { FileRecord, Store } from './store.js';
import type { BackupOutcome } from './types.js';
import { HOUR, createRng, uuidFrom, wholeSeconds, type Rng } from './util.js';

/** Signed URLs inside records stay valid this long after start; download answers get 1 hour. */
const RECORD_URL_LIFETIME = 7 * 24 * HOUR;
const DOWNLOAD_URL_LIFETIME = HOUR;

export class Runtime {
  /** Set once the API server listens. */
  baseUrl = '';
  filesUrl = '';
  /** Ids made at run time come from their own stream, so the seed's ids do not shift. */
  readonly rng: Rng = createRng(0x5eed_0002);
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  /** Start of the emulator on its own clock, the "now" the seed's ages are measured from. */
  readonly startedAt: number;
  /** How far the emulator's clock is ahead of the real one (0 unless started at a given instant). */
  private readonly clockOffset: number;

  constructor(
    readonly store: Store,
    readonly signer: FileSigner,
    readonly tickMs: number,
    readonly backupOutcome: BackupOutcome,
    /** The emulator's clock at start, epoch ms; the real clock when absent. It runs on in real time. */
    startAt?: number,
    /** How long a signed URL holds from when it is handed out (emulator --url-ttl); unset: the defaults above. */
    private readonly urlTtlMs?: number,
  ) {
    const real = Date.now();
    this.startedAt = wholeSeconds(startAt ?? real);
    this.clockOffset = startAt === undefined ? 0 : this.startedAt - real;
  }

  /** The emulator's clock, epoch ms. */
  clock(): number {
    return Date.now() + this.clockOffset;
  }

  /** The emulator's clock on a whole second, as the service stores times. */
  now(): number {
    return wholeSeconds(this.clock());
  }

  uuid(): string {
    return uuidFrom(this.rng);
  }

  /** Runs `task` after `ms` unless the emulator closed first. */
  later(ms: number, task: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      task();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  stop(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** The URL kept in a record's `files[].url`; made once so pages render the same every time. */
  recordFileUrl(ownerId: string, file: FileRecord): string {
    // With --url-ttl every answer hands out a URL that expires that long after it.
    if (this.urlTtlMs !== undefined) return this.signer.url(this.filesUrl, ownerId, file.name, Math.ceil((this.clock() + this.urlTtlMs) / 1000));
    file.url ??= this.signer.url(this.filesUrl, ownerId, file.name, (this.startedAt + RECORD_URL_LIFETIME) / 1000);
    return file.url;
  }

  /** A fresh URL valid for one hour, as POST /v1/backups/{id}/download gives. */
  downloadUrl(ownerId: string, file: FileRecord): string {
    if (this.urlTtlMs !== undefined) return this.signer.url(this.filesUrl, ownerId, file.name, Math.ceil((this.clock() + this.urlTtlMs) / 1000));
    return this.signer.url(this.filesUrl, ownerId, file.name, (this.now() + DOWNLOAD_URL_LIFETIME) / 1000);
  }
}
