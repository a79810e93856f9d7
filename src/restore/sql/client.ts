// A database client (psql, mariadb, pg_restore) fed through its stdin with
// backpressure: text is gathered into 1 MB writes (as `gunzip | psql` would
// hand it over), and a write waits while more than AHEAD bytes wait for the
// pipe (until they are down to RESUME_AT). A client that
// stops (an error with ON_ERROR_STOP) marks itself dead instead of throwing
// EPIPE at the writer.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

const FLUSH_AT = 1 << 20;
/**
 * Bytes handed to stdin that the pipe has not taken yet: up to AHEAD a write returns at once; past it,
 * it waits until they are down to RESUME_AT. Waiting for 'drain' instead (the queue empty) left the
 * client only what a pipe holds (64 kB, about a millisecond of psql's work on a COPY) each time this
 * process paused (garbage collection, the next chunk to inflate): a 200 MB restore into PostgreSQL
 * took ~1 s longer than `gunzip | psql`, whose gunzip is always ready (bench/results.md).
 */
const AHEAD = 8 << 20;
const RESUME_AT = 4 << 20;
/** A text at least this long is written on its own. */
const DIRECT_AT = 1 << 16;

export class PipedClient {
  readonly child: ChildProcess;
  dead = false;
  private pending: string[] = [];
  private pendingLen = 0;
  private err = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(cmd: string, args: string[], opts: { env: NodeJS.ProcessEnv; stdout?: 'ignore' | 'pipe'; uid?: number; gid?: number }) {
    const so: SpawnOptions = { env: opts.env, stdio: ['pipe', opts.stdout ?? 'ignore', 'pipe'] };
    if (opts.uid !== undefined) so.uid = opts.uid;
    if (opts.gid !== undefined) so.gid = opts.gid;
    this.child = spawn(cmd, args, so);
    this.child.stdin!.on('error', () => {
      this.dead = true;
      this.wake();
    });
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.err += d;
      if (this.err.length > 256 * 1024) this.err = this.err.slice(0, 64 * 1024) + this.err.slice(-128 * 1024);
    });
    this.exited = new Promise((resolve) => {
      this.child.on('error', (e) => {
        this.dead = true;
        this.wake();
        this.err += `${e.message}\n`;
        resolve({ code: null, signal: null });
      });
      this.child.on('close', (code, signal) => {
        this.dead = true;
        this.wake();
        resolve({ code, signal });
      });
    });
  }

  get stderr(): string {
    return this.err;
  }

  async write(text: string): Promise<void> {
    if (this.dead) return;
    if (text.length >= DIRECT_AT) {
      // A long text (a COPY block's data, a whole decoded chunk) goes out as it is: no copy into a joined string.
      await this.flush();
      if (this.dead) return;
      await this.send(text);
      return;
    }
    this.pending.push(text);
    this.pendingLen += text.length;
    if (this.pendingLen >= FLUSH_AT) await this.flush();
  }

  async writeBuffer(chunk: Buffer): Promise<void> {
    await this.flush();
    if (this.dead) return;
    await this.send(chunk);
  }

  async flush(): Promise<void> {
    if (this.pendingLen === 0 || this.dead) {
      this.pending = [];
      this.pendingLen = 0;
      return;
    }
    const data = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.pendingLen = 0;
    await this.send(data);
  }

  /** Writes; waits only while more than AHEAD bytes are queued for the pipe, until they are down to RESUME_AT (or the client is gone). */
  private async send(data: string | Buffer): Promise<void> {
    const stdin = this.child.stdin!;
    stdin.write(data, this.wake);
    if (stdin.writableLength <= AHEAD || this.dead) return;
    await new Promise<void>((resolve) => {
      this.waiting = resolve;
      this.wake();
    });
  }

  private waiting: (() => void) | null = null;

  /** Called as each write reaches the pipe (and when the client exits): lets a waiting write go on once the queue is short. */
  private readonly wake = (): void => {
    if (this.waiting && (this.dead || this.child.stdin!.writableLength <= RESUME_AT)) {
      const go = this.waiting;
      this.waiting = null;
      go();
    }
  };

  /** No more input: flush and close stdin, without waiting for the exit (pg_restore's output is read elsewhere). */
  async closeInput(): Promise<void> {
    await this.flush();
    if (!this.dead) this.child.stdin!.end();
  }

  async end(): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
    await this.flush();
    if (!this.dead) this.child.stdin!.end();
    const r = await this.exited;
    return { ...r, stderr: this.err };
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}
