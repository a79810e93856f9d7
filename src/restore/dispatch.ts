// One file's restore engine, chosen by the kind the pipeline's content stage
// sniffed: the registry (registry.ts) names the engine that takes the kind
// (PostgreSQL, MySQL/MariaDB, the mongodump walker, file extraction, ...), and
// its open() makes the sink. The DispatchSink is a ContentSink: it gets the
// bytes already decoded (the content stage inflated the gzip once, its CRCs
// checked, the bounds applied), never the raw ones, and sniffs nothing itself;
// what the stage parsed (an archive's members, a mongodump's documents, a SQL
// dump's statements) reaches the engine that asks, which parses nothing again.
// Kinds no engine takes (encrypted, a checksum list, unknown bytes) are
// drained and said so: "not-restorable".
import { UsageError } from '../errors.js';
import { KINDS, type ContentKind } from '../pipeline/kinds.js';
import type { Content, ContentSink, DocumentWatcher, EntryWatcher, StatementWatcher } from '../pipeline/types.js';
import { ENGINES, engineOf } from './registry.js';
import { emptyRestore, type FileRestore, type RestoreOptions, type RestoreSink } from './types.js';

/** How a message names each kind ("a MySQL dump"): the registry's words. */
export const KIND_WORDS: Record<ContentKind, string> = Object.fromEntries(Object.entries(KINDS).map(([k, spec]) => [k, spec.words])) as Record<ContentKind, string>;

export function notRestorable(kind: ContentKind, message: string, warnings: string[] = []): FileRestore {
  return emptyRestore(kind, { verdict: 'not-restorable', warnings: [message, ...warnings] });
}

export function failedRestore(kind: ContentKind, message: string): FileRestore {
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
  /** The backup has an encryption key: bytes of no known kind are taken as encrypted. */
  encrypted: boolean;
  /** A reason to stop the whole run (no engine: exit 15; a flag that does not fit the file: exit 2). */
  onFatal?: (err: unknown) => void;
}

/** Why nobody restores bytes of `content`'s kind. */
function notRestorableReason(content: Content): string {
  const spec = KINDS[content.kind];
  if (spec.encrypted) return `encrypted (${spec.words}): its bytes cannot be restored here`;
  if (content.kind === 'unknown' && content.encrypted) return 'encrypted: the backup has an encryption key, its bytes cannot be restored here';
  if (content.kind === 'sha256sums') return `not restored: ${spec.words} (verify checks the backup's other files against it)`;
  return `not restored: ${content.gzip ? 'gzip holding ' : ''}none of what restore-test restores (${[...new Set(ENGINES.flatMap((e) => e.kinds.map((k) => KIND_WORDS[k])))].join(', ')})`;
}

/** Picks the engine for one file once the content stage has named its kind; the decoded bytes then go to it. */
export class DispatchSink implements ContentSink<FileRestore> {
  private inner?: RestoreSink;
  private kind: ContentKind = 'unknown';
  private innerError?: unknown;
  private pending: Promise<void> = Promise.resolve();
  /** The engine being made (a server starting): an abort waits for it, then stops it. */
  private creating?: Promise<RestoreSink>;

  constructor(private readonly o: DispatchOptions) {}

  /** The kind sniffed, once known. */
  get sniffed(): ContentKind {
    return this.kind;
  }

  async open(content: Content): Promise<void> {
    await this.pending;
    this.kind = content.kind;
    try {
      this.creating = this.create(content);
      this.inner = await this.creating;
    } catch (err) {
      // No engine (exit 15), or --assert on a file that is not SQL (exit 2): the whole run stops.
      this.innerError = err;
      this.inner = new Drain(notRestorable(this.kind, (err as Error).message));
      this.o.onFatal?.(err);
    }
  }

  /**
   * A SQL dump's statements, read once by the content stage for the catalog and the engine alike
   * (the engine reads none itself). Asked after open(); an engine's error is kept like write()'s.
   */
  get statements(): StatementWatcher | undefined {
    const inner = this.inner;
    const watcher = inner?.statements;
    if (!watcher || this.innerError) return undefined;
    return {
      events: async (batch) => {
        if (this.innerError || this.inner !== inner) return;
        try {
          await watcher.events(batch);
        } catch (err) {
          this.innerError = err;
        }
      },
    };
  }

  /** A tar's or zip's members with their bytes, as the check walks them (the file archive engine). Asked after open(). */
  get entries(): EntryWatcher | undefined {
    return this.innerError ? undefined : this.inner?.entries;
  }

  /** A mongodump archive's documents, as the check reads them (the bson engine). Asked after open(). */
  get documents(): DocumentWatcher | undefined {
    return this.innerError ? undefined : this.inner?.documents;
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.innerError || !this.inner) return;
    try {
      await this.inner.write(chunk);
    } catch (err) {
      this.innerError = err;
    }
  }

  private async create(content: Content): Promise<RestoreSink> {
    const kind = content.kind;
    const engine = engineOf(kind);
    // Encrypted bytes and a backup's own checksum list are no reason to refuse --assert or --exec.
    const companion = KINDS[kind].encrypted || kind === 'sha256sums' || (kind === 'unknown' && content.encrypted);
    if (companion) return new Drain(notRestorable(kind, notRestorableReason(content)));
    if (this.o.asserts.length && engine?.userCheck !== 'assert') {
      throw new UsageError(`--assert runs SQL in a restored database, but this backup holds ${KIND_WORDS[kind]}${engine?.userCheck === 'exec' ? ': check it with --exec instead' : ''}`);
    }
    if (this.o.exec && engine?.userCheck === 'assert') {
      throw new UsageError(`--exec runs in an extracted file archive, but this backup holds ${KIND_WORDS[kind]}: check it with --assert instead`);
    }
    if (!engine) return new Drain(notRestorable(kind, notRestorableReason(content)));
    return engine.open(kind, this.o, content);
  }

  restart(): void {
    const { inner, creating } = this;
    this.pending = (async () => {
      const dropped = inner ?? (await creating?.catch(() => undefined));
      if (dropped) await dropped.abort(new Error('restart')).catch(() => {});
    })();
    this.inner = undefined;
    this.creating = undefined;
    this.innerError = undefined;
    this.kind = 'unknown';
  }

  /** Errors that must stop the run (no engine, a usage error), thrown from end(). */
  async end(): Promise<FileRestore> {
    await this.pending;
    if (this.innerError) throw this.innerError;
    // Never opened: the content stage was not reached (nothing to restore).
    if (!this.inner) return notRestorable(this.kind, 'not restored: no bytes');
    return this.inner.end();
  }

  /** The pipeline's verdict reaches the engine (a file archive runs --exec only when the bytes passed). */
  async settle(result: FileRestore, passed: boolean): Promise<FileRestore> {
    const inner = this.inner;
    return inner?.settle ? inner.settle(result, passed) : result;
  }

  async abort(reason?: unknown): Promise<void> {
    await this.pending.catch(() => {});
    const inner = this.inner ?? (await this.creating?.catch(() => undefined));
    await inner?.abort(reason).catch(() => {});
  }
}
