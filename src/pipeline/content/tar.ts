import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { ArchiveEntry } from '../types.js';
import { GuardedCheck, drained, message, type ContentFinding } from './check.js';
import { feed, type Walk } from './walk.js';
import { parsing } from '../parses.js';

interface TarHeader {
  name: string;
  size?: number;
  type?: string | null;
  byteOffset?: number;
  mode?: number;
  uid?: number;
  gid?: number;
  mtime?: Date;
  linkname?: string | null;
}

const TAR_TYPES: Record<string, ArchiveEntry['type']> = { file: 'file', 'contiguous-file': 'file', directory: 'directory', symlink: 'symlink', link: 'link' };

function tarEntry(h: TarHeader): ArchiveEntry {
  return {
    path: h.name,
    type: TAR_TYPES[h.type ?? 'file'] ?? 'other',
    size: h.size ?? 0,
    mode: h.mode ?? 0,
    uid: h.uid ?? 0,
    gid: h.gid ?? 0,
    mtime: h.mtime ? Math.floor(h.mtime.getTime() / 1000) : 0,
    ...(h.linkname ? { link: h.linkname } : {}),
  };
}

const END_BLOCKS_MISSING = 'tar: no end-of-archive blocks (the archive was cut after its last entry)';

/**
 * Every header through tar-stream (its checksum), every entry drained, then the
 * two zero blocks: THE walk of a tar. Each entry and its bytes go to the sinks
 * that ask (the fingerprint's listing, entropy, ransom notes; restore-test's extraction;
 * restore-file), waiting for the slowest; nobody parses the tar again.
 */
export class TarCheck extends GuardedCheck {
  format = 'tar';
  private extract?: Writable & NodeJS.EventEmitter;
  private ready?: Promise<void>;
  private entries = 0;
  private contentBytes = 0;
  private seen = 0;
  /** Where the data of the last entry (padded to 512) ends. */
  private lastEnd = 0;
  private extractError?: unknown;

  constructor(private readonly walk?: Walk) {
    super();
  }

  protected explain(err: unknown): string {
    const text = message(err);
    if (/Invalid tar header\. Maybe/.test(text)) return `tar: header checksum mismatch after ${this.entries} entr${this.entries === 1 ? 'y' : 'ies'}: the archive is damaged`;
    if (/unknown format/.test(text)) return `tar: a header of unknown format after ${this.entries} entries`;
    if (/Unexpected end of data/.test(text)) {
      // Cut past the last entry's data (inside the end blocks): that is what is missing, not entry data.
      if (this.entries > 0 && this.seen > this.lastEnd) return END_BLOCKS_MISSING;
      return `tar: truncated inside entry ${this.entries}`;
    }
    return text.startsWith('tar: ') ? text : `tar: ${text}`;
  }

  private async start(): Promise<void> {
    const { extract } = await import('tar-stream');
    parsing('tar');
    // Old (v7) headers have no magic: their checksum is still checked.
    const ex = extract({ allowUnknownFormat: true } as Parameters<typeof extract>[0]) as unknown as Writable & NodeJS.EventEmitter;
    ex.on('entry', (header: TarHeader, stream: Readable, next: () => void) => {
      this.entries++;
      const size = header.size ?? 0;
      if (header.type === 'file' || header.type === 'contiguous-file') this.contentBytes += size;
      this.lastEnd = (header.byteOffset ?? 0) + Math.ceil(size / 512) * 512;
      // The archive's own error is the one reported (on `ex`); an entry cut short says the same.
      stream.on('error', () => {});
      const readers = this.walk?.listening ? this.walk.entry(tarEntry(header), true) : [];
      if (!readers.length) {
        stream.on('end', next);
        stream.resume();
        return;
      }
      stream.on('data', (piece: Buffer) => {
        const held = feed(readers, piece);
        if (!held) return;
        // A reader writes the member out (restore-test's extraction): the walk waits for it.
        stream.pause();
        void held.then(() => stream.resume());
      });
      stream.on('end', () => {
        void Promise.all(readers.map((r) => r.end())).then(() => next());
      });
    });
    ex.on('error', (err) => {
      this.extractError ??= err;
      this.failure ??= this.explain(err);
    });
    this.extract = ex;
  }

  protected async take(chunk: Buffer): Promise<void> {
    this.ready ??= this.start();
    await this.ready;
    this.seen += chunk.length;
    if (this.extractError) throw this.extractError;
    if (!this.extract!.write(chunk)) await drained(this.extract!);
    if (this.extractError) throw this.extractError;
  }

  protected async finish(): Promise<ContentFinding> {
    this.ready ??= this.start();
    await this.ready;
    const ex = this.extract!;
    if (!(ex as { destroyed?: boolean }).destroyed) {
      const ended = Promise.race([once(ex, 'finish'), once(ex, 'close')]).catch(() => {});
      ex.end();
      await ended;
    }
    if (this.extractError) throw this.extractError;
    if (this.entries === 0) throw new Error('tar: no entries');
    if (this.seen - this.lastEnd < 1024) throw new Error(END_BLOCKS_MISSING);
    return { format: 'tar', verdict: 'verified', entries: this.entries, content_bytes: this.contentBytes };
  }
}
