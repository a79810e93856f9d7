// The content stage of the read pipeline (issue 31 §1), and verify's checks.
// The raw bytes of a file (hashed beside this, in src/pipeline/read.ts) come in; a gzip is
// inflated ONCE here (zlib checks the CRC-32 and length of every member,
// concatenated members too; the ratio bound refuses a bomb); the ONE sniffer
// (src/pipeline/kinds.ts) names the kind of the first decoded bytes; then the
// decoded bytes go, side by side, to that kind's check and to the content
// sinks (restore-test's engine): nobody inflates or sniffs again. What the
// check parses it hands to the sinks that ask: a tar's or zip's members with
// their bytes (ContentSink.entries), a mongodump archive's documents
// (ContentSink.documents), a SQL dump's statements (ContentSink.statements,
// read here once for them): nobody parses the bytes again either.
// The checks, one per CheckName of the registry, each in its own file beside
// this one (check.ts lists them).
import { createGunzip, type Gunzip } from 'node:zlib';
import { KINDS, SNIFF_BYTES, encryptionHeader, isGzip, sniffContent, type CheckName, type ContentKind } from '../kinds.js';
import type { Content, ContentSink, DocumentWatcher } from '../types.js';
import { writeAll } from '../fan.js';
import { gzipRatioRefusal } from '../bounds.js';
import { boundsOf, drained, stopIfAborted, type Check, type ContentFinding, type InspectOptions } from './check.js';
import { gzipReason } from './gzip.js';
import { MongoCheck } from './mongo.js';
import { OpaqueCheck } from './opaque.js';
import { PgCustomCheck } from './pg-custom.js';
import { Sha256ListCheck } from './sha256sums.js';
import { DumpCheck } from './sql-dump.js';
import { Statements } from './statements.js';
import { TarCheck } from './tar.js';
import { Walk } from './walk.js';
import { ZipCheck } from './zip.js';

/** The check for a whole file. */
export function inspect(options: InspectOptions = {}): ContentStage {
  return new ContentStage(options);
}

/** The checks verify has, by the name the registry gives (src/pipeline/kinds.ts): one per CheckName. */
const CHECKS: Record<CheckName, (kind: ContentKind, at: { options: InspectOptions; gzip: boolean; head: Buffer; walk?: Walk; documents: DocumentWatcher[] }) => Check> = {
  tar: (_, at) => new TarCheck(at.walk),
  // Inside a gzip the file's own byte ranges are not the zip's: held in memory, up to its limit.
  zip: (_, at) => new ZipCheck(at.gzip ? { ...at.options, readRange: undefined } : at.options, at.walk),
  'sql-dump': (kind) => new DumpCheck(kind),
  'pg-custom': () => new PgCustomCheck(),
  'mongo-archive': (_, at) => new MongoCheck(at.documents),
  sha256sums: () => new Sha256ListCheck(),
  encrypted: (kind, at) => new OpaqueCheck(KINDS[kind].format, 'encrypted', `encrypted (${encryptionHeader(at.head)?.what ?? kind}): size and hash only`),
  opaque: (kind, at) => {
    if (kind === 'unknown' && !at.gzip && at.options.encrypted) {
      return new OpaqueCheck('data', 'encrypted', 'no known format, and the record names an encryption key: taken as encrypted, size and hash only');
    }
    return new OpaqueCheck(KINDS[kind].format, 'not-inspected', kind === 'unknown' ? 'no known format: size and hash only' : undefined);
  },
};

/**
 * The content stage of one file: raw bytes in; a gzip inflated once (its
 * CRCs, the ratio bound); the kind sniffed once from the first decoded bytes;
 * the decoded bytes to the kind's check and to every content sink at once
 * (waiting for the slowest: backpressure). end() gives verify's finding; the
 * sinks' own results are theirs (read.ts ends them). A sink that throws is
 * dropped (its error kept in `failed`), the check goes on.
 */
