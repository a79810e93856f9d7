// restore-test's bson engine: a mongodump --archive, checked while it streams
// (structure checked, not restored: Debian packages no MongoDB server). The
// reading itself is the pipeline's (src/pipeline/mongo-archive.ts), the same
// verify applies to the kind "mongo-archive"; this sink turns what it found
// into restore-test's FileRestore (one "table" per collection).
import { MongoArchiveReader } from '../pipeline/mongo-archive.js';
import type { FileRestore, RestoreEngine, RestoreSink, TableRows } from './types.js';

/** Parses a mongodump archive pushed to it in chunks (decompressed). */
export class MongoArchiveSink implements RestoreSink {
  private reader: MongoArchiveReader;
  private started = 0;

  constructor(
    private readonly bson: typeof import('bson'),
    private readonly allowEmpty = false,
  ) {
    this.reader = new MongoArchiveReader(bson);
  }

  static async create(options: { allowEmpty?: boolean } = {}): Promise<MongoArchiveSink> {
    return new MongoArchiveSink(await import('bson'), options.allowEmpty);
  }

  async write(chunk: Buffer): Promise<void> {
    if (!this.started) this.started = performance.now();
    this.reader.write(chunk);
  }

  restart(): void {
    this.reader = new MongoArchiveReader(this.bson);
  }

  async abort(): Promise<void> {
    this.reader = new MongoArchiveReader(this.bson);
  }

  async end(): Promise<FileRestore> {
    const found = this.reader.finish(this.allowEmpty);
    const tables: TableRows[] = found.namespaces.map((n) => ({ table: n.name, expected: n.documents, restored: n.documents }));
    return {
      kind: 'mongo-archive',
      verdict: found.failure ? 'failed' : 'structure-checked',
      engine: { name: 'mongo-archive', runs: 'embedded', product: 'bson', version: null },
      database: null,
      tables,
      rows: found.documents,
      files: null,
      bytes: found.bytes,
      warnings: found.serverVersion ? [`dumped from MongoDB ${found.serverVersion}`, ...found.warnings] : found.warnings,
      failure: found.failure ? { message: `mongodump archive: ${found.failure}` } : null,
      assertions: [],
      exec: null,
      restore_seconds: this.started ? (performance.now() - this.started) / 1000 : 0,
    };
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
