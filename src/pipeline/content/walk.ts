import { crc32 } from 'node:zlib';
import type { ArchiveEntry, EntryContent, EntryWatcher } from '../types.js';

/**
 * The content sinks that asked for an archive's members (ContentSink.entries),
 * during one walk of the check: every call to a watcher is guarded (one that
 * throws is dropped, the check goes on); `stop` ends the walk for them all (a
 * restart: the old check's last entries reach no one).
 */
export class Walk {
  private live: EntryWatcher[];
  constructor(watchers: EntryWatcher[], format: 'tar' | 'zip') {
    this.live = watchers;
    for (const w of [...this.live]) this.guard(w, () => w.begin(format));
  }

  /** Anyone listening (else the check builds no entries). */
  get listening(): boolean {
    return this.live.length > 0;
  }

  private guard<T>(w: EntryWatcher, f: () => T): T | undefined {
    if (!this.live.includes(w)) return undefined;
    try {
      return f();
    } catch {
      this.live = this.live.filter((x) => x !== w);
      return undefined;
    }
  }

  /**
   * One member: the readers of its content (none when no watcher wants it),
   * as one reader that computes the member's CRC-32 once (unless the check
   * gives its own: a zip's) and hands every piece on.
   */
  entry(entry: ArchiveEntry, computeCrc: boolean): MemberReader[] {
    const readers: Array<{ w: EntryWatcher; r: EntryContent }> = [];
    for (const w of [...this.live]) {
      const r = this.guard(w, () => w.entry(entry));
      if (r) readers.push({ w, r });
    }
    if (!readers.length) return [];
    let crc = 0;
    return [
      {
        data: (piece) => {
          if (computeCrc) crc = crc32(piece, crc);
          for (const { w, r } of readers) this.guard(w, () => r.data(piece));
        },
        end: async (given?: number) => {
          await Promise.all(
            readers.map(async ({ w, r }) => {
              if (!this.live.includes(w)) return;
              try {
                await r.end((given ?? crc) >>> 0);
              } catch {
                this.live = this.live.filter((x) => x !== w);
              }
            }),
          );
        },
      },
    ];
  }

  close(failure?: string): void {
    for (const w of [...this.live]) this.guard(w, () => w.close(failure));
    this.live = [];
  }

  stop(): void {
    this.live = [];
  }
}

/** The walk's reader of a member: the CRC-32 it computed itself when the check gives none (a tar's). */
export interface MemberReader {
  data(piece: Buffer): void;
  end(crc?: number): Promise<void>;
}

/** Hands a piece to every reader of a member. */
export function feed(readers: readonly MemberReader[], piece: Buffer): void {
  for (const r of readers) r.data(piece);
}
