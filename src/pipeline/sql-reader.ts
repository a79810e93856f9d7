// A streaming statement reader for SQL dumps (issue 24 §2): PostgreSQL plain
// dumps (pg_dump -Fp: COPY ... FROM stdin blocks ending "\.", dollar quoting,
// psql meta-commands such as \restrict and \connect, BEGIN ATOMIC bodies) and
// MySQL/MariaDB dumps (DELIMITER, /*!40101 ... */ executable comments, the
// /*M!999999\- enable the sandbox mode */ line). It splits text into events
// whose texts, put back together, are exactly the input: a consumer that
// replaces a skipped event by as many newlines as it held keeps every line
// number of the dump. Lines are 1-based. Nothing is held but the statement
// being read (COPY data goes out as it comes, line by line).
// The events are in src/pipeline/sql-events.ts; the reader over the dump's bytes (the content
// stage's, COPY data kept as bytes) in src/pipeline/sql-bytes.ts; an INSERT's rows counted in
// src/pipeline/sql-rows.ts.
import type { SqlDialect } from './kinds.js';
import type { SqlEvent } from './sql-events.js';

const NL = 10;
const isIdentStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 128;
/** A character code that may stand in an identifier after its first (letters, digits, _, $, non-ASCII). */
export const isIdent = (c: number) => isIdentStart(c) || (c >= 48 && c <= 57) || c === 36;
const isSpace = (c: number) => c === 32 || c === 9 || c === 13 || c === 12 || c === 11;

