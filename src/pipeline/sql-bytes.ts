import type { SqlDialect } from './kinds.js';
import type { SqlEvent } from './sql-events.js';
import { SqlReader } from './sql-reader.js';
import { parsing } from './parses.js';

const NL = 10;
const BACKSLASH = 0x5c;
const DOT = 0x2e;
/** A line that starts with "\.": maybe the end of a COPY block (the text reader decides). */
const COPY_END_CANDIDATE = Buffer.from('\n\\.', 'latin1');

/** Newlines ("\n" bytes) in bytes[from, to). */
export function countNewlineBytes(bytes: Buffer, from = 0, to = bytes.length): number {
  let n = 0;
  for (let i = bytes.indexOf(NL, from); i !== -1 && i < to; i = bytes.indexOf(NL, i + 1)) n++;
  return n;
}

/** Where the last whole UTF-8 character of `bytes` ends (an incomplete one at the end waits for the next chunk). */
export function utf8Boundary(bytes: Buffer): number {
  const len = bytes.length;
  // Back over at most 3 continuation bytes to the lead byte of the last character.
  for (let back = 1; back <= Math.min(4, len); back++) {
    const b = bytes[len - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    // Complete (or not a valid lead, which the decoder replaces as it would anyway): all of it.
    return need > back && b >= 0xc0 && b < 0xf8 ? len - back : len;
  }
  return len;
}

/**
 * The statement reader over the dump's BYTES (the read pipeline's content stage, one per file):
 * text is decoded and read by SqlReader as always, except the data lines of a COPY block, which
 * are most of a pg_dump: those are found and counted as bytes (newlines, natively) and handed on
 * as they are (copy-bytes events), never decoded to text and encoded again for psql. The end of
 * a block is left to SqlReader: reading bytes stops at every line that starts with "\." and the
 * text reader takes it from there, so a block ends exactly where it always did. The events are
 * SqlReader's, whatever the chunks (test/unit/sql-bytes-reader.test.ts), with copy-bytes where
 * it gave copy-data. The caller bounds what is held back (pendingChars, BACKUPCTL_RESTORE_MAX_STATEMENT).
 */
export class SqlBytesReader {
  private readonly reader: SqlReader;
  /** Bytes of an incomplete UTF-8 character (text), or of an incomplete COPY line (bytes). */
  private carry: Buffer | null = null;

  constructor(dialect: SqlDialect) {
    parsing('sql');
    this.reader = new SqlReader(dialect);
  }

  /** Characters held back, for the bound: the text reader's, or the incomplete COPY line's bytes. */
  get pendingChars(): number {
    return this.reader.pendingChars + (this.reader.inCopy && this.carry ? this.carry.length : 0);
  }

  get pendingLine(): number {
    return this.reader.pendingLine;
  }

  push(chunk: Buffer): SqlEvent[] {
    const out: SqlEvent[] = [];
    // Inside a COPY block the carry is the start of a line: only that line is joined to it, not the
    // whole chunk (joining copied every byte of a pg_dump's data once more, and the garbage collector
    // then ran for those copies: ~14 full collections for a 200 MB dump).
    if (this.carry && this.reader.inCopy) {
      const nl = chunk.indexOf(NL);
      if (nl < 0 || nl + 1 === chunk.length) return this.read(Buffer.concat([this.carry, chunk]), out);
      this.read(Buffer.concat([this.carry, chunk.subarray(0, nl + 1)]), out);
      if (this.carry) return this.read(Buffer.concat([this.carry, chunk.subarray(nl + 1)]), out);
      return this.read(chunk.subarray(nl + 1), out);
    }
    return this.read(this.carry ? Buffer.concat([this.carry, chunk]) : chunk, out);
  }

  /** Reads `data` (the carry already joined to it) into `out`; sets the carry. */
  private read(data: Buffer, out: SqlEvent[]): SqlEvent[] {
    this.carry = null;
    if (this.reader.inCopy) {
      // At the start of a line of a COPY block: whole lines up to the next one that starts with "\." (or up to
      // the last whole line) go on as bytes.
      let stop: number;
      if (data[0] === BACKSLASH && (data.length < 2 || data[1] === DOT)) stop = 0;
      else {
        const at = data.indexOf(COPY_END_CANDIDATE);
        stop = at >= 0 ? at + 1 : -1;
      }
      const whole = stop >= 0 ? stop : data.lastIndexOf(NL) + 1;
      if (whole > 0) {
        const rows = countNewlineBytes(data, 0, whole);
        out.push({ type: 'copy-bytes', bytes: data.subarray(0, whole), rows });
        this.reader.skipCopyLines(rows);
        data = data.subarray(whole);
      }
      if (stop < 0) {
        // An incomplete line waits for the next chunk.
        if (data.length) this.carry = Buffer.from(data);
        return out;
      }
      // A line that starts with "\." (or may: the chunk ends after "\"): the text reader decides, from here.
    }
    // Text, up to the last whole character, read by SqlReader; an incomplete one waits for the next chunk.
    const cut = utf8Boundary(data);
    for (const e of this.reader.push(data.toString('utf8', 0, cut))) out.push(e);
    const rest = data.subarray(cut);
    // Inside a COPY block the text reader read every whole line; the one it holds back (no end yet, or a "\."
    // line it cannot judge yet) is read on from its bytes with the next chunk.
    const pending = this.reader.inCopy ? this.reader.takeCopyPending() : '';
    if (pending) this.carry = Buffer.concat([Buffer.from(pending, 'utf8'), rest]);
    else if (rest.length) this.carry = Buffer.from(rest);
    return out;
  }

  end(): SqlEvent[] {
    const out: SqlEvent[] = [];
    if (this.carry) {
      // What is left (an incomplete character, or a COPY line without its end) to the text reader, which says what it is.
      const text = this.carry.toString('utf8');
      this.carry = null;
      for (const e of this.reader.push(text)) out.push(e);
    }
    for (const e of this.reader.end()) out.push(e);
    return out;
  }
}
