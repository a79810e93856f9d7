// The one read pipeline: how `verify` and `restore-test` read backups back.
//
// Stages, each its own piece:
//   1. select backups   src/pipeline/select.ts  readSelection(values), selectBackups(ctx, jobId, selection)
//   2. transfer         src/pipeline/transfer.ts transfer(url, sink, options) / signedUrlTransfer(options):
//                       the signed URL (no Authorization), retries, Range resumes, the record's size cap
//   3. fan out          src/pipeline/read.ts     FanOut: every chunk (batched to 512 KB) to every sink at once,
//                       waiting for the slowest (backpressure); restart() reaches every sink
//   4. content stage    src/pipeline/content/stage.ts  sha256 of the raw bytes (ChecksSink, read.ts); a gzip inflated ONCE
//                       (CRCs, the ratio bound); ONE sniffer names the kind from the first decoded bytes, from ONE
//                       registry of kinds (src/pipeline/kinds.ts); the decoded bytes go to the kind's check
//                       (tar headers, zip CRCs, dump end markers, pg_dump -Fc blocks, mongodump documents)
//                       and to the content sinks (restore-test's engine) side by side; each check is a file
//                       of src/pipeline/content/ (tar.ts, zip.ts, sql-dump.ts, pg-custom.ts, mongo.ts, ...)
//   5. verdict          src/pipeline/read.ts     size against the record, sha256 against the ledger, the finding
//
// One sink interface for raw bytes, ByteSink (src/pipeline/types.ts): write(chunk)
// resolving when it can take more, and restart(). `jobs backup download` writes a
// file or stdout through it. A sink of the content stage is a ContentSink:
// open(content) with the kind, then the decoded bytes, then end() or abort().
//
// How a restore sink plugs in (restore-test = this pipeline + a ContentSink, src/restore/run.ts):
//
//   const outcomes = await readBackups<FileRestore>(backups, {
//     transfer: signedUrlTransfer({ signal, timeoutMs, stderr, debug }),
//     parallel: 1, signal, now: () => new Date(),
//     inspect: { bounds },                           // the same bomb bounds as verify (src/pipeline/bounds.ts)
//     ledger,                                        // optional: verify's ledger ("changed since")
//     sinks: (file, backup) => [new DispatchSink(...)],   // a ContentSink<FileRestore>
//   });
//   // outcomes[i][j]: { backup, file, result, extras: [{ ok: true, value: FileRestore } | { ok: false, error }] }
//   // result.verdict === 'failed' -> exit 11 (a file failed verify's checks on the way).
//
// For each file the sink is opened with the kind the one sniffer found (and
// whether it was a gzip), gets the decoded bytes as they are inflated, the same
// bytes verify's check reads; restart() when the transfer starts over; then
// end() once the file was read whole, or abort(reason) when it could not be read
// (transfer failed, size refused) or on Ctrl-C/SIGTERM (the pipeline then
// rethrows). `result` is verify's verdict for the file (verdict 'failed' ->
// exit 11), reached whatever the restore did. A sink whose open or write throws
// is dropped and its outcome is { ok: false }: the checks go on to the end.
import { readFile, type ListedSum, type ReadFileOptions } from './read.js';
import type { ContentSink, FileOutcome, PipelineBackup, PipelineFile } from './types.js';

export type { ByteSink, Content, ContentSink, FileOutcome, FileResult, FileSink, FileVerdict, HashLedger, PipelineBackup, PipelineFile, Progress, SinkOutcome, Transfer } from './types.js';
export { BATCH_BYTES, ChecksSink, FanOut, readFile, type ListedSum, type ReadFileOptions } from './read.js';
export { signedUrlTransfer, transfer } from './transfer.js';
export { boundsFromEnv } from './bounds.js';
export { DEFAULT_BOUNDS, type Bounds, type InspectBounds } from './bounds.js';

