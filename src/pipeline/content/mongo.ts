import { KINDS } from '../kinds.js';
import { MongoArchiveReader, type MongoArchiveSummary } from '../mongo-archive.js';
import type { DocumentWatcher, DocumentsRead } from '../types.js';
import { GuardedCheck, message, type ContentFinding } from './check.js';

/**
 * A mongodump archive, read by the one reader (src/pipeline/mongo-archive.ts): each document
 * it parsed goes to the sinks that ask (ContentSink.documents: restore-test's bson engine),
 * and, once it ended, what it found. Nobody reads the archive again.
 */
export class MongoCheck extends GuardedCheck {
  format = KINDS['mongo-archive'].format;
  private reader?: Promise<MongoArchiveReader>;
  private found?: MongoArchiveSummary;
  private live: DocumentWatcher[];

  constructor(watchers: readonly DocumentWatcher[] = []) {
    super();
    this.live = [...watchers];
  }

  /** A watcher that throws is dropped; the check goes on. */
  private guard(w: DocumentWatcher, f: () => void): void {
    if (!this.live.includes(w)) return;
    try {
      f();
    } catch {
      this.live = this.live.filter((x) => x !== w);
    }
  }

  private open(): Promise<MongoArchiveReader> {
    this.reader ??= MongoArchiveReader.create(
      this.live.length ? (ns, bytes) => {
        for (const w of [...this.live]) this.guard(w, () => w.document(ns, bytes));
      } : undefined,
    );
    return this.reader;
  }

  protected explain(err: unknown): string {
    return `mongodump archive: ${message(err)}`;
  }
  protected async take(chunk: Buffer): Promise<void> {
    (await this.open()).write(chunk);
  }
  protected async finish(): Promise<ContentFinding> {
    // An archive of no collection is whole: verify judges the bytes, restore-test judges emptiness (--allow-empty).
    const found = (await this.open()).finish(true);
    this.found = found;
    if (found.failure) throw new Error(found.failure);
    return { format: this.format, verdict: 'verified', entries: found.documents, content_bytes: found.bytes };
  }

  /** verify's finding; the sinks that took the documents hear how the reading ended, whole or not. */
  override async end(): Promise<ContentFinding> {
    const finding = await super.end();
    const f = this.found;
    const read: DocumentsRead = f
      ? { failure: f.failure, namespaces: f.namespaces.map((n) => ({ name: n.name, documents: n.documents })), bytes: f.bytes, serverVersion: f.serverVersion, warnings: f.warnings }
      : { failure: finding.reason ?? 'the archive could not be read', namespaces: [], bytes: 0, serverVersion: null, warnings: [] };
    this.closeWatchers(read);
    return finding;
  }

  /** The reading is over (or dropped on a restart: `stop`). */
  closeWatchers(read: DocumentsRead): void {
    for (const w of [...this.live]) this.guard(w, () => w.close(read));
    this.live = [];
  }

  stop(): void {
    this.live = [];
  }
}
