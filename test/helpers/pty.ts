// The CLI in a real pseudo-terminal: util-linux `script` gives it a pty on
// stdin, stdout and stderr, so it sees a terminal of the size `stty` sets.
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { BIN, cleanEnv } from './cli.js';

export interface PtyOptions {
  /** Typed once a prompt (`?`) has appeared. */
  keys?: string;
  /** `stty` settings to apply first, e.g. `cols 60 rows 40`; else script's own size. */
  stty?: string;
  timeoutMs?: number;
  /** A shell command the CLI's stdout is piped into (stderr stays on the terminal), e.g. `sha256sum`. */
  pipe?: string;
}

/** Runs the CLI under `script`; `output` is what the terminal received (stdout and stderr, `\r\n` line ends). */
export function inPty(args: string[], env: Record<string, string | undefined>, opts: PtyOptions = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const cli = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const cmd = (opts.stty ? `stty ${opts.stty}; ` : '') + (opts.pipe ? `${cli} | ${opts.pipe}` : `exec ${cli}`);
    // The same terminal wherever the suite runs: CI has no TERM (and may set CI,
    // which turns chalk's colour off), a developer's shell has its own.
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: cleanEnv({ TERM: 'xterm-256color', CI: undefined, ...env }), stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let typed = false;
    // One decoder per stream: a chunk may end inside a character (✔ is three bytes), and decoding
    // chunks one by one turned its halves into U+FFFD ("���✔✔…" seen once at 200 columns in CI).
    const decoders = { out: new StringDecoder('utf8'), err: new StringDecoder('utf8') };
    const onData = (decoder: StringDecoder) => (d: Buffer) => {
      output += decoder.write(d);
      // A runaway terminal writer (see the spinner tests) must not fill this process's memory.
      if (output.length > 1_000_000) child.kill('SIGKILL');
      if (opts.keys !== undefined && !typed && /\?/.test(output)) {
        typed = true;
        setTimeout(() => child.stdin.write(opts.keys), 150);
      }
    };
    child.stdout.on('data', onData(decoders.out));
    child.stderr.on('data', onData(decoders.err));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 15_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The lines a terminal shows: colours and cursor codes removed, `\r\n` split. */
export function screenLines(output: string): string[] {
  return output
    // Cursor to column 1 (the spinner clears its line so) acts as a carriage return.
    .replace(/\u001b\[1?G/g, '\r')
    .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
    .replace(/\u001b\][^\u0007]*\u0007/g, '')
    .split(/\r?\n/)
    // What follows the last carriage return of a line overwrote what came before it.
    .map((l) => l.replace(/\r$/, '').replace(/^[^]*\r/, ''));
}
