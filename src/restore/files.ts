// File archives (tar, tar.gz, zip) restored for real: extracted into a private
// temporary folder (0700), then counted against the archive's own listing
// (tar headers, a zip's central directory). --exec runs inside it later, in
// settle(), once the pipeline has judged the bytes (verify's checks and the
// ledger's "changed since"): never on bytes that failed.
//   - A path that is absolute, or has a `..` part, is refused: the test fails,
//     nothing more is written.
//   - The bounds (src/pipeline/bounds.ts): entries and bytes extracted
//     (BACKUPCTL_RESTORE_MAX_ENTRIES, BACKUPCTL_RESTORE_MAX_BYTES), a zip's
//     listing (BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES, _INFLATED, applied by the
//     check's walk; its declared total against the byte bound and the disk
//     before the first member); before an entry is written, the file system
//     must have room for it and a reserve.
//   - A link is resolved as the file system would resolve it: part by part,
//     following every link on the way, dangling ones included (`x -> .`, then
//     `y -> x/x/../..`). A link whose walk leaves the folder at any step is
//     refused; after extraction every link is walked once more (a chain made
//     in another order: `a -> d/..` before `d -> .`).
//   - Every write goes to a real parent folder inside the root (checked with
//     realpath) and never follows a link at the last step (O_EXCL|O_NOFOLLOW).
//   - Devices and FIFOs are not made (a warning).
// The folder is removed afterwards (end, abort, Ctrl-C), unless --keep.
// Nothing here parses the archive: the content stage's check walks it once
// (a tar's headers, a zip's central directory, verify's bounds on both) and
// hands each member and its bytes over (ContentSink.entries); the rules above
// are applied to the members as the walk gives them, one after the other.
// The walk's own bounds (a zip's entries apart, their count, the bytes they
// inflate to, the gzip ratio) refuse before a member is handed over.
import { spawn } from 'node:child_process';
import { constants as fsc } from 'node:fs';
import { link, lstat, mkdir, mkdtemp, open, readdir, readlink, realpath, rm, statfs, symlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BOUND_SETTINGS, DEFAULT_BOUNDS, diskReserve, type Bounds } from '../pipeline/bounds.js';
import type { ArchiveEntry as WalkedEntry, EntryContent, EntryWatcher } from '../pipeline/types.js';
import { emptyRestore, type EngineInfo, type ExecResult, type FileRestore, type RestoreEngine, type RestoreOptions, type RestoreSink } from './types.js';
import { whenAborted } from '../util/abort.js';
import { Pipe } from './pipe.js';

/** Why an entry is refused, or undefined when its name is a safe relative path. */
export function unsafeEntryName(name: string): string | undefined {
  const n = name.replace(/\\/g, '/');
  if (n.startsWith('/') || /^[a-zA-Z]:\//.test(n)) return 'an absolute path';
  if (n.split('/').includes('..')) return 'a path with ".." that leads outside the folder';
  if (n.includes('\0')) return 'a NUL byte in its name';
  return undefined;
}

const inside = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

class Refused extends Error {}

/** The most links one walk follows (the kernel's ELOOP limit). */
const MAX_HOPS = 40;

/**
 * Where `target` leads from the real folder `from`, walked as the file system
 * walks it: part by part, every link on the way followed (its own target read
 * from where it lies), `..` taken from the real folder reached, not from the
 * text. Once a part does not exist (a dangling link), the rest is taken as
 * plain names. Refused as soon as a step leaves `root`: what a link leads to
 * may then depend on what lies outside. Returns the real path reached.
 */
export async function walkInside(root: string, from: string, target: string, what: () => string): Promise<string> {
  if (!inside(root, from)) throw new Refused(`${what()}: it points outside the folder`);
  const parts = target.replace(/\\/g, '/').split('/');
  let cur = from;
  let missing = false;
  let hops = 0;
  while (parts.length) {
    const part = parts.shift()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      cur = path.dirname(cur);
      if (!inside(root, cur)) throw new Refused(`${what()}: it points outside the folder`);
      continue;
    }
    const next = path.join(cur, part);
    if (!missing) {
      const st = await lstat(next).catch(() => undefined);
      if (!st) missing = true;
      else if (st.isSymbolicLink()) {
        if (++hops > MAX_HOPS) throw new Refused(`${what()}: more than ${MAX_HOPS} links in a row`);
        const link = await readlink(next);
        if (path.isAbsolute(link) || /^[a-zA-Z]:[\\/]/.test(link)) throw new Refused(`${what()}: it leads through a link to an absolute path`);
        // The link's target, read from the folder the link lies in (cur), then what was left.
        parts.unshift(...link.replace(/\\/g, '/').split('/'));
        continue;
      } else if (!st.isDirectory() && parts.some((p) => p !== '' && p !== '.')) {
        // A file with more parts after it: the kernel stops here (ENOTDIR); the rest goes nowhere real.
        missing = true;
      }
    }
    cur = next;
  }
  return cur;
}


