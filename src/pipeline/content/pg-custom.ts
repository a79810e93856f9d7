import { KINDS } from '../kinds.js';
import { GuardedCheck, message, type ContentFinding } from './check.js';
import { parsing } from '../parses.js';

/** Table of contents and header past this size are refused as damaged: pg_dump's are kilobytes to a few megabytes. */
const PG_TOC_LIMIT = 256 * 1024 * 1024;
/** pg_dump's archive versions read here: 1.10 (PostgreSQL 9.x) .. 1.16 (PostgreSQL 17). */
const PG_VERSIONS = { min: 10, max: 16 };
class NeedMore extends Error {}

/**
 * pg_dump -Fc, as pg_backup_archiver.c / pg_backup_custom.c write it: the
 * header ("PGDMP", version, int and offset sizes), the table of contents
 * (every entry's strings, its dependencies, whether it has data), then one
 * data block per entry with data (a block type, the entry's dump id, chunks
 * each with its length, a zero length last). The archive has no end marker:
 * it is whole when every data block the table of contents announces came,
 * each to its last chunk. The chunks' bytes (compressed or not) are not read.
 */
export class PgCustomCheck extends GuardedCheck {
  format = KINDS['pg-custom'].format;
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private toc?: { intSize: number; entries: number; data: Set<number> };
  private unsupported?: string;
  private state: 'block' | 'id' | 'chunk' | 'blob-oid' = 'block';
  private blockType = 0;
  private blockId = 0;
  private skip = 0;
  private readonly seen = new Set<number>();
  private bytes = 0;

  protected explain(err: unknown): string {
    return `pg_dump custom format: ${message(err)}`;
  }

  protected async take(chunk: Buffer): Promise<void> {
    if (!this.bytes) parsing('pg-custom');
    this.bytes += chunk.length;
    if (this.unsupported) return;
    this.pending.push(chunk);
    this.pendingLength += chunk.length;
    if (!this.toc) {
      const all = Buffer.concat(this.pending, this.pendingLength);
      this.pending = [all];
      try {
        const { toc, at } = this.readHead(all);
        if (!toc) return;
        this.toc = toc;
        this.pending = [all.subarray(at)];
        this.pendingLength = all.length - at;
      } catch (err) {
        if (!(err instanceof NeedMore)) throw err;
        if (this.pendingLength > PG_TOC_LIMIT) throw new Error(`a table of contents larger than ${PG_TOC_LIMIT / 1048576} MiB: damaged`);
        return;
      }
    }
    this.walk();
  }

  /** The header and the table of contents, or NeedMore. */
  private readHead(b: Buffer): { toc?: PgCustomCheck['toc']; at: number } {
    let at = 0;
    const byte = () => {
      if (at >= b.length) throw new NeedMore();
      return b[at++]!;
    };
    let intSize = 4;
    const int = () => {
      const sign = byte();
      let v = 0;
      for (let i = 0; i < intSize; i++) v += byte() * 2 ** (8 * i);
      return sign ? -v : v;
    };
    const str = (): string | null => {
      const length = int();
      if (length < 0) return null;
      if (length > PG_TOC_LIMIT) throw new Error(`a string of ${length} bytes in the table of contents: damaged`);
      if (at + length > b.length) throw new NeedMore();
      at += length;
      return b.toString('utf8', at - length, at);
    };
    if (b.length < 5) throw new NeedMore();
    if (b.toString('latin1', 0, 5) !== 'PGDMP') throw new Error('no "PGDMP" magic');
    at = 5;
    const major = byte();
    const minor = byte();
    if (major > 1 || minor > 0) byte();
    if (major !== 1 || minor < PG_VERSIONS.min || minor > PG_VERSIONS.max) {
      this.unsupported = `archive version ${major}.${minor}: its table of contents is not read by this backupctl (1.${PG_VERSIONS.min}..1.${PG_VERSIONS.max}); size and hash only`;
      return { at };
    }
    intSize = byte();
    if (intSize < 1 || intSize > 6) throw new Error(`an integer size of ${intSize} bytes: damaged`);
    byte(); // offset size: offsets are skipped whole below
    const offSize = b[at - 1]!;
    const format = byte();
    if (format !== 1) throw new Error(`archive format ${format}, not the custom format (1)`);
    if (minor >= 15) byte();
    else int(); // compression
    for (let i = 0; i < 7; i++) int(); // the time it was made
    str(); // database
    str(); // server version
    str(); // pg_dump version
    const count = int();
    if (count < 0) throw new Error(`${count} table-of-contents entries: damaged`);
    const data = new Set<number>();
    for (let e = 0; e < count; e++) {
      const id = int();
      int(); // had a data dumper
      str(); // table oid
      str(); // oid
      str(); // tag
      str(); // description
      if (minor >= 11) int(); // section
      str(); // definition
      str(); // drop statement
      str(); // copy statement
      str(); // namespace
      str(); // tablespace
      if (minor >= 14) str(); // table access method
      if (minor >= 16) int(); // relkind
      str(); // owner
      str(); // "false" (with oids)
      while (str() !== null); // dependencies
      const flag = byte();
      for (let i = 0; i < offSize; i++) byte();
      // 1: data, position not set (written to a pipe); 2: data at a position; 3: no data.
      if (flag === 1 || flag === 2) data.add(id);
      else if (flag !== 3) throw new Error(`entry ${id} has a data flag of ${flag}: damaged`);
    }
    return { toc: { intSize, entries: count, data }, at };
  }

