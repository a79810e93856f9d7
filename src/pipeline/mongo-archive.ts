// How a mongodump --archive is read, once for everyone: verify's check of the
// kind "mongo-archive" (src/pipeline/content/mongo.ts) pushes the decoded bytes
// through this reader, and hands each document it parsed to the content sinks that
// ask (ContentSink.documents: restore-test's bson engine, src/restore/mongo.ts),
// which read none themselves. The
// format, as mongo-tools' archive package writes it:
//   magic 0x8199e26d (uint32 LE);
//   the prelude: a header document {version, server_version, tool_version, concurrent_collections},
//     one metadata document per collection {db, collection, metadata, size, type}, then a terminator;
//   the body: blocks, each a namespace header {db, collection, EOF: false, CRC} and the collection's
//     documents, then a terminator; a namespace ends with a header {EOF: true, CRC} and a terminator,
//     the CRC being CRC-64/ECMA of every document's bytes of that namespace;
//   a terminator is the int32 -1 (0xffffffff) where a document's length would be.
// Every document is parsed with the bson package (its length, its elements, UTF-8), counted per
// collection, and the CRCs are compared. Memory holds one document at a time (at most 16 MiB and a bit).
import type { Document } from 'bson';
import { Crc64 } from '../util/crc64.js';
import { MONGO_MAGIC } from './kinds.js';
import { parsing } from './parses.js';

/** BSON's own limit is 16 MiB; mongodump's metadata may go a little past it. */
const MAX_DOCUMENT = 16 * 1024 * 1024 + 16 * 1024;
const TERMINATOR = -1;

/** An archive of no collection, refused unless --allow-empty (restore-test's bson engine says it; verify takes it as whole). */
export const NO_COLLECTION = 'the archive holds no collection (give --allow-empty to accept an empty dump)';

type BsonLib = typeof import('bson');

export interface MongoNamespace {
  name: string;
  documents: number;
  crc: Crc64;
  closed: boolean;
  /** Announced in the prelude. */
  announced: boolean;
}

/** What the reader found once the archive ended. */
export interface MongoArchiveSummary {
  /** The first problem, or undefined when the archive is whole. */
  failure: string | undefined;
  namespaces: MongoNamespace[];
  documents: number;
  /** Bytes read. */
  bytes: number;
  serverVersion: string | null;
  warnings: string[];
}

/** Parses a mongodump archive pushed to it in chunks (decoded bytes). Never throws: the first problem is kept. */
export class MongoArchiveReader {
  private buffered: Buffer[] = [];
  private length = 0;
  private offset = 0;
  private state: 'magic' | 'prelude-header' | 'prelude' | 'header' | 'documents' | 'eof-terminator' = 'magic';
  private current?: MongoNamespace;
  private readonly namespaces = new Map<string, MongoNamespace>();
  private failure: string | undefined;
  private readonly warnings: string[] = [];
  private serverVersion: string | null = null;

  constructor(
    private readonly bson: BsonLib,
    /** Each document of a collection once parsed and counted (its bytes are the reader's: never keep them). */
    private readonly onDocument?: (namespace: string, bytes: Buffer) => void,
  ) {}

  static async create(onDocument?: (namespace: string, bytes: Buffer) => void): Promise<MongoArchiveReader> {
    return new MongoArchiveReader(await import('bson'), onDocument);
  }

  write(chunk: Buffer): void {
    if (this.failure) return;
    if (!this.offset && !this.length) parsing('mongodump');
    this.buffered.push(chunk);
    this.length += chunk.length;
    try {
      this.parse();
    } catch (err) {
      this.failure = `${(err as Error).message} (at byte ${this.offset})`;
      this.buffered = [];
      this.length = 0;
    }
  }

  /** The archive ended: whole, or where it stopped. An archive of no collection fails unless `allowEmpty`. */
  finish(allowEmpty: boolean): MongoArchiveSummary {
    let failure = this.failure;
    if (!failure) {
      if (this.length) failure = `${this.length} bytes left over at the end (a cut document)`;
      else if (this.state === 'magic' || this.state.startsWith('prelude')) failure = 'the archive ends inside its prelude';
      else if (this.state === 'documents') failure = `the archive ends inside ${this.current?.name ?? 'a namespace'}'s documents`;
      else {
        const open = [...this.namespaces.values()].filter((n) => !n.closed).map((n) => n.name);
        if (open.length) failure = `the archive ends before the end of ${open.join(', ')}`;
        else if (!this.namespaces.size && !allowEmpty) failure = NO_COLLECTION;
      }
    }
    const namespaces = [...this.namespaces.values()];
    return {
      failure,
      namespaces,
      documents: namespaces.reduce((n, ns) => n + ns.documents, 0),
      bytes: this.offset,
      serverVersion: this.serverVersion,
      warnings: [...this.warnings],
    };
  }

