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

  /** A zip's listing passed the check's bounds: its totals to every watcher that asks, waited for. */
  async listed(total: { entries: number; bytes: number }): Promise<void> {
    await Promise.all(
      [...this.live].map(async (w) => {
        if (!w.listed) return;
        try {
          await this.guard(w, () => w.listed!(total));
        } catch {
          this.live = this.live.filter((x) => x !== w);
        }
      }),
    );
  }

  /**
   * One member: the readers of its content (none when no watcher wants it),
   * as one reader that computes the member's CRC-32 once (unless the check
   * gives its own: a zip's) and hands every piece on. Its `data` returns a
   * promise when a reader holds the walk (backpressure), else undefined.
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
          let held: Array<Promise<void>> | undefined;
          for (const { w, r } of readers) {
            const p = this.guard(w, () => r.data(piece));
            if (p instanceof Promise) (held ??= []).push(p.catch(() => void (this.live = this.live.filter((x) => x !== w))));
          }
          return held && Promise.all(held).then(() => {});
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
  /** A promise when a reader holds the walk until it has taken the piece (backpressure). */
  data(piece: Buffer): Promise<void> | undefined;
  end(crc?: number): Promise<void>;
}

/** Hands a piece to every reader of a member: a promise to wait for when one of them holds the walk. */
export function feed(readers: readonly MemberReader[], piece: Buffer): Promise<void> | undefined {
  let held: Array<Promise<void>> | undefined;
  for (const r of readers) {
    const p = r.data(piece);
    if (p) (held ??= []).push(p);
  }
  return held && (held.length === 1 ? held[0] : Promise.all(held).then(() => {}));
}