export interface ArchiveEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'link' | 'other';
  size: number;
  mode: number;
  linkname?: string;
}

/** "2.0 GiB" for a bound's message. */
function sizeWords(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${bytes} bytes` : `${Number(n.toFixed(1))} ${units[u]}`;
}

/** The folder and the counts shared by the tar and zip extractors. */
class Extraction {
  files = 0;
  bytes = 0;
  /** Every entry seen (files, folders, links, others), against BACKUPCTL_RESTORE_MAX_ENTRIES. */
  entries = 0;
  /** What the archive's own listing says (tar headers, zip central directory). */
  listedFiles = 0;
  listedBytes = 0;
  warnings: string[] = [];
  /** Folders made and checked inside the root: a folder is checked once, not once per file in it. */
  private readonly dirs = new Set<string>();
  /** Bytes that may still be written before the file system is asked again (statfs). */
  private room = 0;
  constructor(
    readonly root: string,
    private readonly realRoot: string,
    private readonly bounds: Bounds,
  ) {
    this.dirs.add(realRoot);
  }

  static async create(base: string, bounds: Bounds): Promise<Extraction> {
    const root = path.join(base, 'files');
    await mkdir(root, { mode: 0o700 });
    return new Extraction(root, await realpath(root), bounds);
  }

  /**
   * Makes room for `bytes` more on the folder's file system: refused when they would
   * leave less than the reserve free (checked before they are written, not after).
   */
  async reserve(bytes: number, what: string): Promise<void> {
    if (bytes <= this.room) {
      this.room -= bytes;
      return;
    }
    const st = await statfs(this.realRoot);
    const free = st.bavail * st.bsize;
    const keep = diskReserve(st.blocks * st.bsize);
    if (free - keep < bytes) {
      throw new Refused(
        `refused ${what}: its ${sizeWords(bytes)} would leave less than ${sizeWords(keep)} free on the file system of ${path.dirname(path.dirname(this.root))} ` +
          `(${sizeWords(free)} free); give TMPDIR a folder with more room`,
      );
    }
    this.room = free - keep - bytes;
  }

  /** Whether `bytes` fit on the folder's file system with the reserve left, asked before any of them is written (a zip's declared total). */
  async fits(bytes: number, what: string): Promise<void> {
    await this.reserve(bytes, what);
    // Only asked: each entry reserves its own bytes as it is written.
    this.room += bytes;
  }

  /** Counts one more entry against BACKUPCTL_RESTORE_MAX_ENTRIES. */
  private count(): void {
    if (++this.entries > this.bounds.maxExtractEntries) {
      throw new Refused(`the archive holds more than ${this.bounds.maxExtractEntries} entries: refused; raise the bound with ${BOUND_SETTINGS.maxExtractEntries}`);
    }
  }

  /** Counts `bytes` more extracted against BACKUPCTL_RESTORE_MAX_BYTES. */
  private grow(bytes: number): void {
    if (this.bytes + bytes > this.bounds.maxExtractBytes) {
      throw new Refused(`the archive's files extract to more than ${this.bounds.maxExtractBytes} bytes: refused; raise the bound with ${BOUND_SETTINGS.maxExtractBytes}`);
    }
  }

  /** The checked target path of an entry: refuses unsafe names, makes its parent folders. */
  private async target(name: string): Promise<string | undefined> {
    const why = unsafeEntryName(name);
    if (why) throw new Refused(`refused the entry ${JSON.stringify(name)}: ${why}`);
    const rel = name.replace(/\\/g, '/').split('/').filter((p) => p && p !== '.').join('/');
    if (!rel) return undefined;
    const full = path.join(this.realRoot, rel);
    await this.makeDir(path.dirname(full));
    return full;
  }

  private async makeDir(dir: string): Promise<void> {
    // Checked once: no later entry can turn a folder or a link that exists into another (EEXIST, refused below).
    if (this.dirs.has(dir)) return;
    if (!inside(this.realRoot, dir)) throw new Refused(`refused a folder outside the extraction folder`);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const real = await realpath(dir);
    if (!inside(this.realRoot, real)) throw new Refused(`refused to write through a link that leads outside the folder (${path.relative(this.realRoot, dir)})`);
    this.dirs.add(dir);
  }

  /** Writes one entry; `data` streams a file's bytes. */
  async entry(e: ArchiveEntry, data: AsyncIterable<Buffer> | undefined): Promise<void> {
    this.count();
    if (e.type === 'file') {
      this.listedFiles++;
      this.listedBytes += e.size;
      // Before a byte is written: the bound, then the disk.
      this.grow(e.size);
      await this.reserve(e.size, `the entry ${JSON.stringify(e.name)}`);
    }
    const full = await this.target(e.name);
    if (!full) return;
    switch (e.type) {
      case 'directory':
        await this.makeDir(full);
        return;
      case 'file': {
        let fh: FileHandle;
        try {
          fh = await open(full, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, (e.mode & 0o755) | 0o600);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
          // A later entry of the same name replaces the earlier one (as tar does), never through a link.
          const st = await lstat(full);
          if (!st.isFile()) throw new Refused(`refused the entry ${JSON.stringify(e.name)}: it would replace a ${st.isSymbolicLink() ? 'link' : 'folder'}`);
          await rm(full);
          fh = await open(full, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, (e.mode & 0o755) | 0o600);
        }
        let written = 0;
        try {
          for await (const chunk of data ?? []) {
            // More than the header said (a zip entry whose size lies): the bounds hold all the same.
            if (written + chunk.length > e.size) {
              this.grow(written + chunk.length);
              await this.reserve(written + chunk.length - Math.max(written, e.size), `the entry ${JSON.stringify(e.name)}`);
            }
            await fh.write(chunk);
            written += chunk.length;
          }
        } finally {
          await fh.close();
        }
        this.files++;
        this.bytes += written;
        return;
      }
      case 'symlink': {
        const target = e.linkname ?? '';
        if (path.isAbsolute(target) || /^[a-zA-Z]:[\\/]/.test(target)) throw new Refused(`refused the link ${JSON.stringify(e.name)}: it points to an absolute path`);
        // Walked as the file system would, from the real folder the link lies in (made and checked above: `..` of a
        // folder reached through a link is that link's target's parent).
        await walkInside(this.realRoot, await realpath(path.dirname(full)), target, () => `refused the link ${JSON.stringify(e.name)} -> ${JSON.stringify(target)}`);
        await symlink(target, full);
        return;
      }
      case 'link': {
        const target = e.linkname ?? '';
        const refusal = `refused the hard link ${JSON.stringify(e.name)} -> ${JSON.stringify(target)}`;
        if (unsafeEntryName(target)) throw new Refused(`${refusal}: it points outside the folder`);
        const real = await walkInside(this.realRoot, this.realRoot, target, () => refusal);
        const st = await lstat(real).catch(() => undefined);
        if (!st?.isFile()) throw new Refused(`${refusal}: it points to ${st ? 'something that is not a file' : 'nothing extracted before it'}`);
        await link(real, full);
        return;
      }
      default:
        this.warnings.push(`${e.name}: a device or FIFO, not made`);
    }
  }

  /** Every link left in the folder, walked again now that all are made (a chain made in another order). */
  async checkLinks(): Promise<void> {
    const walk = async (dir: string): Promise<void> => {
      for (const d of await readdir(dir, { withFileTypes: true })) {
        const p = path.join(dir, d.name);
        if (d.isDirectory()) await walk(p);
        else if (d.isSymbolicLink()) {
          const target = await readlink(p);
          await walkInside(this.realRoot, dir, target, () => `refused the link ${JSON.stringify(path.relative(this.realRoot, p))} -> ${JSON.stringify(target)}`);
        }
      }
    };
    await walk(this.realRoot);
  }
}

