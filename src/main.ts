// argv -> command -> exit code. The only place that prints errors and exits.
// Start-up is kept small: `--version` answers before anything else loads, and
// the command tree is built from dist/startup/ (see startupSource) without loading handlers.
import { fstatSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import type { IO } from './contract/context.js';
import { CliError, ExitCode, InterruptedError } from './errors.js';
import { scrub } from './util/scrub.js';
import { VERSION, startupSource } from './cli/startup.js';

export { VERSION, startupSource } from './cli/startup.js';

export async function cli(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  // A reader that goes away (`backupctl --help | head -1`) is not an error.
  const io = processIO((stdout) =>
    stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    }),
  );
  const code = await run(argv, io, process.env);
  process.exit(code);
}

/** The single executable started as restore-test's PGlite child (src/sea.cjs): PGlite from its blob, behind IPC. */
export async function seaChild(): Promise<void> {
  const { seaPgliteChild } = await import('./restore/sql/pglite.js');
  await seaPgliteChild();
}

/**
 * The process's streams. stdout into a pipe or a file is written with
 * fs.writeSync until a caller needs the stream itself (see directStdout);
 * process.stderr is made when first asked for. `onStdout` gets process.stdout
 * once it exists.
 */
export function processIO(onStdout?: (stdout: NodeJS.WriteStream) => void): IO {
  let stdoutStream: NodeJS.WriteStream | undefined;
  const realStdout = (): NodeJS.WriteStream => {
    if (!stdoutStream) {
      stdoutStream = process.stdout;
      onStdout?.(stdoutStream);
    }
    return stdoutStream;
  };
  const direct = !couldBeTerminal(1);
  return {
    stdout: direct ? directStdout(realStdout) : realStdout(),
    // Made on first use: most commands write nothing to stderr.
    get stderr() {
      return process.stderr;
    },
    // process.stdin builds a stream on first use (a few ms): only commands that read it pay.
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY: !direct && !!realStdout().isTTY,
    get stderrIsTTY() {
      return couldBeTerminal(2) && !!process.stderr.isTTY;
    },
    // node:tty loads only when this is asked (a prompt, a passphrase): a list into a pipe never needs it.
    get stdinIsTTY() {
      return (createRequire(import.meta.url)('node:tty') as typeof import('node:tty')).isatty(0);
    },
    // Fit a terminal's width; in a pipe or file nothing is cut (unless COLUMNS says a width).
    columns: !direct && realStdout().isTTY ? realStdout().columns || 80 : Number(process.env.COLUMNS) || Infinity,
  };
}

/**
 * False when `fd` is a pipe, a socket or a file, which no terminal is (one
 * fstat). A character device may be a terminal or /dev/null: only node's
 * stream for it can tell, and it is made as before.
 */
function couldBeTerminal(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return !(stat.isFIFO() || stat.isFile() || stat.isSocket());
  } catch {
    return true;
  }
}

/**
 * stdout into a pipe or a file, for the commands that only write a few lines
 * (`--help` above all): making process.stdout for a pipe builds a net.Socket
 * and loads node's stream modules, a fifth of a `--help` start (docs/startup.md).
 * write() goes to the descriptor with fs.writeSync, as node writes a pipe or
 * a file from process.stdout on Linux anyway (synchronously), so nothing is
 * reordered. Anything else asked of it (events, end, pipe, its state: a list's
 * writer, a download) makes the real process.stdout and is handed to it, and
 * every later write goes there too. A write that fails (EPIPE, EAGAIN on a
 * non-blocking descriptor) is done again by the real stream, which reports it
 * as it always did; a partial write hands it the rest.
 */
