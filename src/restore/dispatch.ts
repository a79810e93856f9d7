// One file's RestoreSink, chosen from its bytes: gunzipped when they are gzip
// (node's gunzip checks every member's CRC-32 and length), sniffed from the
// first decompressed bytes (never from the name), then handed to the engine:
// mongo archive -> the bson walker, tar/zip -> extraction, SQL -> the SQL
// engines' seam (engines.ts). Bytes nobody restores (encrypted, unknown) are
// drained and said so: "not-restorable".
import { createGunzip, type Gunzip } from 'node:zlib';
import { UsageError } from '../errors.js';
import { DEFAULT_BOUNDS, gzipRatioRefusal } from '../pipeline/bounds.js';
import type { DumpKind, FileRestore, RestoreOptions, RestoreSink } from './types.js';

const HEAD = 4096;

export const KIND_WORDS: Record<DumpKind, string> = {
  mysql: 'a MySQL dump',
  'pg-plain': 'a PostgreSQL plain dump',
  'pg-custom': 'a PostgreSQL custom-format dump',
  'mongo-archive': 'a mongodump archive',
  tar: 'a tar archive',
  zip: 'a zip archive',
  unknown: 'data of a kind backupctl does not restore',
};

const isSql = (k: DumpKind) => k === 'mysql' || k === 'pg-plain' || k === 'pg-custom';

export function notRestorable(kind: DumpKind, message: string, warnings: string[] = []): FileRestore {
  return {
    kind,
    verdict: 'not-restorable',
    engine: null,
    database: null,
    tables: [],
    rows: 0,
    files: null,
    bytes: null,
    warnings: [message, ...warnings],
    failure: null,
    assertions: [],
    exec: null,
    restore_seconds: 0,
  };
}

export function failedRestore(kind: DumpKind, message: string): FileRestore {
  return { ...notRestorable(kind, message), verdict: 'failed', warnings: [], failure: { message } };
}

/** Drains bytes and answers "not restorable". */
class Drain implements RestoreSink {
  constructor(private readonly result: FileRestore) {}
  async write(): Promise<void> {}
  restart(): void {}
  async end(): Promise<FileRestore> {
    return this.result;
  }
  async abort(): Promise<void> {}
}

export interface DispatchOptions extends RestoreOptions {
  /** The backup has an encryption key: its bytes are not restorable here. */
  encrypted: boolean;
  /** A reason to stop the whole run (no engine: exit 15; a flag that does not fit the file: exit 2). */
  onFatal?: (err: unknown) => void;
}

/** Picks the engine for one file when its first bytes arrive. */
export class DispatchSink implements RestoreSink {
  private head: Buffer[] = [];
  private headLength = 0;
  private gunzip?: Gunzip;
  private pump?: Promise<void>;
  private gunzipError?: string;
  /** Decompressed head, before the kind is known. */
  private plainHead: Buffer[] = [];
  private plainLength = 0;
  private inner?: RestoreSink;
  private kind: DumpKind = 'unknown';
  private innerError?: unknown;
  private pending: Promise<void> = Promise.resolve();
  private gzip = false;
  /** Gzipped bytes given to gunzip: the ratio bound (BACKUPCTL_VERIFY_MAX_RATIO) is judged against them. */
  private compressed = 0;
  /** Bumped by restart(): work of an earlier attempt still under way checks it. */
  private generation = 0;
  /** The engine being made (a server starting): an abort waits for it, then stops it. */
  private creating?: Promise<RestoreSink>;

  constructor(private readonly o: DispatchOptions) {}

  /** The kind sniffed, once known. */
  get sniffed(): DumpKind {
    return this.kind;
  }

  async write(chunk: Buffer): Promise<void> {
    await this.pending;
    if (this.innerError) return;
    if (this.gunzip || this.inner || this.plainLength) return this.forward(chunk);
    this.head.push(chunk);
    this.headLength += chunk.length;
    if (this.headLength >= 2) await this.start();
  }

  private async start(): Promise<void> {
    const head = Buffer.concat(this.head);
    this.head = [];
    this.headLength = 0;
    if (head[0] === 0x1f && head[1] === 0x8b) {
      this.gzip = true;
      // 256 KB pieces (16 KB by default): each piece costs a trip through the engine's reader and its client pipe.
      const gunzip = createGunzip({ chunkSize: 256 * 1024 });
      this.gunzip = gunzip;
      // A restart() leaves this pump behind: it must not touch the next attempt's state.
      const generation = this.generation;
      const maxRatio = (this.o.bounds ?? DEFAULT_BOUNDS).maxGzipRatio;
      let inflated = 0;
      this.pump = (async () => {
        try {
          for await (const piece of gunzip as AsyncIterable<Buffer>) {
            if (generation !== this.generation) return;
            // verify's ratio bound, here too: a bomb stops feeding the engine (a SQL server, the extraction).
            inflated += piece.length;
            const bomb = gzipRatioRefusal(this.compressed, inflated, maxRatio);
            if (bomb) throw new Error(bomb.replace(/^gzip: /, ''));
            await this.plain(piece);
          }
        } catch (err) {
          if (generation === this.generation) this.gunzipError = `gzip: ${(err as Error).message}`;
        }
      })();
    }
    await this.forward(head);
  }