/** The variables --exec gets from the environment backupctl was given, and nothing else. */
const EXEC_VARIABLES = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TERM', 'TMPDIR'];

/**
 * The environment of --exec: the archive's own scripts may run (make test,
 * ./check.sh), so they get the few variables a shell needs (EXEC_VARIABLES,
 * LC_*), taken from `env` (the command context's environment). Never the API
 * token or any BACKUPCTL_* setting, never a database password (PGPASSWORD,
 * MYSQL_PWD, the --into URL), nothing else the user's shell holds.
 */
export function execEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (EXEC_VARIABLES.includes(name) || /^LC_[A-Z_]+$/.test(name))) out[name] = value;
  }
  out.PATH ??= '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
  return out;
}

/** Runs `command` with sh -c inside `cwd`, killed (its whole group) after `timeoutMs` or on abort; its environment is execEnv(env). */
export async function runExec(command: string, cwd: string, timeoutMs: number, signal: AbortSignal, env: NodeJS.ProcessEnv = {}): Promise<ExecResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { cwd, env: execEnv(env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (d: Buffer) => {
      tail = (tail + d.toString('utf8')).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    whenAborted(signal, kill);
    const finish = (code: number | null, sig: NodeJS.Signals | null) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', kill);
      resolve({
        command,
        exit_code: code,
        signal: sig,
        timed_out: timedOut,
        output_tail: tail.split('\n').slice(-10).join('\n').trimEnd(),
        seconds: (performance.now() - started) / 1000,
      });
    };
    child.on('error', (err) => {
      tail += String(err.message);
      finish(127, null);
    });
    child.on('close', finish);
  });
}