  /** The data blocks, as far as they have come. */
  private walk(): void {
    const intSize = this.toc!.intSize;
    for (;;) {
      if (this.skip) {
        while (this.skip && this.pending.length) {
          const first = this.pending[0]!;
          if (first.length <= this.skip) {
            this.skip -= first.length;
            this.pendingLength -= first.length;
            this.pending.shift();
          } else {
            this.pending[0] = first.subarray(this.skip);
            this.pendingLength -= this.skip;
            this.skip = 0;
          }
        }
        if (this.skip) return;
      }
      const need = this.state === 'block' ? 1 : 1 + intSize;
      if (this.pendingLength < need) return;
      const b = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingLength);
      let value = 0;
      if (this.state === 'block') value = b[0]!;
      else {
        for (let i = 0; i < intSize; i++) value += b[1 + i]! * 2 ** (8 * i);
        if (b[0]) value = -value;
      }
      this.pending = b.length > need ? [b.subarray(need)] : [];
      this.pendingLength = b.length - need;
      switch (this.state) {
        case 'block':
          // 1: a table's data; 3: large objects.
          if (value !== 1 && value !== 3) throw new Error(`a data block of type ${value} after ${this.seen.size} blocks: damaged`);
          this.blockType = value;
          this.state = 'id';
          break;
        case 'id':
          if (!this.toc!.data.has(value)) throw new Error(`a data block for entry ${value}, which the table of contents does not list with data: damaged`);
          this.blockId = value;
          this.seen.add(value);
          this.state = this.blockType === 1 ? 'chunk' : 'blob-oid';
          break;
        case 'chunk':
          if (value < 0) throw new Error(`a chunk of ${value} bytes in the data of entry ${this.blockId}: damaged`);
          if (value === 0) this.state = this.blockType === 1 ? 'block' : 'blob-oid';
          else this.skip = value;
          break;
        case 'blob-oid':
          this.state = value === 0 ? 'block' : 'chunk';
          break;
      }
    }
  }

  protected async finish(): Promise<ContentFinding> {
    if (this.unsupported) return { format: this.format, verdict: 'not-inspected', reason: `pg_dump custom format: ${this.unsupported}`, content_bytes: this.bytes };
    if (!this.toc) throw new Error('truncated inside its header or table of contents');
    if (this.skip || this.pendingLength || this.state !== 'block') throw new Error(`truncated inside the data of entry ${this.blockId}`);
    const { data, entries } = this.toc;
    if (this.seen.size < data.size) {
      throw new Error(`the data of ${data.size - this.seen.size} of ${data.size} tables is missing (${this.seen.size} blocks, then the end): the dump did not finish`);
    }
    return { format: this.format, verdict: 'verified', entries, content_bytes: this.bytes };
  }
}
