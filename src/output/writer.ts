// Writing to stdout/stderr with backpressure, and ending quietly when the
// reader goes away (`backupctl servers list | head -1`).
import type { Writable } from 'node:stream';

interface StreamState {
  /** The reader closed the pipe: further output is dropped. */
  broken: boolean;
  /** Any other write error; reported by the next write. */
  error: Error | undefined;
}

const states = new WeakMap<Writable, StreamState>();

function isBrokenPipeError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}

// The listener stays for the life of the stream: an EPIPE can be emitted
// after render() has returned, and an 'error' with no listener kills the
// process with a stack trace.
function stateOf(stream: Writable): StreamState {
  let state = states.get(stream);
  if (!state) {
    const created: StreamState = { broken: false, error: undefined };
    stream.on('error', (err: Error) => {
      if (isBrokenPipeError(err)) created.broken = true;
      else created.error ??= err;
    });
    states.set(stream, created);
    state = created;
  }
  return state;
}

/** True once a write to this stream found the reader gone. */
export function isBrokenPipe(stream: Writable): boolean {
  return states.get(stream)?.broken === true;
}

export class OutputWriter {
  private readonly state: StreamState;

  constructor(private readonly stream: Writable) {
    this.state = stateOf(stream);
  }

  /** False once the reader has gone: callers stop producing output. */
  get open(): boolean {
    if (this.state.broken) return false;
    if (this.stream.destroyed || this.stream.writableEnded) {
      this.state.broken = true;
      return false;
    }
    return true;
  }

  /**
   * Writes and, when the stream's buffer is full, waits for it to drain.
   * Resolves false when the reader has gone; rejects on other write errors.
   */
  async write(chunk: string | Buffer): Promise<boolean> {
    this.throwIfFailed();
    if (!this.open) return false;
    if (chunk.length === 0) return true;
    let ready: boolean;
    try {
      ready = this.stream.write(chunk);
    } catch (err) {
      if (isBrokenPipeError(err)) {
        this.state.broken = true;
        return false;
      }
      throw err;
    }
    if (!ready) await this.drained();
    this.throwIfFailed();
    return this.open;
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.open) {
        resolve();
        return;
      }
      const done = (): void => {
        this.stream.off('drain', done);
        this.stream.off('error', done);
        this.stream.off('close', done);
        resolve();
      };
      this.stream.on('drain', done);
      this.stream.on('error', done);
      this.stream.on('close', done);
    });
  }

  private throwIfFailed(): void {
    const err = this.state.error;
    if (err) {
      // Report once: the caller turns it into an error exit.
      this.state.error = undefined;
      this.state.broken = true;
      throw err;
    }
  }
}
