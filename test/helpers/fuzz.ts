// Building blocks for the property-based tests (test/unit/fuzz-*.test.ts):
// hostile strings, an in-memory IO, and the command registry loaded from src.
import { PassThrough, Readable, Writable } from 'node:stream';
import fc from 'fast-check';
import type { IO } from '../../src/contract/context.js';

/** Escape sequences a hostile service or a pasted value may carry. */
export const ANSI_SAMPLES = [
  '\u001b[31m',
  '\u001b[0m',
  '\u001b[2J',
  '\u001b[H',
  '\u001b]0;pwned\u0007',
  '\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\',
  '\u009b31m',
  '\u001bc',
  '\u001b[?1049h',
  '\u001b[6n',
];

/** One control character from C0, DEL or C1, or a bidi override. */
export const controlChar = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.constant('\u007f'),
  fc.integer({ min: 0x80, max: 0x9f }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\u202e', '\u2066', '\u2069', '\u202a'),
);

/** Text a hostile or broken service may send, or a user may type. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  {
    weight: 3,
    arbitrary: fc
      .array(fc.oneof(fc.string({ maxLength: 8 }), controlChar, fc.constantFrom(...ANSI_SAMPLES)), { maxLength: 8 })
      .map((parts) => parts.join('')),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '-',
      '--',
      '-1',
      '0',
      '1e309',
      'NaN',
      'Infinity',
      '9007199254740993',
      '00012',
      ' 12 ',
      '0x10',
      'null',
      '{}',
      '[]',
      '%s%n%x',
      '../../etc/passwd',
      '\u0000',
      'a\nb',
      '\r\n',
      '😀👩‍👩‍👧',
      '中文名字',
      'ǅ̶̢͔̏',
      '\ud800',
      '2026-02-30T25:61:00Z',
      '-5d',
      '1h30m',
      'true',
    ),
  },
  { weight: 1, arbitrary: fc.string({ minLength: 1000, maxLength: 5000 }) },
);

/** Readable standard input holding `text`. */
export function stdinOf(text: string): Readable {
  return Readable.from([Buffer.from(text)]);
}

/** An IO whose stdout and stderr collect text, for rendering in-process. */
export interface MemoryIO extends IO {
  out(): string;
  err(): string;
}

export function memoryIO(opts: { tty?: boolean; columns?: number; stdin?: string } = {}): MemoryIO {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _enc, cb) {
        append(chunk.toString());
        cb();
      },
    });
  const stdout = sink((s) => (out += s));
  const stderr = sink((s) => (err += s));
  return {
    stdout,
    stderr,
    stdin: opts.stdin === undefined ? new PassThrough().end() : stdinOf(opts.stdin),
    stdoutIsTTY: opts.tty ?? false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    columns: opts.columns ?? 80,
    out: () => out,
    err: () => err,
  };
}

/** Control characters and escape sequences that must never reach a terminal from service data. */
export const UNSAFE_IN_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
