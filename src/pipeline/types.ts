// The shapes of the one read pipeline (see src/pipeline/index.ts).
import type { ContentKind } from './kinds.js';
import type { SqlEvent } from './sql-events.js';

/**
 * Where the bytes of one file go while they arrive: THE sink interface of the
 * pipeline, shared by `jobs backup download` (a temporary file, stdout),
 * verify's checks (hash, inspection) and restore-test's RestoreSink.
 * - `write` resolves when the sink can take the next chunk (backpressure: the
 *   transfer does not read on until it resolves). The chunk is shared with the
 *   other sinks of a fan-out: never modify it.
 * - `restart` drops everything written so far: the transfer starts over from
 *   byte 0 (the server ignored a Range request).
 */
export interface ByteSink {
  write(chunk: Buffer): Promise<void>;
  restart(): void | Promise<void>;
}

/**
 * A sink that reaches a result of its own once the file is read.
 * - `end` is called once, after the last byte, when the file was read whole.
 * - `abort` is called instead when the file could not be read (transfer
 *   failed, size refused), or on Ctrl-C / SIGTERM: release everything.
 */
export interface FileSink<R = unknown> extends ByteSink {
  end(): Promise<R>;
  abort(reason?: unknown): Promise<void>;
}

/** What the content stage found a file to be (src/pipeline/kinds.ts): the one answer verify and restore-test share. */
export interface Content {
  kind: ContentKind;
  /** The file was a gzip: the sink gets what it inflated to (inflated once, by the content stage). */
  gzip: boolean;
  /** The record names an encryption key. */
  encrypted: boolean;
  /**
   * A SQL dump's statements are read by the content stage and handed to the sinks that ask
   * (ContentSink.statements), so such a sink reads none itself. Absent: a sink fed bytes alone.
   */
  statements?: boolean;
}

/**
 * A sink of the content stage: the pipeline fans the DECODED bytes of a file
 * out to it beside verify's check (restore-test's DispatchSink has this shape
 * with R = FileRestore). `open` comes first, once the one sniffer has named the
 * kind (again after a restart); then `write` with the decoded bytes (shared:
 * never modify them); `restart` when the transfer starts over; then `end`, or
 * `abort` (the file could not be read, Ctrl-C / SIGTERM: release everything).
 */
export interface ContentSink<R = unknown> extends FileSink<R> {
  open(content: Content): Promise<void>;
  /**
   * Asks for the archive's members (tar, zip), each with its bytes, as the kind's check walks
   * them (src/pipeline/content/tar.ts, zip.ts): the one parse of the archive, for the catalog's
   * fingerprint, restore-test's extraction (src/restore/files.ts) and restore-file alike. Read after open().
   */
  readonly entries?: EntryWatcher;
  /**
   * Asks for the documents of a mongodump archive as the kind's check reads them
   * (src/pipeline/content/mongo.ts, the one MongoArchiveReader): restore-test's bson engine. Read after open().
   */
  readonly documents?: DocumentWatcher;
  /**
   * Asks for the statements of a SQL dump (a kind with KindSpec.statements): the content stage reads
   * them ONCE for every sink that asks, never a second parse. Read after open().
   */
  readonly statements?: StatementWatcher;
}

/**
 * A content sink's ear on the statements of a SQL dump: `events` with each batch the one reader
 * (SqlBytesReader, src/pipeline/sql-bytes.ts) made of a decoded chunk, in order; the stage waits for it
 * (backpressure). The last batch holds the reader's end; a statement over the reader's bound
 * (Bounds.maxStatement) comes as an `error` event, and nothing after it. The events are shared:
 * never modify them. One that throws is not called again (nor written to), the check goes on.
 */
export interface StatementWatcher {
  events(batch: readonly SqlEvent[]): void | Promise<void>;
}

/** One member of an archive, as the check walking it read its header (tar) or central directory (zip). */
export interface ArchiveEntry {
  /** The name as stored (not cleaned). */
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'link' | 'other';
  /** Bytes of its content (regular files). */
  size: number;
  /** Permission bits (0 when the archive states none). */
  mode: number;
  uid: number;
  gid: number;
  /** Seconds since the epoch. */
  mtime: number;
  /** A link's target, when the header names it (tar). */
  link?: string;
}

/**
 * The content of one member, piece by piece as the check reads it (shared: never modify), then its end.
 * A `data` that returns a promise holds the walk until it resolves (backpressure: a member of any size
 * streams through without being held in memory); it must resolve, also when the sink stops or aborts.
 */
export interface EntryContent {
  data(piece: Buffer): void | Promise<void>;
  /**
   * The member was read whole, with the CRC-32 of its content (computed once by
   * the walk: a zip's check computes it anyway); the walk waits for it (backpressure).
   */
  end(crc: number): Promise<void>;
}

/**
 * A content sink's ear on the walk of an archive: `begin` once the check is a
 * walking one (again after a restart), `entry` per member (return an
 * EntryContent to get its bytes), `close` after the last member (with why the
 * walk stopped early, if it did). Its errors are its own: one that throws is
 * not called again, the check goes on.
 */
