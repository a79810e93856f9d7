// An archive's listing in the catalog (issue 33 §1): every entry's path, type,
// size, mode, mtime and content checksum, kept as gzipped NDJSON sorted by
// path, so that `ls`, `find` and `diff` read it as a stream and a listing of a
// million entries never sits in memory whole.
//
// Writing: entries arrive in archive order; they are kept in runs of at most
// RUN_ENTRIES, each run sorted and written to a temporary file; finish()
// merges the runs (a k-way merge, one line of each run in memory) into the
// final file. When a path occurs twice (a tar may append a newer copy), the
// later entry wins, as tar extraction does.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { createGunzip, createGzip } from 'node:zlib';
import type { Writable } from 'node:stream';

/** f: regular file, d: directory, l: symbolic link, h: hard link, o: anything else (device, fifo). */
export type EntryType = 'f' | 'd' | 'l' | 'h' | 'o';

export interface ListingEntry {
  path: string;
  type: EntryType;
  size: number;
  /** Permission bits and owner, as the archive states them. */
  mode: number;
  uid: number;
  gid: number;
  /** Seconds since the epoch. */
  mtime: number;
  /** CRC-32 of the content (regular files), 8 hex digits; "" otherwise. */
  crc: string;
  /** A link's target. */
  link?: string;
}

/** A listing line: a compact array (about 60 bytes an entry before gzip). */
type Row = [string, EntryType, number, number, number, number, number, string, string?];

const toRow = (e: ListingEntry): Row => {
  const row: Row = [e.path, e.type, e.size, e.mode, e.uid, e.gid, e.mtime, e.crc];
  if (e.link !== undefined) row.push(e.link);
  return row;
};
const fromRow = (r: Row): ListingEntry => ({
  path: r[0],
  type: r[1],
  size: r[2],
  mode: r[3],
  uid: r[4],
  gid: r[5],
  mtime: r[6],
  crc: r[7],
  ...(r[8] !== undefined ? { link: r[8] } : {}),
});

/** Entries held before a sorted run goes to disk: bounds the writer's memory. */
export const RUN_ENTRIES = 50_000;

/**
 * A path as `ls` shows it, of an archive's entry or of a user's argument
 * (`ls`, `find`, `restore-file`): backslashes as slashes, no leading "./" or
 * "/" (as tar extracts it), no trailing slash; "." for the archive's root.
 */
export function cleanPath(p: string): string {
  let s = p.replace(/\\/g, '/');
  for (;;) {
    if (s.startsWith('./')) s = s.slice(2);
    else if (s.startsWith('/')) s = s.slice(1);
    else break;
  }
  return s.replace(/\/+$/, '') || '.';
}

/** Byte order of paths (the same order on every machine and locale). */
export const comparePaths = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

async function writeLines(out: Writable, lines: Iterable<string>): Promise<void> {
  for (const line of lines) {
    if (!out.write(line)) await once(out, 'drain');
  }
}

async function closeStream(out: Writable): Promise<void> {
  out.end();
  await once(out, 'finish');
}

/** Writes a listing sorted by path, in bounded memory. */
export class ListingWriter {
  private run: Array<[string, number, string]> = [];
  private runs: string[] = [];
  private seq = 0;
  private written = 0;

  /** `file` is the final .ndjson.gz; runs go to `file`.run-N beside it. */
  constructor(private readonly file: string) {}

  get count(): number {
    return this.written;
  }

  /** Adds an entry; a promise only when a full run goes to disk (await it then). */
  add(entry: ListingEntry): Promise<void> | undefined {
    this.run.push([entry.path, this.seq++, `${JSON.stringify(entry.path)}\t${JSON.stringify(toRow(entry))}\n`]);
    this.written++;
    if (this.run.length >= RUN_ENTRIES) return this.flush();
    return undefined;
  }

  private async flush(): Promise<void> {
    if (!this.run.length) return;
    this.run.sort((a, b) => comparePaths(a[0], b[0]) || a[1] - b[1]);
    const name = `${this.file}.run-${this.runs.length}`;
    await mkdir(path.dirname(name), { recursive: true });
    const out = createWriteStream(name, { mode: 0o600 });
    // Within a run, a path written twice keeps its last entry.
    const pieces: string[] = [];
    let piece = '';
    for (let i = 0; i < this.run.length; i++) {
      const next = this.run[i + 1];
      if (next && next[0] === this.run[i]![0]) continue;
      piece += this.run[i]![2];
      if (piece.length >= 1024 * 1024) {
        pieces.push(piece);
        piece = '';
      }
    }
    pieces.push(piece);
    await writeLines(out, pieces);
    await closeStream(out);
    this.runs.push(name);
    this.run = [];
  }

