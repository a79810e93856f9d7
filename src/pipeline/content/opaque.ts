import type { Check, ContentFinding, ContentVerdict } from './check.js';

/** Size and hash only: encrypted data, or a format backupctl does not read. */
export class OpaqueCheck implements Check {
  private bytes = 0;
  constructor(
    private readonly format: string,
    private readonly verdict: ContentVerdict,
    private readonly note?: string,
  ) {}
  async write(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
  }
  async end(): Promise<ContentFinding> {
    return { format: this.format, verdict: this.verdict, reason: this.note, content_bytes: this.bytes };
  }
}