export interface PipelineOptions<R = unknown> extends Omit<ReadFileOptions<R>, 'sinks'> {
  /** Files read at once. */
  parallel: number;
  /** The content sinks of one file, made just before its first byte is read (restore-test: its DispatchSink). */
  sinks?: (file: PipelineFile, backup: PipelineBackup) => Array<ContentSink<R>> | Promise<Array<ContentSink<R>>>;
  /** Called with each file as soon as it is judged (ndjson streams them); awaited before the next file (restore-test runs --exec here, after the verdict). */
  onFile?: (outcome: FileOutcome<R>) => void | Promise<void>;
}

/**
 * Reads every file of every backup through the pipeline, `parallel` files at
 * a time. The outcomes keep the backups' and files' order: outcomes[b][f].
 */
export async function readBackups<R = unknown>(backups: PipelineBackup[], o: PipelineOptions<R>): Promise<Array<Array<FileOutcome<R>>>> {
  // A backup's own checksum lists are read first: its other files are judged against them.
  const lists = backups.map((b) => new BackupLists(b.files.filter((f) => isChecksumListName(f.name)).map((f) => f.name)));
  const tasks = backups.flatMap((b, bi) =>
    b.files
      .map((f, fi) => ({ b, f, bi, fi, list: isChecksumListName(f.name) }))
      .sort((x, y) => Number(y.list) - Number(x.list)),
  );
  const outcomes = backups.map((b) => new Array<FileOutcome<R>>(b.files.length));
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const t = tasks[next++]!;
      const backupLists = lists[t.bi]!;
      let sums: Map<string, string> | undefined;
      let read;
      try {
        o.signal.throwIfAborted();
        const sinks = o.sinks ? await o.sinks(t.f, t.b) : [];
        read = await readFile(t.b, t.f, { ...o, sinks, listed: t.list ? undefined : () => backupLists.sumOf(t.f.name) });
        sums = read.sums;
      } finally {
        if (t.list) backupLists.done(t.f.name, sums);
      }
      const { result, extras } = read;
      const outcome: FileOutcome<R> = { backup: t.b, file: t.f, result, extras };
      outcomes[t.bi]![t.fi] = outcome;
      o.progress?.fileDone();
      await o.onFile?.(outcome);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.parallel, tasks.length)) }, worker));
  } finally {
    o.progress?.end();
  }
  return outcomes;
}

/** A backup's own checksum list, by its name: `SHA256SUMS`, `*.sha256`, `*.sha256sum(s)`; its content must parse as one. */
export function isChecksumListName(name: string): boolean {
  const base = name.replace(/\\/g, '/').split('/').pop() ?? name;
  return /^sha256sums?(\.txt)?$/i.test(base) || /\.sha256(sums?)?$/i.test(base);
}

const baseName = (name: string) => name.replace(/\\/g, '/').replace(/^\.\//, '').split('/').pop() ?? name;

/** The checksum lists of one backup, as they are read; a file's sum waits for all of them. */
class BackupLists {
  private readonly settle = new Map<string, (read: { list: string; sums?: Map<string, string> }) => void>();
  private readonly reads: Array<Promise<{ list: string; sums?: Map<string, string> }>>;
  constructor(names: string[]) {
    this.reads = names.map((name) => new Promise((resolve) => this.settle.set(name, resolve)));
  }
  /** The list `name` was read (sums undefined when it failed, or is no list: it checks nothing, its own verdict says why). */
  done(name: string, sums: Map<string, string> | undefined): void {
    this.settle.get(name)?.({ list: name, sums });
  }
  /** The hash a list gives `name`: by its exact name, else by its base name (lists often say ./name). */
  async sumOf(name: string): Promise<ListedSum | undefined> {
    if (!this.reads.length) return undefined;
    const read = await Promise.all(this.reads);
    for (const exact of [true, false]) {
      for (const { list, sums } of read) {
        for (const [listedName, sha256] of sums ?? []) {
          if (exact ? listedName === name : baseName(listedName) === baseName(name)) return { list, sha256 };
        }
      }
    }
    return undefined;
  }
}
