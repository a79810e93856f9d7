// Text from the service made safe for a terminal, and the one writer through
// which such text reaches stderr. No imports beyond scrub: every command loads it.
import type { Writable } from 'node:stream';
import { scrub } from '../util/scrub.js';


// CSI (7-bit and 8-bit), OSC (ended by BEL or ST, or unterminated), and the
// two-byte ESC sequences. Removing whole sequences rather than just the ESC
// byte keeps a hostile "\e[2J" from leaving "[2J" noise where we can avoid it.
const ANSI_SEQUENCE =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -/]*[0-~]/g;
// Bidi overrides and isolates can make a terminal show text in another order
// than it is (a file name that reads as something else), so they go too.
const UNSAFE_CHAR = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const LINE_BREAKS = /[\t\n\r\v\f]+/g;
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Makes a value from the service safe for one terminal line: ANSI escape
 * sequences and C0/C1 control characters are removed; tabs and line breaks
 * become one space so that words stay apart.
 */
export function sanitize(text: string): string {
  if (!UNSAFE_CHAR.test(text)) return text;
  return text.replace(ANSI_SEQUENCE, '').replace(LINE_BREAKS, ' ').replace(UNSAFE_CHARS, '');
}

/** Like sanitize, but keeps line breaks and tabs (multi-line text a handler built). */
export function sanitizeMultiline(text: string): string {
  if (!UNSAFE_CHAR.test(text)) return text;
  return text
    .replace(ANSI_SEQUENCE, '')
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '');
}

/** One TSV field: escape sequences removed, every other control character (tab, newline) becomes a space. */
export function tsvField(text: string): string {
  if (!UNSAFE_CHAR.test(text)) return text;
  return text.replace(ANSI_SEQUENCE, '').replace(UNSAFE_CHARS, ' ');
}

/**
 * Writes one line holding service text to stderr (warnings, notes, --debug
 * traces): it passes through sanitize (escape sequences, C0/C1 controls, bidi
 * overrides removed: no OSC 52 clipboard write, no cleared screen; a line break
 * inside becomes a space, so no fake second line) and scrub (the token and
 * secrets blanked). The only way such text reaches stderr besides main.ts's
 * error report, which does the same.
 */
export function writeServiceLine(stream: Writable, line: string): void {
  stream.write(scrub(sanitize(line.replace(/\n$/, ''))) + '\n');
}