  /** Merges the runs into the final file (gzipped), atomically, and removes the runs. */
  async finish(): Promise<void> {
    await this.flush();
    await mkdir(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp-${process.pid}`;
    const gz = createGzip({ level: 6 });
    const out = createWriteStream(tmp, { mode: 0o600 });
    gz.pipe(out);
    const readers = this.runs.map((run, order) => new RunReader(run, order));
    try {
      // A binary heap of the runs by their head path; on a tie the later run (the newer entry) comes first.
      const heap: RunReader[] = [];
      const less = (a: RunReader, b: RunReader) => comparePaths(a.path, b.path) < 0 || (a.path === b.path && a.order > b.order);
      const up = (i: number) => {
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (!less(heap[i]!, heap[parent]!)) break;
          [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
          i = parent;
        }
      };
      const down = (i: number) => {
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < heap.length && less(heap[l]!, heap[m]!)) m = l;
          if (r < heap.length && less(heap[r]!, heap[m]!)) m = r;
          if (m === i) break;
          [heap[i], heap[m]] = [heap[m]!, heap[i]!];
          i = m;
        }
      };
      for (const r of readers) {
        if (await r.next()) {
          heap.push(r);
          up(heap.length - 1);
        }
      }
      let batch = '';
      let last: string | undefined;
      while (heap.length) {
        const top = heap[0]!;
        // The same path again (an older copy from an earlier run): dropped.
        if (top.path !== last) {
          batch += `${top.line}\n`;
          last = top.path;
        }
        if (await top.next()) down(0);
        else {
          const end = heap.pop()!;
          if (heap.length) {
            heap[0] = end;
            down(0);
          }
        }
        if (batch.length >= 256 * 1024) {
          if (!gz.write(batch)) await once(gz, 'drain');
          batch = '';
        }
      }
      if (batch) gz.write(batch);
      gz.end();
      await once(out, 'finish');
      await rename(tmp, this.file);
    } catch (err) {
      gz.destroy();
      out.destroy();
      await rm(tmp, { force: true });
      throw err;
    } finally {
      for (const r of readers) r.close();
      await Promise.all(this.runs.map((r) => rm(r, { force: true })));
      this.runs = [];
    }
  }

  /** Removes whatever was written (the read failed). */
  async discard(): Promise<void> {
    this.run = [];
    await Promise.all(this.runs.map((r) => rm(r, { force: true })));
    this.runs = [];
  }
}

/** Reads a run file line by line in big chunks: `path` and `line` (the listing row) of the current line. */
class RunReader {
  path = '';
  line = '';
  private lines: string[] = [];
  private at = 0;
  private rest = '';
  private readonly chunks: AsyncIterator<string>;
  private readonly stream;

  constructor(file: string, readonly order: number) {
    this.stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 512 * 1024 });
    this.chunks = (this.stream as AsyncIterable<string>)[Symbol.asyncIterator]();
  }

  /** Moves to the next line; false at the end. */
  async next(): Promise<boolean> {
    while (this.at >= this.lines.length) {
      const r = await this.chunks.next();
      if (r.done) {
        if (!this.rest) return false;
        this.lines = [this.rest];
        this.rest = '';
      } else {
        const parts = (this.rest + r.value).split('\n');
        this.rest = parts.pop() ?? '';
        this.lines = parts;
      }
      this.at = 0;
    }
    const raw = this.lines[this.at++]!;
    const tab = raw.indexOf('\t');
    this.path = JSON.parse(raw.slice(0, tab)) as string;
    this.line = raw.slice(tab + 1);
    return true;
  }

  close(): void {
    this.stream.destroy();
  }
}

/** Streams a listing's entries in path order. */
export async function* readListing(file: string): AsyncGenerator<ListingEntry> {
  const input = createReadStream(file).pipe(createGunzip());
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line) yield fromRow(JSON.parse(line) as Row);
    }
  } finally {
    lines.close();
    input.destroy();
  }
}

/** "rw-r--r--" from permission bits, with the type's letter first ("-", "d", "l"). */
export function modeText(type: EntryType, mode: number): string {
  const letter = type === 'd' ? 'd' : type === 'l' ? 'l' : type === 'h' ? 'h' : type === 'o' ? '?' : '-';
  let s = letter;
  for (const shift of [6, 3, 0]) {
    const bits = (mode >> shift) & 7;
    s += `${bits & 4 ? 'r' : '-'}${bits & 2 ? 'w' : '-'}${bits & 1 ? 'x' : '-'}`;
  }
  return s;
}
