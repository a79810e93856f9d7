// restore-test's bson engine: a mongodump --archive, checked while it streams
// (structure checked, not restored: Debian packages no MongoDB server). It
// parses nothing: the content stage's check reads the archive once
// (src/pipeline/mongo-archive.ts, the same verify applies to the kind
// "mongo-archive") and hands this sink each document it parsed
// (ContentSink.documents), then how the reading ended. This sink counts the
// documents per collection as they come, checks its counts against the reader's,
// and turns them into restore-test's FileRestore (one "table" per collection).
import { NO_COLLECTION } from '../pipeline/mongo-archive.js';
import type { DocumentWatcher, DocumentsRead } from '../pipeline/types.js';
import { emptyRestore, type FileRestore, type RestoreEngine, type RestoreSink, type TableRows } from './types.js';

/** Takes the documents of a mongodump archive as the content stage reads them. */
export class MongoArchiveSink implements RestoreSink {
  private started = 0;
  /** Documents taken, per collection, in the order they came. */
  private counts = new Map<string, number>();
  private read?: DocumentsRead;
  private ended!: Promise<void>;
  private endNow!: () => void;

  constructor(private readonly allowEmpty = false) {
    this.reset();
  }

  static async create(options: { allowEmpty?: boolean } = {}): Promise<MongoArchiveSink> {
    return new MongoArchiveSink(options.allowEmpty);
  }

  private reset(): void {
    this.counts = new Map();
    this.read = undefined;
    this.ended = new Promise((resolve) => (this.endNow = resolve));
  }

  readonly documents: DocumentWatcher = {
    document: (namespace) => {
      if (!this.started) this.started = performance.now();
      this.counts.set(namespace, (this.counts.get(namespace) ?? 0) + 1);
    },
    close: (read) => {
      this.read = read;
      this.endNow();
    },
  };

  async write(): Promise<void> {
    if (!this.started) this.started = performance.now();
  }

  restart(): void {
    this.endNow();
    this.reset();
  }

  async abort(): Promise<void> {
    this.endNow();
  }

  async end(): Promise<FileRestore> {
    // The check closes the reading once the last byte was read (whole, damaged or cut).
    await this.ended;
    const read = this.read ?? { failure: 'the content stage handed over no document (the archive was not read)', namespaces: [], bytes: 0, serverVersion: null, warnings: [] };
    let failure = read.failure;
    // What this sink counted must be what the reader counted: a document lost on the way is a failure, never hidden.
    const lost = read.namespaces.find((n) => (this.counts.get(n.name) ?? 0) !== n.documents);
    if (!failure && lost) failure = `${lost.name}: ${this.counts.get(lost.name) ?? 0} documents reached the engine, the archive holds ${lost.documents}`;
    if (!failure && !read.namespaces.length && !this.allowEmpty) failure = NO_COLLECTION;
    const tables: TableRows[] = read.namespaces.map((n) => ({ table: n.name, expected: n.documents, restored: this.counts.get(n.name) ?? 0 }));
    return emptyRestore('mongo-archive', {
      verdict: failure ? 'failed' : 'structure-checked',
      engine: { name: 'mongo-archive', runs: 'embedded', product: 'bson', version: null },
      tables,
      rows: tables.reduce((n, t) => n + (t.restored ?? 0), 0),
      bytes: read.bytes,
      warnings: read.serverVersion ? [`dumped from MongoDB ${read.serverVersion}`, ...read.warnings] : read.warnings,
      failure: failure ? { message: `mongodump archive: ${failure}` } : null,
      restore_seconds: this.started ? (performance.now() - this.started) / 1000 : 0,
    });
  }
}

/** The engine of a mongodump archive (registry.ts): parsed inside backupctl, never loaded into a MongoDB. */
export const mongoArchiveEngine: RestoreEngine = {
  id: 'mongo-archive',
  product: 'bson',
  kinds: ['mongo-archive'],
  placements: ['embedded'],
  userCheck: null,
  lists: 'collections',
  recipes: ['mongodb'],
  backsUp: 'a MongoDB database (checked, not restored)',
  does: () => 'parsed document by document and counted per collection (structure-only: not loaded)',
  open: (_kind, o) => MongoArchiveSink.create({ allowEmpty: o.allowEmpty }),
};