export class ContentStage implements Check {
  /** Content sinks whose open or write threw, by index, with the error. */
  readonly failed = new Map<number, unknown>();
  /** The kind sniffed, once known. */
  kind?: ContentKind;
  private rawHead: Buffer[] = [];
  private rawLength = 0;
  private gzip = false;
  private gunzip?: Gunzip;
  private pump?: Promise<void>;
  private gzipFailure?: string;
  private compressed = 0;
  private decoded = 0;
  private head: Buffer[] = [];
  private headLength = 0;
  private check?: Check;
  /** The members of a tar or zip, handed to the sinks that ask (ContentSink.entries) as the check walks them. */
  private walk?: Walk;
  /** The statements of a SQL dump, read once for the sinks that ask (ContentSink.statements). */
  private statements?: Statements;
  /** Bumped by restart(): a pump of an earlier attempt checks it. */
  private generation = 0;

  constructor(
    private readonly options: InspectOptions,
    private readonly sinks: ReadonlyArray<ContentSink<unknown>> = [],
  ) {}

  /** Raw bytes of the file. */
  async write(chunk: Buffer): Promise<void> {
    if (this.gunzip) return this.inflate(chunk);
    if (this.check || this.headLength) return this.plain(chunk);
    this.rawHead.push(chunk);
    this.rawLength += chunk.length;
    if (this.rawLength >= 2) await this.decide();
  }

  /** gzip or not, from the first two raw bytes. */
  private async decide(): Promise<void> {
    const raw = this.rawHead.length === 1 ? this.rawHead[0]! : Buffer.concat(this.rawHead, this.rawLength);
    this.rawHead = [];
    this.rawLength = 0;
    if (!isGzip(raw)) return this.plain(raw);
    this.gzip = true;
    // Big output chunks: every chunk costs a hop through the check and the engine, so 16 KB ones (the default) cost 4x the time.
    const gunzip = createGunzip({ chunkSize: 256 * 1024 });
    this.gunzip = gunzip;
    const generation = this.generation;
    const { maxGzipRatio } = boundsOf(this.options);
    gunzip.on('error', (err) => {
      if (generation === this.generation) this.gzipFailure ??= gzipReason(err);
    });
    this.pump = (async () => {
      try {
        for await (const piece of gunzip as AsyncIterable<Buffer>) {
          if (generation !== this.generation) return;
          this.decoded += piece.length;
          stopIfAborted(this.options.signal);
          // Judged against the compressed bytes given so far (zlib has read no more): never too early.
          const bomb = gzipRatioRefusal(this.compressed, this.decoded, maxGzipRatio);
          if (bomb) throw new Error(bomb);
          await this.plain(piece);
        }
      } catch (err) {
        if (generation === this.generation) this.gzipFailure ??= gzipReason(err);
        gunzip.destroy();
      }
    })();
    await this.inflate(raw);
  }

  private async inflate(chunk: Buffer): Promise<void> {
    this.compressed += chunk.length;
    const gunzip = this.gunzip!;
    if (this.gzipFailure !== undefined || gunzip.destroyed) return;
    if (!gunzip.write(chunk)) await drained(gunzip);
  }

  /** Decoded bytes: gathered until the sniffer has enough, then handed on. */
  private async plain(chunk: Buffer): Promise<void> {
    if (this.check) return this.deliver(chunk);
    this.head.push(chunk);
    this.headLength += chunk.length;
    if (this.headLength >= SNIFF_BYTES) await this.choose();
  }