  /** The next `n` bytes when they have all arrived (consumed), else undefined. */
  private take(n: number): Buffer | undefined {
    if (this.length < n) return undefined;
    const all = this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered, this.length);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.buffered = rest.length ? [rest] : [];
    this.length = rest.length;
    this.offset += n;
    return out;
  }

  private peekInt32(): number | undefined {
    if (this.length < 4) return undefined;
    if (this.buffered[0]!.length < 4) this.buffered = [Buffer.concat(this.buffered, this.length)];
    return this.buffered[0]!.readInt32LE(0);
  }

  /** The next document's bytes (or TERMINATOR), when it has arrived whole. */
  private nextDocument(): Buffer | typeof TERMINATOR | undefined {
    const size = this.peekInt32();
    if (size === undefined) return undefined;
    if (size === TERMINATOR) {
      this.take(4);
      return TERMINATOR;
    }
    if (size < 5 || size > MAX_DOCUMENT) throw new Error(`a BSON document of ${size} bytes cannot be`);
    return this.take(size);
  }

  private deserialize(bytes: Buffer): Document {
    try {
      return this.bson.deserialize(bytes, { useBigInt64: true, validation: { utf8: true } });
    } catch (err) {
      throw new Error(`a document does not parse: ${(err as Error).message}`);
    }
  }

  private parse(): void {
    for (;;) {
      if (this.state === 'magic') {
        const magic = this.take(4);
        if (!magic) return;
        if (magic.readUInt32LE(0) !== MONGO_MAGIC) throw new Error('not a mongodump archive (no magic number)');
        this.state = 'prelude-header';
        continue;
      }
      const doc = this.nextDocument();
      if (doc === undefined) return;
      switch (this.state) {
        case 'prelude-header': {
          if (doc === TERMINATOR) throw new Error('the archive prelude has no header');
          const header = this.deserialize(doc);
          this.serverVersion = typeof header.server_version === 'string' ? header.server_version : null;
          this.state = 'prelude';
          break;
        }
        case 'prelude': {
          if (doc === TERMINATOR) {
            this.state = 'header';
            break;
          }
          const meta = this.deserialize(doc);
          if (typeof meta.db !== 'string' || typeof meta.collection !== 'string') throw new Error('a collection entry of the prelude has no db or collection');
          const name = `${meta.db}.${meta.collection}`;
          this.namespaces.set(name, { name, documents: 0, crc: new Crc64(), closed: false, announced: true });
          break;
        }
        case 'header': {
          if (doc === TERMINATOR) throw new Error('a terminator where a namespace header was expected');
          const h = this.deserialize(doc);
          if (typeof h.db !== 'string' || typeof h.collection !== 'string') throw new Error('a namespace header has no db or collection');
          const name = `${h.db}.${h.collection}`;
          let ns = this.namespaces.get(name);
          if (!ns) {
            ns = { name, documents: 0, crc: new Crc64(), closed: false, announced: false };
            this.namespaces.set(name, ns);
            this.warnings.push(`${name}: not announced in the archive's prelude`);
          }
          if (ns.closed) throw new Error(`${name}: data after the namespace's end`);
          if (h.EOF === true) {
            const crc = typeof h.CRC === 'bigint' ? h.CRC : typeof h.CRC === 'number' ? BigInt(h.CRC) : undefined;
            if (crc !== undefined && crc !== 0n && crc !== ns.crc.signed()) {
              throw new Error(`${name}: the CRC of its documents does not match the one the archive states`);
            }
            ns.closed = true;
            this.state = 'eof-terminator';
          } else {
            this.current = ns;
            this.state = 'documents';
          }
          break;
        }
        case 'eof-terminator':
          if (doc !== TERMINATOR) throw new Error('no terminator after a namespace end');
          this.state = 'header';
          break;
        case 'documents': {
          if (doc === TERMINATOR) {
            this.state = 'header';
            this.current = undefined;
            break;
          }
          this.deserialize(doc);
          this.current!.documents++;
          this.current!.crc.update(doc);
          this.onDocument?.(this.current!.name, doc);
          break;
        }
      }
    }
  }
}
