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

  async add(entry: ListingEntry): Promise<void> {
    this.run.push([entry.path, this.seq++, `${JSON.stringify(toRow(entry))}\n`]);
    this.written++;
    if (this.run.length >= RUN_ENTRIES) await this.flush();
  }

  private async flush(): Promise<void> {
    if (!this.run.length) return;
    this.run.sort((a, b) => comparePaths(a[0], b[0]) || a[1] - b[1]);
    const name = `${this.file}.run-${this.runs.length}`;
    await mkdir(path.dirname(name), { recursive: true });
    const out = createWriteStream(name, { mode: 0o600 });
    // Within a run, a path written twice keeps its last entry.
    const lines: string[] = [];
    for (let i = 0; i < this.run.length; i++) {
      const next = this.run[i + 1];
      if (next && next[0] === this.run[i]![0]) continue;
      lines.push(this.run[i]![2]);
    }
    await writeLines(out, lines);
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
    try {
      const readers = this.runs.map((run) => createInterface({ input: createReadStream(run, 'utf8'), crlfDelay: Infinity })[Symbol.asyncIterator]());
      // The head line of each run; the smallest path goes next; on a tie the later run (newer entry) wins.
      const heads: Array<{ path: string; line: string } | null> = await Promise.all(readers.map((r) => nextRow(r)));
      let batch: string[] = [];
      for (;;) {
        let best = -1;
        for (let i = 0; i < heads.length; i++) {
          const h = heads[i];
          if (!h) continue;
          if (best < 0 || comparePaths(h.path, heads[best]!.path) <= 0) best = i;
        }
        if (best < 0) break;
        const chosen = heads[best]!;
        // Drop the same path from the other runs (older copies).
        for (let i = 0; i < heads.length; i++) {
          while (i !== best && heads[i] && heads[i]!.path === chosen.path) heads[i] = await nextRow(readers[i]!);
        }
        batch.push(`${chosen.line}\n`);
        heads[best] = await nextRow(readers[best]!);
        if (batch.length >= 1024) {
          await writeLines(gz, batch);
          batch = [];
        }
      }
      await writeLines(gz, batch);
      gz.end();
      await once(out, 'finish');
      await rename(tmp, this.file);
    } catch (err) {
      gz.destroy();
      out.destroy();
      await rm(tmp, { force: true });
      throw err;
    } finally {
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

async function nextRow(it: AsyncIterator<string>): Promise<{ path: string; line: string } | null> {
  for (;;) {
    const r = await it.next();
    if (r.done) return null;
    if (!r.value) continue;
    return { path: (JSON.parse(r.value) as Row)[0], line: r.value };
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