  private async forward(chunk: Buffer): Promise<void> {
    if (!this.gunzip) return this.plain(chunk);
    if (this.gunzipError || this.gunzip.destroyed) return;
    this.compressed += chunk.length;
    if (!this.gunzip.write(chunk)) {
      const g = this.gunzip;
      await new Promise<void>((resolve) => {
        const done = () => {
          for (const e of ['drain', 'close', 'error'] as const) g.off(e, done);
          resolve();
        };
        for (const e of ['drain', 'close', 'error'] as const) g.on(e, done);
      });
    }
  }

  /** Decompressed bytes. */
  private async plain(chunk: Buffer): Promise<void> {
    if (this.innerError) return;
    if (this.inner) return this.feed(chunk);
    this.plainHead.push(chunk);
    this.plainLength += chunk.length;
    if (this.plainLength >= HEAD) await this.choose();
  }

  private async feed(chunk: Buffer): Promise<void> {
    try {
      await this.inner!.write(chunk);
    } catch (err) {
      this.innerError = err;
    }
  }

  private async choose(): Promise<void> {
    const head = Buffer.concat(this.plainHead);
    this.plainHead = [];
    const { sniffDump } = await import('./sniff.js');
    // The bytes decide, not the record (issue 23 finding 5): a keyed backup whose bytes are a plain dump is restored.
    this.kind = sniffDump(head);
    try {
      this.creating = this.create(this.kind);
      this.inner = await this.creating;
    } catch (err) {
      // No engine (exit 15), or --assert on a file that is not SQL (exit 2): the whole run stops.
      this.innerError = err;
      this.inner = new Drain(notRestorable(this.kind, (err as Error).message));
      this.o.onFatal?.(err);
      return;
    }
    if (head.length) await this.feed(head);
  }

  private async create(kind: DumpKind): Promise<RestoreSink> {
    if (this.o.encrypted && kind === 'unknown') return new Drain(notRestorable('unknown', 'encrypted: the backup has an encryption key, its bytes cannot be restored here'));
    if (this.o.asserts.length && !isSql(kind)) {
      throw new UsageError(`--assert runs SQL in a restored database, but this backup holds ${KIND_WORDS[kind]}${kind === 'tar' || kind === 'zip' ? ': check it with --exec instead' : ''}`);
    }
    if (this.o.exec && isSql(kind)) {
      throw new UsageError(`--exec runs in an extracted file archive, but this backup holds ${KIND_WORDS[kind]}: check it with --assert instead`);
    }
    switch (kind) {
      case 'mongo-archive': {
        const { MongoArchiveSink } = await import('./mongo.js');
        return MongoArchiveSink.create({ allowEmpty: this.o.allowEmpty });
      }
      case 'tar':
      case 'zip': {
        const { FileArchiveSink } = await import('./files.js');
        return new FileArchiveSink(kind, this.o);
      }
      case 'mysql':
      case 'pg-plain':
      case 'pg-custom': {
        const { sqlRestoreSink } = await import('./engines.js');
        return sqlRestoreSink(kind, this.o);
      }
      default:
        return new Drain(notRestorable('unknown', `not restored: ${this.gzip ? 'gzip holding ' : ''}neither a SQL dump, a mongodump archive, a tar nor a zip`));
    }
  }

  restart(): void {
    this.generation++;
    const { inner, creating } = this;
    this.pending = (async () => {
      this.gunzip?.destroy();
      await this.pump?.catch(() => {});
      const dropped = inner ?? (await creating?.catch(() => undefined));
      if (dropped) await dropped.abort(new Error('restart')).catch(() => {});
    })();
    this.head = [];
    this.headLength = 0;
    this.gunzip = undefined;
    this.pump = undefined;
    this.gunzipError = undefined;
    this.plainHead = [];
    this.plainLength = 0;
    this.inner = undefined;
    this.creating = undefined;
    this.innerError = undefined;
    this.kind = 'unknown';
    this.gzip = false;
    this.compressed = 0;
  }

  /** Errors that must stop the run (no engine, a usage error), thrown from end(). */
  async end(): Promise<FileRestore> {
    await this.pending;
    if (this.headLength) await this.start();
    if (this.gunzip) {
      this.gunzip.end();
      await this.pump;
    }
    if (!this.inner && !this.innerError) await this.choose();
    if (this.innerError) throw this.innerError;
    const result = await this.inner!.end();
    if (this.gunzipError) {
      // The damaged gzip is the cause; what the engine then said is its consequence.
      const after = result.failure ? [`then: ${result.failure.message}`] : [];
      return { ...result, verdict: 'failed', failure: { message: this.gunzipError }, warnings: [...result.warnings, ...after] };
    }
    return result;
  }

  /** The pipeline's verdict reaches the engine (a file archive runs --exec only when the bytes passed). */
  async settle(result: FileRestore, passed: boolean): Promise<FileRestore> {
    const inner = this.inner;
    return inner?.settle ? inner.settle(result, passed && !this.gunzipError) : result;
  }

  async abort(reason?: unknown): Promise<void> {
    await this.pending.catch(() => {});
    this.gunzip?.destroy();
    await this.pump?.catch(() => {});
    const inner = this.inner ?? (await this.creating?.catch(() => undefined));
    await inner?.abort(reason).catch(() => {});
  }
}
