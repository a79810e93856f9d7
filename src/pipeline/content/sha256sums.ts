import { SHA256_LINE } from '../kinds.js';
import { GuardedCheck, message, type ContentFinding } from './check.js';

/** Lists read in full up to this size; a longer "list" is refused as one. */
export const SHA256_LIST_LIMIT = 4 * 1024 * 1024;

/**
 * A sha256sum list (`sha256sum` output: "<hash>  <name>" or "<hash> *<name>"),
 * every line parsed; `sums` maps each name to its hash, for the pipeline to
 * check the backup's other files against.
 */
export class Sha256ListCheck extends GuardedCheck {
  format = 'sha256sums';
  private chunks: Buffer[] = [];
  private bytes = 0;
  protected explain(err: unknown): string {
    return `sha256sums: ${message(err)}`;
  }
  protected async take(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
    if (this.bytes > SHA256_LIST_LIMIT) throw new Error(`longer than ${SHA256_LIST_LIMIT / 1048576} MiB: not read as a list`);
    this.chunks.push(chunk);
  }
  protected async finish(): Promise<ContentFinding> {
    const lines = Buffer.concat(this.chunks).toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    const sums = new Map<string, string>();
    lines.forEach((raw, i) => {
      const line = raw.replace(/\r$/, '');
      const m = SHA256_LINE.exec(line);
      if (!m) throw new Error(`line ${i + 1} is not "<sha256>  <file name>": the list is damaged`);
      sums.set(m[2]!, m[1]!.toLowerCase());
    });
    return { format: 'sha256sums', verdict: 'verified', entries: sums.size, content_bytes: this.bytes, sums };
  }
}
