// A member's bytes on their way from the content stage's walk of an archive to
// restore-test's extraction (src/restore/files.ts): the walk waits for the disk.

/**
 * One member's bytes, from the walk to the extraction: `push` resolves once the extraction
 * has taken the piece (so the walk hands on the next: a piece or two in memory, whatever the
 * member's size); `drop` (a refusal, an abort, the walk cut short) lets every push through.
 */
export class Pipe implements AsyncIterable<Buffer> {
  private readonly pieces: Array<{ piece: Buffer; taken: () => void }> = [];
  private wake?: () => void;
  private done = false;
  private dropped = false;

  push(piece: Buffer): Promise<void> | undefined {
    if (this.dropped || this.done) return undefined;
    const taken = new Promise<void>((resolve) => this.pieces.push({ piece, taken: resolve }));
    this.wake?.();
    return taken;
  }

  /** The member was read whole. */
  finish(): void {
    this.done = true;
    this.wake?.();
  }

  drop(): void {
    this.dropped = true;
    for (const p of this.pieces.splice(0)) p.taken();
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        if (this.dropped) return;
        const next = this.pieces.shift();
        if (next) {
          next.taken();
          yield next.piece;
          continue;
        }
        if (this.done) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      this.drop();
    }
  }
}