function directStdout(real: () => NodeJS.WriteStream): Writable {
  let switched = false;
  const stream = (): NodeJS.WriteStream => {
    switched = true;
    return real();
  };
  const write = (chunk: string | Uint8Array, encoding?: unknown, cb?: unknown): boolean => {
    if (switched || (typeof encoding === 'string' && encoding !== 'utf8' && encoding !== 'utf-8')) {
      return (stream().write as (...a: unknown[]) => boolean)(chunk, encoding, cb);
    }
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(1, bytes, done, bytes.length - done);
    } catch {
      return (stream().write as (...a: unknown[]) => boolean)(bytes.subarray(done), cb ?? encoding);
    }
    const callback = typeof encoding === 'function' ? encoding : cb;
    if (typeof callback === 'function') process.nextTick(callback as () => void);
    return true;
  };
  return new Proxy({} as Writable, {
    get(_target, key) {
      if (key === 'write' && !switched) return write;
      const s = stream();
      const value = Reflect.get(s, key, s) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(s) : value;
    },
    set: (_target, key, value) => Reflect.set(stream(), key, value),
    has: (_target, key) => Reflect.has(stream(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(stream()),
  });
}

export async function run(argv: string[], io: IO, env: NodeJS.ProcessEnv): Promise<number> {
  const controller = new AbortController();
  // Ctrl-C (SIGINT) and SIGTERM (kill, systemd, a container stopping) end the work the
  // same way: the signal aborts what is under way, so .part files are removed and a POST
  // that may have arrived says so. Exit 130 or 143 (128 + the signal's number).
  let interrupted: 'SIGINT' | 'SIGTERM' | undefined;
  const exitFor = (signal: 'SIGINT' | 'SIGTERM') => (signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted);
  const stoppedBy = (signal: 'SIGINT' | 'SIGTERM') => (signal === 'SIGTERM' ? 'Terminated.\n' : 'Interrupted.\n');
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    // A second signal stops at once.
    if (interrupted) process.exit(exitFor(interrupted));
    interrupted = signal;
    controller.abort(new InterruptedError(signal === 'SIGTERM' ? 'Terminated' : 'Interrupted'));
  };
  const onSigint = () => onSignal('SIGINT');
  const onSigterm = () => onSignal('SIGTERM');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  const debug = argv.includes('--debug') || env.BACKUPCTL_DEBUG === '1';
  let untilInterrupted = false;
  // The event loop ran dry while the command still waited: it waits on a promise nothing can settle any more (a
  // driver that drops a query it was sent once its connection is destroyed did this after Ctrl-C). Node would
  // then exit 0 without a word: a run that never finished would read as a success. It fails instead, and says so.
  const onDrained = () => {
    // A command that runs until Ctrl-C (the emulator) ended the way it should.
    if (interrupted && untilInterrupted) process.exit(ExitCode.ok);
    if (interrupted) {
      io.stderr.write(stoppedBy(interrupted));
      process.exit(exitFor(interrupted));
    }
    io.stderr.write('error: unexpected failure: the command stopped before it finished (it waited on something that can no longer answer)\nReport it, with the command and --debug output.\n');
    process.exit(ExitCode.refused);
  };
  process.on('beforeExit', onDrained);
  try {
    const { buildProgram } = await import('./cli/program.js');
    const program = buildProgram(startupSource(), io, async (spec, positionals, options, globals) => {
      untilInterrupted = spec.runsUntilInterrupted === true;
      const { runCommand } = await import('./commands/runner.js');
      await runCommand({ spec, positionals, options, globals, io, env, signal: controller.signal });
    }, async () => (await import('./commands/topics.js')).topics);
    await program.parseAsync(argv, { from: 'user' });
    return interrupted && !untilInterrupted ? exitFor(interrupted) : ExitCode.ok;
  } catch (err) {
    if (interrupted) {
      io.stderr.write(stoppedBy(interrupted));
      // What goes on without us, and how to follow it (a backup started before --wait was interrupted).
      if (err instanceof InterruptedError) for (const line of err.details) io.stderr.write(scrub(`${line}\n`));
      return exitFor(interrupted);
    }
    return await report(err, io, debug);
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    process.off('beforeExit', onDrained);
  }
}

async function report(err: unknown, io: IO, debug: boolean): Promise<number> {
  // Messages carry text from the service (its `message`, field errors, an echoed value):
  // escape sequences and control characters in it must not reach the terminal.
  // Loaded only here, so the start-up path does not pay for it.
  const { writeServiceLine } = await import('./output/sanitize.js');
  const e = err as { code?: string; exitCode?: number; name?: string; message?: string; stack?: string };
  if (typeof e?.code === 'string' && e.code.startsWith('commander.')) {
    // commander has printed its own message (or the help / version).
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return ExitCode.ok;
    // A bare group (`backupctl jobs`) prints its help on stdout: an answer, not a mistake.
    if (e.code === 'commander.help' && e.exitCode === 0) return ExitCode.ok;
    return ExitCode.usage;
  }
  if (err instanceof CliError) {
    // An error without a message (plan's "changes pending") has already said everything on stdout.
    if (err.message) writeServiceLine(io.stderr, `error: ${err.message}`);
    for (const line of err.details) writeServiceLine(io.stderr, line);
    return err.exitCode;
  }
  if (e?.name === 'AbortError' || e?.name === 'ExitPromptError') {
    io.stderr.write('Interrupted.\n');
    return ExitCode.interrupted;
  }
  writeServiceLine(io.stderr, `error: unexpected failure: ${String(e?.message ?? err)}`);
  if (debug && e?.stack) io.stderr.write(scrub(`${e.stack}\n`));
  else io.stderr.write('Run again with --debug for details, and report it if it persists.\n');
  return ExitCode.refused;
}
