import type { StatementWatcher } from '../types.js';
import type { SqlBytesReader } from '../sql-bytes.js';
import type { SqlEvent } from '../sql-events.js';
import { statementBoundRefusal } from '../bounds.js';

/**
 * The statements of one SQL dump, read ONCE by the content stage for every sink
 * that asks (ContentSink.statements: the catalog's row counts, the SQL engine's
 * restore): one SqlBytesReader (text decoded once, a COPY block's lines kept as
 * bytes), its events handed to each watcher in order (the slowest sets the pace). The reader's bound
 * (Bounds.maxStatement) ends the reading with an `error` event: memory holds
 * the bound, not a hostile statement. A watcher that throws is dropped, by
 * its sink's index in `failed`, like a sink whose write throws.
 */
export class Statements {
  private stopped = false;

  constructor(
    private readonly reader: SqlBytesReader,
    private readonly max: number,
    private readonly watchers: ReadonlyArray<{ index: number; watcher: StatementWatcher }>,
    private readonly failed: Map<number, unknown>,
  ) {}

  async push(chunk: Buffer): Promise<void> {
    if (this.stopped) return;
    const events = this.reader.push(chunk);
    if (this.reader.pendingChars > this.max) {
      this.stopped = true;
      const line = this.reader.pendingLine;
      events.push({ type: 'error', text: '', line, message: statementBoundRefusal(this.max, line), bound: true });
    }
    await this.send(events);
  }

  async end(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.send(this.reader.end());
  }

  private async send(events: readonly SqlEvent[]): Promise<void> {
    if (!events.length) return;
    await Promise.all(
      this.watchers.map(async ({ index, watcher }) => {
        if (this.failed.has(index)) return;
        try {
          await watcher.events(events);
        } catch (err) {
          this.failed.set(index, err);
        }
      }),
    );
  }
}
