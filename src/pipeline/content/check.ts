// What every check of the content stage is (src/pipeline/content/stage.ts): bytes
// in, a finding out. One check per CheckName of the registry (src/pipeline/kinds.ts),
// each in its own file here:
//   tar.ts          every header checksum (tar-stream, old v7 headers too), the entries, their total size, the end blocks;
//   zip.ts          the central directory and the CRC-32 of every entry (yauzl), see ZIP_MEMORY_LIMIT;
//   sql-dump.ts     the end marker mysqldump or pg_dump writes last (when the dump opens with the banner that promises it);
//   pg-custom.ts    pg_dump -Fc: its header, its table of contents, and every data block that announces, whole;
//   mongo.ts        every BSON document parsed, each collection's CRC-64 (src/pipeline/mongo-archive.ts);
//   sha256sums.ts   every line "<sha256>  <name>" (a backup's own .sha256 / SHA256SUMS: the
//                   pipeline then checks the backup's other files against it);
//   opaque.ts       encrypted: an OpenSSL `enc` ("Salted__"), OpenPGP or age header: size and hash only;
//                   opaque: nothing, "not inspected" ("encrypted" when the record names an encryption key).
// The bytes decide, never the record: a plain tar.gz in a backup whose record
// has an encryption_key is checked in full.
// Decompression bombs are bounded (InspectBounds, each with an environment
// variable to raise it, see docs/verify.md): overlapping zip entries are
// refused, a zip's entries and inflated bytes are capped, and a gzip may not
// expand past a ratio (gzip.ts). Every long loop watches `signal` (Ctrl-C, SIGTERM).
// A check never throws: the first problem is kept as the reason, later bytes are ignored.
import type { Readable, Writable } from 'node:stream';
import { DEFAULT_BOUNDS, type InspectBounds } from '../bounds.js';

export type ContentVerdict = 'verified' | 'not-inspected' | 'encrypted' | 'failed';

export interface ContentFinding {
  /** What the bytes are: tar.gz, tar, gzip, zip, mysqldump.gz, pg_dump, encrypted, data, ... */
  format: string;
  verdict: ContentVerdict;
  reason?: string;
  /** Entries of an archive (tar, zip). */
  entries?: number;
  /** Total size of an archive's entries, or of a gzip's decompressed bytes. */
  content_bytes?: number;
  /** A sha256 list: name as listed -> sha256 (lower case). */
  sums?: Map<string, string>;
}

export interface Check {
  write(chunk: Buffer): Promise<void>;
  end(): Promise<ContentFinding>;
}

export interface InspectOptions {
  /** The record names an encryption key: bytes of no known format are taken as "encrypted", not "not inspected". */
  encrypted?: boolean;
  bounds?: Partial<InspectBounds>;
  /** Aborted on Ctrl-C / SIGTERM: every long loop stops. */
  signal?: AbortSignal;
  /**
   * Reads a byte range of the file again (a zip past ZIP_MEMORY_LIMIT); without
   * it such a zip is checked as far as its central directory can be found.
   */
  readRange?: (start: number, end: number) => Readable;
  /** Total length, for a zip read by ranges. */
  totalBytes?: () => number;
  /** Bytes a zip is held in memory up to; beyond it, readRange. */
  zipMemoryLimit?: number;
}

export function boundsOf(options: InspectOptions): InspectBounds {
  return { ...DEFAULT_BOUNDS, ...options.bounds };
}

/** Lets timers, signals and I/O run between long stretches of work. */
export const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

export function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new Error('interrupted');
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Resolves when `stream` can take more, or has failed or closed (its own listeners record why). */
export function drained(stream: Writable | NodeJS.EventEmitter): Promise<void> {
  if ((stream as { destroyed?: boolean }).destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const events = ['drain', 'close', 'error'] as const;
    const done = () => {
      for (const e of events) stream.off(e, done);
      resolve();
    };
    for (const e of events) stream.on(e, done);
  });
}

/** Keeps the first failure; later writes are ignored. */
export abstract class GuardedCheck implements Check {
  protected failure?: string;
  abstract readonly format: string;
  protected abstract take(chunk: Buffer): Promise<void>;
  protected abstract finish(): Promise<ContentFinding>;
  protected abstract explain(err: unknown): string;

  async write(chunk: Buffer): Promise<void> {
    if (this.failure !== undefined) return;
    try {
      await this.take(chunk);
    } catch (err) {
      this.failure ??= this.explain(err);
    }
  }

  async end(): Promise<ContentFinding> {
    if (this.failure === undefined) {
      try {
        const found = await this.finish();
        if (this.failure === undefined) return found;
      } catch (err) {
        this.failure ??= this.explain(err);
      }
    }
    return { format: this.format, verdict: 'failed', reason: this.failure };
  }
}