export interface EntryWatcher {
  begin(format: 'tar' | 'zip'): void;
  /**
   * A zip's central directory was read and passed the check's bounds (entries apart, their count and
   * declared sizes): its totals, before the first member; the walk waits for it. A tar has no listing.
   */
  listed?(total: { entries: number; bytes: number }): void | Promise<void>;
  entry(entry: ArchiveEntry): EntryContent | undefined;
  close(failure?: string): void;
}

/** What the reader of a mongodump archive found once it ended (src/pipeline/mongo-archive.ts). */
export interface DocumentsRead {
  /** The first problem, or undefined when the archive is whole (an archive of no collection is whole here). */
  failure: string | undefined;
  /** Every collection, in the archive's order, with the documents it holds. */
  namespaces: Array<{ name: string; documents: number }>;
  /** Bytes read. */
  bytes: number;
  serverVersion: string | null;
  warnings: string[];
}

/**
 * A content sink's ear on the reading of a mongodump archive: `document` per document, parsed and
 * counted by the one reader (its bytes shared: never modify, never keep), `close` once the reader
 * has ended (also when the archive is damaged or cut). Its errors are its own: one that throws is
 * not called again, the check goes on.
 */
export interface DocumentWatcher {
  document(namespace: string, bytes: Buffer): void;
  close(read: DocumentsRead): void;
}

/** One file of a backup, as the record lists it. */
export interface PipelineFile {
  name: string;
  url: string;
  /** The size as the record states it ("12.5 MB", "744 bytes", or a number). */
  size: unknown;
}

/** One backup to read: its files, and whether its record names an encryption key. */
export interface PipelineBackup {
  id: string;
  job_id?: string | null;
  created_at: string | null;
  status: string | null;
  /** The record has an encryption_key; the bytes are sniffed all the same. */
  encrypted: boolean;
  /** The record's encryption_key (base64): what a Decryptor opens (src/pipeline/decrypt.ts). */
  encryption_key?: string | null;
  files: PipelineFile[];
  /** When its files' signed URLs were got (epoch ms): a UrlSource refreshes them past an age. */
  urls_at?: number;
}

/**
 * Where fresh signed URLs come from (issue 29 §6; src/pipeline/urls.ts makes one from the service): a URL
 * holds about an hour, so a long run gets fresh ones for files that start late, and after a 403.
 */
export interface UrlSource {
  /** The URL to start a file with: its own, or a fresh one when the backup's are older than the source allows. */
  current(backup: PipelineBackup, file: PipelineFile): Promise<string>;
  /** A fresh URL for the file now (the store refused the one held). */
  fresh(backup: PipelineBackup, file: PipelineFile): Promise<string>;
}

/** The transfer stage as the pipeline uses it (src/pipeline/transfer.ts builds one: signedUrlTransfer). */
export interface Transfer {
  /** Streams the file into `sink`, resuming a broken transfer; throws when it cannot be read. */
  read(
    file: { name: string; url: string; size?: number; maxSize?: number; refresh?: () => Promise<string> },
    sink: ByteSink,
  ): Promise<{ bytes: number; resumed: boolean }>;
  /** A range of the file again (inclusive end), for a large zip. */
  range(url: string, start: number, end: number): import('node:stream').Readable;
}

export interface Progress {
  add(bytes: number): void;
  fileDone(): void;
  end(): void;
}

/** The hashes of files that passed before (verify's ledger, src/state/verify-ledger.ts, which keys them): "changed since <date>". */
export interface HashLedger {
  lookup(backupId: string, fileName: string): { sha256: string; first_seen: string } | undefined;
  record(backupId: string, fileName: string, sha256: string, bytes: number, now: Date): void;
}

/** not-tested: the file could not be read (network, store, service): nothing is known of its bytes. */
export type FileVerdict = 'verified' | 'not-inspected' | 'encrypted' | 'failed' | 'not-tested';

/** What the pipeline concludes about one file (verify's `FileResult`, `backupctl schema verify`). */
export interface FileResult {
  backup_id: string;
  name: string;
  verdict: FileVerdict;
  format: string;
  stated_size: string | null;
  bytes: number;
  entries: number | null;
  content_bytes: number | null;
  sha256: string | null;
  first_seen: string | null;
  seconds: number;
  mb_per_s: number;
  resumed: boolean;
  reasons: string[];
  /** not-tested: the exit code of what kept the file from being read (6 network or service, 4 refused signed URL). */
  exit_code?: number;
}

/** What an extra sink gave: its end() value, or why it has none (aborted, or its write/end threw). */
export type SinkOutcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** One file read: verify's result and, in the order the sinks were given, each extra sink's outcome. */
export interface FileOutcome<R = unknown> {
  backup: PipelineBackup;
  file: PipelineFile;
  result: FileResult;
  extras: Array<SinkOutcome<R>>;
}
