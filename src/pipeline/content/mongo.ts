import { KINDS } from '../kinds.js';
import { MongoArchiveReader } from '../mongo-archive.js';
import { GuardedCheck, message, type ContentFinding } from './check.js';

/** A mongodump archive, read by the one reader restore-test's bson engine uses too. */
export class MongoCheck extends GuardedCheck {
  format = KINDS['mongo-archive'].format;
  private reader?: MongoArchiveReader;
  protected explain(err: unknown): string {
    return `mongodump archive: ${message(err)}`;
  }
  protected async take(chunk: Buffer): Promise<void> {
    this.reader ??= await MongoArchiveReader.create();
    this.reader.write(chunk);
  }
  protected async finish(): Promise<ContentFinding> {
    this.reader ??= await MongoArchiveReader.create();
    // An archive of no collection is whole: verify judges the bytes, restore-test judges emptiness (--allow-empty).
    const found = this.reader.finish(true);
    if (found.failure) throw new Error(found.failure);
    return { format: this.format, verdict: 'verified', entries: found.documents, content_bytes: found.bytes };
  }
}