  /** THE sniff: one kind, its check, the sinks opened with it; then the head handed on. */
  private async choose(): Promise<void> {
    const head = this.head.length === 1 ? this.head[0]! : Buffer.concat(this.head, this.headLength);
    this.head = [];
    this.headLength = 0;
    const kind = sniffContent(head, { gzip: this.gzip });
    this.kind = kind;
    const content: Content = { kind, gzip: this.gzip, encrypted: this.options.encrypted ?? false, ...(KINDS[kind].statements ? { statements: true } : {}) };
    await Promise.all(
      this.sinks.map(async (s, i) => {
        try {
          await s.open(content);
        } catch (err) {
          this.failed.set(i, err);
        }
      }),
    );
    const checkName = KINDS[kind].check;
    if (checkName === 'tar' || checkName === 'zip') {
      this.walk = new Walk(this.sinks.flatMap((s, i) => (s.entries && !this.failed.has(i) ? [s.entries] : [])), checkName);
    }
    const dialect = KINDS[kind].statements;
    if (dialect) {
      const watchers = this.sinks.flatMap((s, i) => (s.statements && !this.failed.has(i) ? [{ index: i, watcher: s.statements }] : []));
      if (watchers.length) {
        const { SqlBytesReader } = await import('../sql-bytes.js');
        this.statements = new Statements(new SqlBytesReader(dialect), boundsOf(this.options).maxStatement, watchers, this.failed);
      }
    }
    // A mongodump archive's documents, as its check reads them, for the sinks that ask.
    const documents = checkName === 'mongo-archive' ? this.sinks.flatMap((s, i) => (s.documents && !this.failed.has(i) ? [s.documents] : [])) : [];
    this.check = CHECKS[checkName](kind, { options: this.options, gzip: this.gzip, head, walk: this.walk, documents });
    if (head.length) await this.deliver(head);
  }

  private async deliver(chunk: Buffer): Promise<void> {
    if (!this.statements) return writeAll(chunk, [this.check!], this.sinks, this.failed);
    await Promise.all([writeAll(chunk, [this.check!], this.sinks, this.failed), this.statements.push(chunk)]);
  }

  /** The transfer starts over from byte 0: the check and every sink start afresh. */
  async restart(): Promise<void> {
    this.generation++;
    this.gunzip?.destroy();
    const pump = this.pump;
    this.rawHead = [];
    this.rawLength = 0;
    this.gzip = false;
    this.gunzip = undefined;
    this.pump = undefined;
    this.gzipFailure = undefined;
    this.compressed = 0;
    this.decoded = 0;
    this.head = [];
    this.headLength = 0;
    if (this.check instanceof MongoCheck) this.check.stop();
    this.check = undefined;
    this.walk?.stop();
    this.walk = undefined;
    this.statements = undefined;
    this.kind = undefined;
    this.draining = undefined;
    await pump?.catch(() => {});
    await Promise.all(this.sinks.map((s, i) => (this.failed.has(i) ? undefined : s.restart())));
  }

  /** The last raw byte came: inflate and hand on what is left (the sinks have every decoded byte once it resolves). */
  async drain(): Promise<void> {
    this.draining ??= this.drainOnce();
    return this.draining;
  }

  private draining?: Promise<void>;

  private async drainOnce(): Promise<void> {
    if (this.rawLength) await this.decide();
    if (this.gunzip) {
      if (!this.gunzip.destroyed) this.gunzip.end();
      await this.pump;
    }
    if (!this.check) await this.choose();
    // Every decoded byte is in: the reader's last statements (and its verdict on an unfinished COPY).
    await this.statements?.end();
  }

  /** verify's finding (the sinks are ended by the caller, after drain()). */
  async end(): Promise<ContentFinding> {
    await this.drain();
    const inner = await this.check!.end();
    // The walk is over: the sinks that took the members hear whether it went to the end.
    this.walk?.close(this.gzipFailure ?? (inner.verdict === 'failed' ? (inner.reason ?? `${inner.format}: damaged`) : undefined));
    if (!this.gzip) return inner;
    if (this.gzipFailure !== undefined) return { format: 'gzip', verdict: 'failed', reason: this.gzipFailure };
    const format = inner.format === 'data' ? 'gzip' : `${inner.format}.gz`;
    if (inner.verdict === 'failed') return { ...inner, format };
    // The gzip stream itself is whole: content checked even when its inside is not read further.
    return {
      format,
      verdict: 'verified',
      reason: inner.format === 'data' ? 'contents inside the gzip not inspected' : inner.reason,
      entries: inner.entries,
      content_bytes: inner.entries !== undefined ? inner.content_bytes : this.decoded,
    };
  }
}
