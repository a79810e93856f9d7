import { KINDS, type ContentKind } from '../kinds.js';
import { GuardedCheck, message, type ContentFinding } from './check.js';

/** A mysqldump or pg_dump plain dump: the end marker its tool writes last, when the dump opens with the banner that promises it. */
export class DumpCheck extends GuardedCheck {
  private tail = Buffer.alloc(0);
  private bytes = 0;
  /** The dump opens with its tool's banner: the tool then writes its end marker last. */
  private bannered?: boolean;
  constructor(private readonly kind: ContentKind) {
    super();
  }
  get format(): string {
    return KINDS[this.kind].format;
  }
  protected explain(err: unknown): string {
    return message(err);
  }
  protected async take(chunk: Buffer): Promise<void> {
    this.bannered ??= KINDS[this.kind].endMarker!.banner.test(chunk.toString('latin1', 0, 256));
    this.bytes += chunk.length;
    // The last 4 kB only: a copy of them, never of the whole chunk (a 256 kB one each time, 200 MB for a 200 MB dump).
    if (chunk.length >= 4096) {
      this.tail = Buffer.from(chunk.subarray(chunk.length - 4096));
      return;
    }
    const joined = Buffer.concat([this.tail, chunk]);
    this.tail = joined.subarray(Math.max(0, joined.length - 4096));
  }
  protected async finish(): Promise<ContentFinding> {
    const { marker } = KINDS[this.kind].endMarker!;
    if (!this.bannered) {
      // --skip-comments and the like: neither banner nor end marker; nothing says where it should end.
      return { format: this.format, verdict: 'not-inspected', reason: `${this.format}: no banner, so no end marker to check (dumped without comments?)`, content_bytes: this.bytes };
    }
    // The marker is on one of the last lines: pg_dump closes with "--" lines after it.
    const lastLines = this.tail.toString('utf8').trimEnd().split('\n').slice(-4);
    if (!lastLines.some((line) => line.startsWith(marker))) {
      throw new Error(`${this.format}: no end marker ("${marker}"): the dump did not finish`);
    }
    return { format: this.format, verdict: 'verified', content_bytes: this.bytes };
  }
}
