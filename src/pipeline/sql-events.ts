// What the statement readers of SQL dumps give (src/pipeline/sql-reader.ts SqlReader over text,
// src/pipeline/sql-bytes.ts SqlBytesReader over the dump's bytes): events whose texts, put back
// together, are exactly the input. Lines are 1-based.

export interface StatementEvent {
  type: 'statement';
  /** The raw text from the end of the previous event through the terminator (leading blank lines and comments included). */
  text: string;
  /** From the statement's first token through the terminator. */
  head: string;
  /** 1-based line of the first token. */
  line: number;
  /** 1-based line of the terminator. */
  endLine: number;
  /** A COPY ... FROM stdin statement: its data lines follow (the text holds the rest of its line). */
  copy: boolean;
  /** The dump ended inside this statement (no terminator). */
  unterminated?: boolean;
}
/** A psql meta-command line (\restrict, \connect, ...), with the blank lines and comments before it. */
export interface MetaEvent {
  type: 'meta';
  text: string;
  line: number;
  /** e.g. "restrict", "connect", "c" */
  command: string;
  args: string;
}
/** A mysql client command: DELIMITER, or mariadb-dump's sandbox line. */
export interface ClientEvent {
  type: 'client';
  text: string;
  line: number;
  command: 'delimiter' | 'sandbox';
  args: string;
}
/** Complete data lines of the COPY block being read. */
export interface CopyDataEvent {
  type: 'copy-data';
  text: string;
  rows: number;
}
/** The "\." line that ends a COPY block. */
export interface CopyEndEvent {
  type: 'copy-end';
  text: string;
  line: number;
}
/** Blank lines and comments after the last statement. */
export interface TrailingEvent {
  type: 'trailing';
  text: string;
}
/** Something no dump holds and no client may run: a meta-command inside a statement, a client command. */
export interface ErrorEvent {
  type: 'error';
  text: string;
  line: number;
  message: string;
  /** Over the reader's bound (the content stage's Statements): nothing is read after it. */
  bound?: true;
}
/**
 * Lines of a COPY block as the dump's bytes (SqlBytesReader): never decoded, handed to the client as
 * they are. `rows` complete lines, each ending in "\n"; never the "\." line that ends the block.
 */
export interface CopyBytesEvent {
  type: 'copy-bytes';
  bytes: Buffer;
  rows: number;
}
export type SqlEvent = StatementEvent | MetaEvent | ClientEvent | CopyDataEvent | CopyBytesEvent | CopyEndEvent | TrailingEvent | ErrorEvent;