function countNewlines(s: string, from = 0, to = s.length): number {
  let n = 0;
  for (let i = s.indexOf('\n', from); i !== -1 && i < to; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

export function newlines(s: string): number {
  return countNewlines(s);
}

/**
 * mysql, inside a statement, the delimiter ";" and outside an executable comment: a run of text the
 * reader may skip whole (see SqlReader.scan). Bounded repetitions, repeated by the caller: the
 * regex engine's backtracking stack stays small however long the statement.
 */
const MYSQL_RUN = /(?:[^'"`\\/#\-;]+|'[^'\\]*'(?=[^'])|"[^"\\]*"(?=[^"])|`[^`]*`(?=[^`])|-(?=[^-])|\/(?=[^*])){1,2048}/y;

/** A comment longer than this, still without its end, is let go as it is read (SqlReader.dropComment). */
const COMMENT_HELD = 1 << 20;

export class SqlReader {
  private buf = '';
  private pos = 0;
  private start = 0;
  private line = 1;
  private tokenPos = -1;
  private tokenLine = 0;
  private mode: 'normal' | 'copy' = 'normal';
  /** mysql: the statement terminator the DELIMITER command set. */
  private delimiter = ';';
  /** mysql: inside a /*! ... *\/ executable comment. */
  private inExec = false;
  /** pg: BEGIN ATOMIC ... END depth of a CREATE FUNCTION/PROCEDURE, as psql counts it. */
  private beginDepth = 0;
  private words: string[] = [];
  private finished = false;

  constructor(readonly dialect: SqlDialect) {}

  /** The 1-based line the reader has reached. */
  get currentLine(): number {
    return this.line;
  }

  /** The characters held back, waiting for the end of a statement, a string, a comment run or a COPY line: what the memory bound caps. */
  get pendingChars(): number {
    return this.buf.length - this.start + this.dropped;
  }

  /**
   * Characters of a long comment already read and let go (its text replaced by its newlines): they still count
   * towards the bound (BACKUPCTL_RESTORE_MAX_STATEMENT), but are not held, nor scanned again with each chunk.
   */
  private dropped = 0;
  /** Inside a comment whose end has not come: where to read on (from pos), and a block comment's depth. */
  private commentAt = -1;
  private commentDepth = 1;

  /** The line where the text held back starts. */
  get pendingLine(): number {
    return this.tokenPos >= 0 ? this.tokenLine : this.line;
  }

  /** Inside a COPY block's data (SqlBytesReader then reads its lines as bytes). */
  get inCopy(): boolean {
    return this.mode === 'copy' && !this.finished;
  }

  /**
   * Inside a COPY block: the text held back (the start of a line whose end has not come), given
   * up to the caller, who reads on from it as bytes (SqlBytesReader). It always starts a line.
   */
  takeCopyPending(): string {
    if (this.mode !== 'copy') throw new Error('SqlReader: not inside a COPY block');
    const rest = this.buf.slice(this.start);
    this.buf = '';
    this.start = this.pos = 0;
    this.dropped = 0;
    this.commentAt = -1;
    return rest;
  }

  /** Inside a COPY block: `lines` whole lines of data were read by the caller (as bytes). */
  skipCopyLines(lines: number): void {
    if (this.mode !== 'copy') throw new Error('SqlReader: not inside a COPY block');
    this.line += lines;
  }

  push(text: string): SqlEvent[] {
    if (this.finished) throw new Error('SqlReader: push after end');
    if (this.start > 0) {
      this.buf = this.buf.slice(this.start);
      this.pos -= this.start;
      if (this.tokenPos >= 0) this.tokenPos -= this.start;
      this.start = 0;
    }
    this.buf += text;
    const out: SqlEvent[] = [];
    this.scan(false, out);
    return out;
  }

  end(): SqlEvent[] {
    const out: SqlEvent[] = [];
    if (this.finished) return out;
    this.scan(true, out);
    this.finished = true;
    const rest = this.buf.slice(this.start);
    if (this.mode === 'copy') {
      if (rest) out.push({ type: 'copy-data', text: rest, rows: rest.split('\n').filter((l) => l !== '').length });
      out.push({ type: 'error', text: '', line: this.line, message: 'the dump ended inside a COPY block (no "\\." line)' });
    } else if (this.tokenPos >= 0) {
      out.push({ type: 'statement', text: rest, head: this.buf.slice(this.tokenPos), line: this.tokenLine, endLine: this.line, copy: false, unterminated: true });
    } else if (rest) {
      out.push({ type: 'trailing', text: rest });
    }
    this.buf = '';
    this.start = this.pos = 0;
    this.dropped = 0;
    this.commentAt = -1;
    return out;
  }

  private mark(): void {
    if (this.tokenPos < 0) {
      this.tokenPos = this.pos;
      this.tokenLine = this.line;
    }
  }

  private resetStatement(): void {
    this.tokenPos = -1;
    this.tokenLine = 0;
    this.beginDepth = 0;
    this.words = [];
    this.inExec = false;
  }

  private scan(final: boolean, out: SqlEvent[]): void {
    const pg = this.dialect === 'postgres';
    for (;;) {
      if (this.mode === 'copy') {
        if (!this.scanCopy(final, out)) return;
        continue;
      }
      const buf = this.buf;
      const len = buf.length;
      if (!pg && this.tokenPos >= 0) {
        if (!this.inExec && this.delimiter === ';') {
          // Inside a mysql statement (an extended INSERT is most of a dump): skip, natively, runs of
          // text that hold no comment, no delimiter and no backslash outside a string, whole strings
          // without a backslash or a doubled quote among them (each one's closing quote followed by
          // a character that is not a quote: never at the buffer's end, where a doubled quote may
          // be cut in two). What it stops at goes the long way below.
          const from = this.pos;
          let to = from;
          const run = MYSQL_RUN;
          for (;;) {
            run.lastIndex = to;
            if (!run.test(buf)) break;
            to = run.lastIndex;
          }
          if (to > from) {
            this.line += countNewlines(buf, from, to);
            this.pos = to;
          }
        } else {
          // Skip, natively, the characters that cannot start a quote, a comment, the delimiter or a line.
          const boring = this.boring();
          boring.lastIndex = this.pos;
          if (boring.test(buf)) this.pos = boring.lastIndex;
        }
      }
      if (this.pos >= len) return;
      const c = buf.charCodeAt(this.pos);
      if (c === NL) {
        this.line++;
        this.pos++;
        continue;
      }
      if (isSpace(c)) {
        this.pos++;
        continue;
      }
      const next = this.pos + 1 < len ? buf.charCodeAt(this.pos + 1) : -1;
      // comments
      if (c === 45 /* - */) {
        if (next === -1 && !final) return;
        const afterNext = this.pos + 2 < len ? buf.charCodeAt(this.pos + 2) : -1;
        if (next === 45 && !pg && afterNext === -1 && !final) return;
        if (next === 45 && (pg || afterNext === -1 || afterNext <= 32)) {
          if (!this.lineComment(final)) return;
          continue;
        }
      }
      if (c === 35 /* # */ && !pg) {
        if (!this.lineComment(final)) return;
        continue;
      }
      if (c === 47 /* / */ && next === 42 /* * */) {
        // (A comment read on from its middle is no executable comment, whatever now follows its "/*".)
        if (!pg && this.commentAt < 0) {
          if (this.pos + 2 >= len && !final) return;
          const third = buf.charCodeAt(this.pos + 2);
          if (third === 33 /* ! */ || third === 77 /* M */) {
            if (!this.execComment(final, out)) return;
            continue;
          }
        }
        if (!this.blockComment(final, pg)) return;
        continue;
      }
      if (c === 47 && next === -1 && !final) return;
      if (!pg && this.inExec && c === 42 && next === 47) {
        this.pos += 2;
        this.inExec = false;
        continue;
      }
      if (!pg && c === 42 && next === -1 && this.inExec && !final) return;
      // statement terminator
      if (pg ? c === 59 && this.beginDepth === 0 : c === this.delimiter.charCodeAt(0)) {
        if (!pg && this.delimiter.length > 1) {
          if (this.pos + this.delimiter.length > len && !final) return;
          if (!buf.startsWith(this.delimiter, this.pos)) {
            this.mark();
            this.pos++;
            continue;
          }
        }
        if (!this.terminate(final, out)) return;
        continue;
      }
      if (c === 39 /* ' */ || c === 34 /* " */ || (!pg && c === 96) /* ` */) {
        this.mark();
        const escapes = !pg && c !== 96;
        const end = this.quoted(this.pos + 1, c, escapes, final);
        if (end < 0) return;
        continue;
      }
      if (pg && c === 36 /* $ */) {
        const m = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(buf.slice(this.pos, this.pos + 64));
        const prev = this.pos > 0 ? buf.charCodeAt(this.pos - 1) : 32;
        if (m && !isIdent(prev)) {
          this.mark();
          const close = buf.indexOf(m[0], this.pos + m[0].length);
          if (close < 0) {
            if (!final) return;
            this.line += countNewlines(buf, this.pos, len);
            this.pos = len;
            return;
          }
          this.line += countNewlines(buf, this.pos, close);
          this.pos = close + m[0].length;
          continue;
        }
        if (!m && !final && len - this.pos < 64 && buf.indexOf('$', this.pos + 1) < 0) return;
        this.mark();
        this.pos++;
        continue;
      }
      if (c === 92 /* \ */) {
        if (!this.backslash(final, out)) return;
        continue;
      }
      if (isIdentStart(c)) {
        let j = this.pos + 1;
        while (j < len && isIdent(buf.charCodeAt(j))) j++;
        if (j >= len && !final) return;
        const word = buf.slice(this.pos, j);
        const first = this.tokenPos < 0;
        this.mark();
        if (!pg && first && /^delimiter$/i.test(word)) {
          if (!this.delimiterCommand(final, out)) {
            this.resetStatement();
            return;
          }
          continue;
        }
        if (pg) {
          if (this.words.length < 4) this.words.push(word.toLowerCase());
          else this.trackBegin(word);
          if ((word === 'E' || word === 'e') && j < len && buf.charCodeAt(j) === 39) {
            const end = this.quoted(j + 1, 39, true, final);
            if (end < 0) return;
            continue;
          }
        }
        this.pos = j;
        continue;
      }
      this.mark();
      this.pos++;
    }
  }

  private boringRe: RegExp | null = null;
  private boringFor = '';

  private boring(): RegExp {
    if (!this.boringRe || this.boringFor !== this.delimiter) {
      const first = this.delimiter[0]!.replace(/[\]\\^-]/g, '\\$&');
      this.boringRe = new RegExp(`[^'"\`\\\\/#*\\n\\-${first}]+`, 'y');
      this.boringFor = this.delimiter;
    }
    return this.boringRe;
  }

  private trackBegin(word: string): void {
    const w = this.words;
    const routine = w[0] === 'create' && (w[1] === 'function' || w[1] === 'procedure' || (w[1] === 'or' && (w[3] === 'function' || w[3] === 'procedure')));
    if (!routine) return;
    const u = word.toLowerCase();
    if (u === 'begin') this.beginDepth++;
    else if (u === 'case' && this.beginDepth > 0) this.beginDepth++;
    else if (u === 'end' && this.beginDepth > 0) this.beginDepth--;
  }

  /** Next backslash / newline at or after a position, cached: a long INSERT holds thousands of strings. */
  private nextBs = -2;
  private nextBsFrom = 0;
  private nextNl = -2;
  private nextNlFrom = 0;

  private findBs(i: number): number {
    if (this.nextBs === -2 || i < this.nextBsFrom || (this.nextBs !== -1 && this.nextBs < i) || this.bufRef !== this.buf) this.refresh(i);
    if (this.nextBs !== -1 && this.nextBs < i) this.refresh(i);
    return this.nextBs;
  }

  private bufRef = '';

  private refresh(i: number): void {
    this.bufRef = this.buf;
    this.nextBs = this.buf.indexOf('\\', i);
    this.nextBsFrom = i;
  }

  private findNl(i: number): number {
    if (this.nlRef !== this.buf || this.nextNl === -2 || i < this.nextNlFrom || (this.nextNl !== -1 && this.nextNl < i)) {
      this.nlRef = this.buf;
      this.nextNl = this.buf.indexOf('\n', i);
      this.nextNlFrom = i;
    }
    return this.nextNl;
  }

  private nlRef = '';

  /** A quoted string or identifier from `from` (just after the opening quote). Commits pos and line; -1 when more text is needed. */
  private quoted(from: number, quote: number, escapes: boolean, final: boolean): number {
    const buf = this.buf;
    const len = buf.length;
    const qch = quote === 39 ? "'" : quote === 34 ? '"' : '`';
    let i = from;
    let nl = 0;
    for (;;) {
      const q = buf.indexOf(qch, i);
      if (escapes) {
        const bs = this.findBs(i);
        if (bs !== -1 && (q === -1 || bs < q)) {
          if (bs + 1 >= len && !final) return -1;
          nl += this.newlinesBetween(i, Math.min(bs + 2, len));
          i = bs + 2;
          continue;
        }
      }
      if (q === -1) {
        if (!final) return -1;
        this.line += nl + this.newlinesBetween(i, len);
        this.pos = len;
        return len;
      }
      nl += this.newlinesBetween(i, q);
      if (q + 1 >= len && !final) return -1;
      if (q + 1 < len && buf.charCodeAt(q + 1) === quote) {
        i = q + 2;
        continue;
      }
      this.line += nl;
      this.pos = q + 1;
      return q + 1;
    }
  }

  private newlinesBetween(from: number, to: number): number {
    let n = 0;
    for (let k = this.findNl(from); k !== -1 && k < to; k = this.findNl(k + 1)) n++;
    return n;
  }

  private lineComment(final: boolean): boolean {
    const from = this.commentAt >= 0 ? this.pos + this.commentAt : this.pos;
    const nl = this.buf.indexOf('\n', from);
    if (nl < 0) {
      if (!final) {
        this.commentAt = this.buf.length - this.pos;
        if (this.commentAt > COMMENT_HELD) this.dropComment(this.buf.length, '');
        return false;
      }
      this.commentAt = -1;
      this.pos = this.buf.length;
      return true;
    }
    this.commentAt = -1;
    this.pos = nl;
    return true;
  }

  /**
   * A long comment without its end yet: the text read so far, from pos to `to`, is replaced by its opening
   * (`open`: the block comment's "/*" once per depth) and its newlines (every line number stays), and counted
   * in `dropped`. The reader reads on after them.
   */
  private dropComment(to: number, open: string): void {
    const buf = this.buf;
    const head = open || buf.slice(this.pos, this.pos + 3);
    const keep = head + '\n'.repeat(countNewlines(buf, this.pos + head.length, to));
    this.dropped += to - this.pos - keep.length;
    this.buf = buf.slice(0, this.pos) + keep + buf.slice(to);
    this.commentAt = keep.length;
  }

  private blockComment(final: boolean, nested: boolean): boolean {
    const buf = this.buf;
    const len = buf.length;
    let depth = this.commentAt >= 0 ? this.commentDepth : 1;
    let i = this.commentAt >= 0 ? this.pos + this.commentAt : this.pos + 2;
    this.commentAt = -1;
    while (depth > 0) {
      if (i + 1 >= len) {
        if (!final) {
          // Read on from here with the next chunk (not from the comment's start again).
          this.commentDepth = depth;
          if (i - this.pos > COMMENT_HELD) this.dropComment(i, '/*'.repeat(depth));
          else this.commentAt = i - this.pos;
          return false;
        }
        this.line += countNewlines(buf, this.pos, len);
        this.pos = len;
        return true;
      }
      const ch = buf.charCodeAt(i);
      if (ch === 42 && buf.charCodeAt(i + 1) === 47) {
        depth--;
        i += 2;
      } else if (nested && ch === 47 && buf.charCodeAt(i + 1) === 42) {
        depth++;
        i += 2;
      } else i++;
    }
    this.line += countNewlines(buf, this.pos, i);
    this.pos = i;
    return true;
  }

  /** mysql: /*!NNNNN ... *\/ is code to the client; /*M!999999\- enable the sandbox mode *\/ is a client command. */
  private execComment(final: boolean, out: SqlEvent[]): boolean {
    const buf = this.buf;
    const sandbox = '/*M!999999\\- enable the sandbox mode */';
    if (this.tokenPos < 0 && buf.charCodeAt(this.pos + 2) === 77) {
      if (!final && buf.length - this.pos < sandbox.length && sandbox.startsWith(buf.slice(this.pos))) return false;
      if (buf.startsWith(sandbox, this.pos)) {
        const nl = buf.indexOf('\n', this.pos);
        if (nl < 0 && !final) return false;
        const end = nl < 0 ? buf.length : nl + 1;
        out.push({ type: 'client', text: buf.slice(this.start, end), line: this.line, command: 'sandbox', args: '' });
        if (nl >= 0) this.line++;
        this.start = this.pos = end;
        this.dropped = 0;
        return true;
      }
    }
    const m = /^\/\*M?!\d*/.exec(buf.slice(this.pos, this.pos + 24));
    if (!m) {
      if (!final && buf.length - this.pos < 4) return false;
      return this.blockComment(final, false);
    }
    if (this.pos + m[0].length >= buf.length && !final) return false;
    this.mark();
    this.pos += m[0].length;
    this.inExec = true;
    return true;
  }

  private backslash(final: boolean, out: SqlEvent[]): boolean {
    const buf = this.buf;
    const nl = buf.indexOf('\n', this.pos);
    if (nl < 0 && !final) return false;
    const end = nl < 0 ? buf.length : nl + 1;
    const lineText = buf.slice(this.pos, nl < 0 ? buf.length : nl).replace(/\r$/, '');
    if (this.tokenPos >= 0 || this.dialect === 'mysql') {
      const what = this.dialect === 'postgres' ? 'a psql meta-command inside a statement' : 'a mysql client command';
      out.push({ type: 'error', text: buf.slice(this.start, end), line: this.line, message: `${what} (${lineText.slice(0, 40)}) is refused: a dump never holds one` });
      this.start = this.pos = end;
      this.dropped = 0;
      if (nl >= 0) this.line++;
      this.resetStatement();
      return true;
    }
    const m = /^\\([A-Za-z!?.]+|\.)\s*(.*)$/.exec(lineText);
    out.push({ type: 'meta', text: buf.slice(this.start, end), line: this.line, command: m ? m[1]! : lineText.slice(1), args: m ? m[2]!.trim() : '' });
    this.start = this.pos = end;
    this.dropped = 0;
    if (nl >= 0) this.line++;
    return true;
  }

  private delimiterCommand(final: boolean, out: SqlEvent[]): boolean {
    const buf = this.buf;
    const nl = buf.indexOf('\n', this.pos);
    if (nl < 0 && !final) return false;
    const end = nl < 0 ? buf.length : nl + 1;
    const args = buf.slice(this.pos + 'delimiter'.length, nl < 0 ? buf.length : nl).trim();
    const delim = args.split(/\s+/)[0] ?? '';
    out.push({ type: 'client', text: buf.slice(this.start, end), line: this.line, command: 'delimiter', args: delim });
    if (delim) this.delimiter = delim;
    this.start = this.pos = end;
    this.dropped = 0;
    if (nl >= 0) this.line++;
    this.resetStatement();
    return true;
  }

  private terminate(final: boolean, out: SqlEvent[]): boolean {
    const buf = this.buf;
    const termLen = this.dialect === 'postgres' ? 1 : this.delimiter.length;
    let end = this.pos + termLen;
    const head = this.tokenPos >= 0 ? buf.slice(this.tokenPos, end) : buf.slice(this.pos, end);
    const copy = this.dialect === 'postgres' && /^COPY\s[\s\S]*\sFROM\s+stdin\b/i.test(head);
    let extraLine = 0;
    if (copy) {
      const nl = buf.indexOf('\n', end);
      if (nl < 0 && !final) return false;
      end = nl < 0 ? buf.length : nl + 1;
      if (nl >= 0) extraLine = 1;
    }
    out.push({ type: 'statement', text: buf.slice(this.start, end), head, line: this.tokenPos >= 0 ? this.tokenLine : this.line, endLine: this.line, copy });
    this.line += extraLine;
    this.start = this.pos = end;
    this.dropped = 0;
    this.resetStatement();
    if (copy) this.mode = 'copy';
    return true;
  }

  /** COPY data: whole lines until "\.". False when more text is needed. */
  private scanCopy(final: boolean, out: SqlEvent[]): boolean {
    const buf = this.buf;
    const len = buf.length;
    let pos = this.pos;
    let rows = 0;
    let line = this.line;
    for (;;) {
      if (pos >= len) break;
      if (buf.charCodeAt(pos) === 92) {
        if (pos + 1 >= len && !final) break;
        if (buf.charCodeAt(pos + 1) === 46) {
          const nl = buf.indexOf('\n', pos);
          if (nl < 0 && !final) break;
          const rest = buf.slice(pos + 2, nl < 0 ? len : nl);
          if (rest === '' || rest === '\r') {
            if (pos > this.start) out.push({ type: 'copy-data', text: buf.slice(this.start, pos), rows });
            const end = nl < 0 ? len : nl + 1;
            out.push({ type: 'copy-end', text: buf.slice(pos, end), line });
            this.line = line + (nl < 0 ? 0 : 1);
            this.start = this.pos = end;
            this.dropped = 0;
            this.mode = 'normal';
            return true;
          }
        }
      }
      const nl = buf.indexOf('\n', pos);
      if (nl < 0) break;
      rows++;
      line++;
      pos = nl + 1;
    }
    if (pos > this.start) out.push({ type: 'copy-data', text: buf.slice(this.start, pos), rows });
    this.start = this.pos = pos;
    this.dropped = 0;
    this.line = line;
    return false;
  }
}