export type ArchiveFormat = 'tar' | 'zip';

/** A zip link's target: its content, a path (PATH_MAX 4096), never a place to hide a bomb in memory. */
async function linkTarget(bytes: AsyncIterable<Buffer>, name: string): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const c of bytes) {
    if ((length += c.length) > 4096) throw new Refused(`refused the link ${JSON.stringify(name)}: its target is longer than 4096 bytes`);
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A RestoreSink for a file archive (tar, zip, gzipped or not). It parses nothing: the
 * content stage's check walks the archive once (src/pipeline/content/tar.ts, zip.ts,
 * within verify's bounds, a zip from its central directory) and hands this sink each
 * member with its bytes (ContentSink.entries); each is extracted, one after the other,
 * through the rules above, and the walk waits for it. write() gets the decoded bytes
 * too, and ignores them.
 */
export class FileArchiveSink implements RestoreSink {
  private base?: string;
  private extraction?: Extraction;
  private failure?: string;
  private started = 0;
  private aborted = false;
  private generation = 0;
  /** The folder being made (undefined when it could not be): an abort that comes meanwhile waits for it, then removes it. */
  private ready?: Promise<Extraction | undefined>;
  /** The members' extraction, one after the other in the walk's order; never rejects. */
  private chain: Promise<void> = Promise.resolve();
  /** The member whose bytes are coming. */
  private pipe?: Pipe;
  /** The walk began; `done` once it ended (close), or the sink stopped; `failure`: why the walk stopped early. */
  private walk?: { done: Promise<void>; end: () => void; failure?: string };
  /** end() has extracted and checked; --exec waits for settle() (the pipeline's verdict on the bytes). */
  private extracted = false;
  private readonly bounds: Bounds;

  constructor(
    private readonly format: ArchiveFormat,
    private readonly o: RestoreOptions,
  ) {
    this.bounds = o.bounds ?? DEFAULT_BOUNDS;
  }

  /** The walk of the content stage's check (every call guarded here: a watcher that threw would never hear close). */
  readonly entries: EntryWatcher = {
    begin: (format) => this.guarded(() => this.begin(format)),
    listed: (total) => this.listed(total),
    entry: (e) => {
      try {
        return this.member(e);
      } catch (err) {
        this.failure ??= (err as Error).message;
        return undefined;
      }
    },
    close: (failure) => this.guarded(() => this.closeWalk(failure)),
  };

  private guarded(f: () => void): void {
    try {
      f();
    } catch (err) {
      this.failure ??= (err as Error).message;
    }
  }

  private begin(format: 'tar' | 'zip'): void {
    if (format !== this.format) this.failure ??= `the check walks a ${format}, the engine was opened for a ${this.format}`;
    if (!this.started) this.started = performance.now();
    let end!: () => void;
    const done = new Promise<void>((resolve) => (end = resolve));
    this.walk = { done, end };
    const generation = this.generation;
    // Aborted before the walk reached the archive: no folder is made (nothing would remove it).
    if (this.aborted) {
      this.ready = Promise.resolve(undefined);
      return;
    }
    this.ready = (async () => {
      let base: string | undefined;
      try {
        base = await mkdtemp(path.join(tmpdir(), 'backupctl-restore-'));
        const x = await Extraction.create(base, this.bounds);
        if (generation !== this.generation || this.aborted) throw new Error('restarted');
        this.base = base;
        this.extraction = x;
        return x;
      } catch (err) {
        if (generation === this.generation && !this.aborted) this.failure ??= `the extraction folder could not be made: ${(err as Error).message}`;
        else if (base) await rm(base, { recursive: true, force: true });
        return undefined;
      }
    })();
  }

  /** A zip's central directory passed the check's bounds: its declared total within the byte bound and the disk's room, before a byte is written. */
  private async listed(total: { entries: number; bytes: number }): Promise<void> {
    const generation = this.generation;
    const x = await this.ready;
    if (!x || this.failure || this.aborted || generation !== this.generation) return;
    try {
      if (total.bytes > this.bounds.maxExtractBytes) {
        throw new Refused(`the archive's files extract to more than ${this.bounds.maxExtractBytes} bytes: refused; raise the bound with ${BOUND_SETTINGS.maxExtractBytes}`);
      }
      await x.fits(total.bytes, `the ${this.format}`);
    } catch (err) {
      if (generation === this.generation) this.failure ??= err instanceof Refused ? err.message : `${this.format}: ${(err as Error).message}`;
    }
  }

  /** One member from the walk: extracted after the one before it; the walk waits for its end. */
  private member(e: WalkedEntry): EntryContent | undefined {
    if (this.failure || this.aborted || !this.walk) return undefined;
    const generation = this.generation;
    const setup = this.ready;
    // A file's bytes, and a zip link's target (a tar names it in the header).
    const pipe = e.type === 'file' || (e.type === 'symlink' && this.format === 'zip') ? new Pipe() : undefined;
    this.pipe = pipe;
    const work = this.chain
      .then(async () => {
        const x = await setup;
        if (!x || this.failure || this.aborted || generation !== this.generation) return;
        try {
          await this.extractOne(x, e, pipe);
        } catch (err) {
          if (generation === this.generation) this.failure ??= err instanceof Refused ? err.message : `extracting ${JSON.stringify(e.path)}: ${(err as Error).message}`;
        }
      })
      .finally(() => pipe?.drop());
    this.chain = work;
    return {
      data: (piece) => pipe?.push(piece),
      end: async () => {
        pipe?.finish();
        await work;
      },
    };
  }

  private async extractOne(x: Extraction, e: WalkedEntry, bytes: Pipe | undefined): Promise<void> {
    const name = e.path;
    if (e.type === 'directory') return x.entry({ name, type: 'directory', size: 0, mode: 0o755 }, undefined);
    if (e.type === 'symlink') {
      const target = this.format === 'zip' ? await linkTarget(bytes!, name) : (e.link ?? '');
      return x.entry({ name, type: 'symlink', size: 0, mode: 0o777, linkname: target }, undefined);
    }
    // A zip states no permission bits unless made on Unix: 0644 then.
    const mode = this.format === 'zip' ? e.mode & 0o777 || 0o644 : e.mode;
    return x.entry({ name, type: e.type, size: e.size, mode, linkname: e.link }, e.type === 'file' ? bytes : undefined);
  }

  /**
   * The walk ended: whole, or with why it stopped (the member under way, cut short, ends here).
   * That reason comes after any refusal of the members handed over before (end() waits for them).
   */
  private closeWalk(failure?: string): void {
    if (this.walk && failure) this.walk.failure ??= failure;
    this.pipe?.drop();
    this.walk?.end();
  }

  async write(): Promise<void> {
    // The bytes themselves are the check's to parse: the members come through `entries`.
    if (!this.started) this.started = performance.now();
  }

  restart(): void {
    // The transfer starts over: the dropped attempt's folder goes (once its member under way
    // stopped), and the next walk makes a fresh one.
    this.generation++;
    this.pipe?.drop();
    this.walk?.end();
    const { chain, ready } = this;
    void (async () => {
      await chain;
      const x = await ready;
      if (x) await rm(path.dirname(x.root), { recursive: true, force: true });
    })();
    this.base = undefined;
    this.extraction = undefined;
    this.failure = undefined;
    this.started = 0;
    this.ready = undefined;
    this.walk = undefined;
    this.pipe = undefined;
    this.chain = Promise.resolve();
  }

  private async cleanUp(): Promise<void> {
    const base = this.base;
    this.base = undefined;
    if (base) await rm(base, { recursive: true, force: true });
  }

  async abort(): Promise<void> {
    this.aborted = true;
    this.pipe?.drop();
    this.walk?.end();
    // The member under way stops at its next piece; then the folder goes.
    await this.chain;
    await this.ready;
    await this.cleanUp();
  }

/**
   * Extracts what is left, then checks: every link walked again, files and bytes
   * against the listing, an empty archive. --exec does not run here: settle()
   * runs it once the pipeline has judged the bytes. Without --exec (or --keep)
   * the folder is removed now.
   */
  async end(): Promise<FileRestore> {
    if (!this.started) this.started = performance.now();
    if (!this.walk) this.failure ??= 'no member reached the engine: the content stage did not walk the archive';
    // The check ends the walk once it has read the last member (a zip: after the last byte).
    await this.walk?.done;
    await this.chain;
    if (this.walk?.failure) this.failure ??= this.walk.failure;
    const x = (await this.ready) ?? { files: 0, bytes: 0, listedFiles: 0, listedBytes: 0, warnings: [] as string[], checkLinks: async () => {} };
    if (!this.failure) await x.checkLinks().catch((err: Error) => (this.failure = err.message));
    if (!this.failure && (x.files !== x.listedFiles || x.bytes !== x.listedBytes)) {
      this.failure = `extracted ${x.files} files and ${x.bytes} bytes; the archive lists ${x.listedFiles} files and ${x.listedBytes} bytes`;
    }
    if (!this.failure && x.files === 0 && !this.o.allowEmpty) this.failure = 'the archive holds no file (give --allow-empty to accept an empty archive)';
    this.extracted = true;
    const engine: EngineInfo = { name: 'files', runs: 'embedded', product: this.format, version: null };
    const result = emptyRestore(this.format, {
      verdict: this.failure ? 'failed' : 'extracted',
      engine,
      files: x.files,
      bytes: x.bytes,
      warnings: [...x.warnings],
      failure: this.failure ? { message: this.failure } : null,
      restore_seconds: this.started ? (performance.now() - this.started) / 1000 : 0,
    });
    if (this.o.exec && !this.failure) return result;
    return this.release(result);
  }

  /**
   * The pipeline's verdict on the bytes (`passed`: verify's checks on the way,
   * the ledger's "changed since", the gunzip): --exec runs only when they and
   * the extraction passed. Then the folder goes (unless --keep).
   */
  async settle(result: FileRestore, passed: boolean): Promise<FileRestore> {
    if (!this.extracted || !this.base || !this.extraction) return result;
    let out = result;
    if (passed && result.verdict !== 'failed' && !result.failure && this.o.exec && !this.aborted) {
      const started = performance.now();
      const exec = await runExec(this.o.exec, this.extraction!.root, this.o.execTimeoutMs, this.o.signal, this.o.env);
      let failure: string | undefined;
      if (exec.timed_out) failure = `--exec timed out after ${Math.round(this.o.execTimeoutMs / 1000)} s`;
      else if (exec.exit_code !== 0) failure = `--exec exited with ${exec.exit_code ?? `signal ${exec.signal}`}`;
      out = {
        ...result,
        exec,
        verdict: failure ? 'failed' : result.verdict,
        failure: failure ? { message: failure } : result.failure,
        restore_seconds: result.restore_seconds + (performance.now() - started) / 1000,
      };
    }
    return this.release(out);
  }

  /** The folder removed, or kept (--keep) and said where. */
  private async release(result: FileRestore): Promise<FileRestore> {
    const x = this.extraction!;
    if (this.o.keep && this.base) {
      this.o.warn?.(`The extracted files are kept in ${x.root} (--keep); remove the folder ${this.base} when done.`);
      this.base = undefined;
      return { ...result, warnings: [...result.warnings, `kept in ${x.root}`] };
    }
    await this.cleanUp();
    return result;
  }
}

/** The engine of tar and zip archives (registry.ts): extracted inside backupctl into a private folder. */
export const fileArchiveEngine: RestoreEngine = {
  id: 'files',
  product: 'tar/zip',
  kinds: ['tar', 'zip'],
  placements: ['embedded'],
  userCheck: 'exec',
  lists: 'files',
  recipes: ['files', 'website'],
  backsUp: 'files (a file archive)',
  does: () => 'extracted into a private folder and counted against its own listing; --exec runs inside',
  async open(kind, o) {
    if (kind !== 'tar' && kind !== 'zip') throw new Error(`the file archive engine does not take ${kind}`);
    return new FileArchiveSink(kind, o);
  },
};
