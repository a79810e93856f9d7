// File archives (tar, tar.gz, zip) restored for real: extracted into a private
// temporary folder (0700), then counted against the archive's own listing
// (tar headers, a zip's central directory), then --exec runs inside it.
//   - A path that is absolute, or has a `..` part, is refused: the test fails,
//     nothing more is written.
//   - A symbolic or hard link whose target lies outside the folder is refused.
//   - Every write goes to a real parent folder inside the root (checked with
//     realpath) and never follows a link at the last step (O_EXCL|O_NOFOLLOW);
//     after extraction, every link left is resolved once more.
//   - Devices and FIFOs are not made (a warning).
// The folder is removed afterwards (end or abort), unless --keep.
import { spawn } from 'node:child_process';
import { constants as fsc } from 'node:fs';
import { link, lstat, mkdir, mkdtemp, open, readdir, readlink, realpath, rm, symlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { EngineInfo, ExecResult, FileRestore, RestoreOptions, RestoreSink } from './types.js';

/** Why an entry is refused, or undefined when its name is a safe relative path. */
export function unsafeEntryName(name: string): string | undefined {
  const n = name.replace(/\\/g, '/');
  if (n.startsWith('/') || /^[a-zA-Z]:\//.test(n)) return 'an absolute path';
  if (n.split('/').includes('..')) return 'a path with ".." that leads outside the folder';
  if (n.includes('\0')) return 'a NUL byte in its name';
  return undefined;
}

const inside = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

/** The path `p` resolves to once every existing part of it is followed (links included). */
async function physical(p: string): Promise<string> {
  const rest: string[] = [];
  let cur = p;
  for (;;) {
    try {
      return path.join(await realpath(cur), ...rest.reverse());
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return p;
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

class Refused extends Error {}

export interface ArchiveEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'link' | 'other';
  size: number;
  mode: number;
  linkname?: string;
}

/** The folder and the counts shared by the tar and zip extractors. */
class Extraction {
  files = 0;
  bytes = 0;
  /** What the archive's own listing says (tar headers, zip central directory). */
  listedFiles = 0;
  listedBytes = 0;
  warnings: string[] = [];
  constructor(
    readonly root: string,
    private readonly realRoot: string,
  ) {}

  static async create(base: string): Promise<Extraction> {
    const root = path.join(base, 'files');
    await mkdir(root, { mode: 0o700 });
    return new Extraction(root, await realpath(root));
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
    if (!inside(this.realRoot, dir)) throw new Refused(`refused a folder outside the extraction folder`);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const real = await realpath(dir);
    if (!inside(this.realRoot, real)) throw new Refused(`refused to write through a link that leads outside the folder (${path.relative(this.realRoot, dir)})`);
  }

  /** Writes one entry; `data` streams a file's bytes. */
  async entry(e: ArchiveEntry, data: AsyncIterable<Buffer> | undefined): Promise<void> {
    if (e.type === 'file') {
      this.listedFiles++;
      this.listedBytes += e.size;
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
        if (path.isAbsolute(target)) throw new Refused(`refused the link ${JSON.stringify(e.name)}: it points to an absolute path`);
        // Against the parent as it really is (a folder reached through an earlier link), then every existing part followed.
        const resolved = await physical(path.resolve(await realpath(path.dirname(full)), target));
        if (!inside(this.realRoot, resolved)) throw new Refused(`refused the link ${JSON.stringify(e.name)} -> ${JSON.stringify(target)}: it points outside the folder`);
        await symlink(target, full);
        return;
      }
      case 'link': {
        const target = e.linkname ?? '';
        if (unsafeEntryName(target)) throw new Refused(`refused the hard link ${JSON.stringify(e.name)} -> ${JSON.stringify(target)}: it points outside the folder`);
        const real = await physical(path.join(this.realRoot, target));
        if (!inside(this.realRoot, real)) throw new Refused(`refused the hard link ${JSON.stringify(e.name)} -> ${JSON.stringify(target)}: it points outside the folder`);
        await link(real, full);
        return;
      }
      default:
        this.warnings.push(`${e.name}: a device or FIFO, not made`);
    }
  }

  /** Every link left in the folder resolves inside it (a chain of links made in another order). */
  async checkLinks(): Promise<void> {
    const walk = async (dir: string): Promise<void> => {
      for (const d of await readdir(dir, { withFileTypes: true })) {
        const p = path.join(dir, d.name);
        if (d.isDirectory()) await walk(p);
        else if (d.isSymbolicLink()) {
          const real = await physical(p);
          if (!inside(this.realRoot, real)) throw new Refused(`refused the link ${path.relative(this.realRoot, p)} -> ${await readlink(p)}: it leads outside the folder`);
        }
      }
    };
    await walk(this.realRoot);
  }
}

/** Runs `command` with sh -c inside `cwd`, killed (its whole group) after `timeoutMs` or on abort. */
export async function runExec(command: string, cwd: string, timeoutMs: number, signal: AbortSignal): Promise<ExecResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    // The archive's own scripts may run (make test, ./check.sh): they never see the API token or the --into password.
    const env = { ...process.env };
    for (const secret of ['BACKUPCTL_TOKEN', 'BACKUPCTL_RESTORE_URL']) delete env[secret];
    const child = spawn('sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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
    signal.addEventListener('abort', kill, { once: true });
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

type TarWriter = import('node:stream').Writable;

/**
 * A RestoreSink for a file archive whose bytes (already decompressed) arrive in
 * chunks. A tar is extracted as it streams; a zip must be read from its end, so
 * its bytes go to a private file beside the folder first.
 */
export class FileArchiveSink implements RestoreSink {
  private base?: string;
  private extraction?: Extraction;
  private tar?: TarWriter;
  private tarDone?: Promise<void>;
  private zipFile?: FileHandle;
  private zipPath?: string;
  private failure?: string;
  private started = 0;
  private aborted = false;
  private generation = 0;
  /** The folder being made: an abort that comes meanwhile waits for it, then removes it. */
  private ready?: Promise<void>;

  constructor(
    private readonly format: ArchiveFormat,
    private readonly o: RestoreOptions,
  ) {}

  private async setUp(): Promise<void> {
    this.base = await mkdtemp(path.join(tmpdir(), 'backupctl-restore-'));
    this.extraction = await Extraction.create(this.base);
    if (this.format === 'zip') {
      this.zipPath = path.join(this.base, 'archive.zip');
      this.zipFile = await open(this.zipPath, 'wx', 0o600);
      return;
    }
    const { extract } = await import('tar-stream');
    // Old (v7) tar headers have no magic (their checksum is still checked): the kind "tar" of src/pipeline/kinds.ts.
    const x = extract({ allowUnknownFormat: true } as Parameters<typeof extract>[0]);
    this.tar = x as unknown as TarWriter;
    // After a restart() this loop belongs to the dropped attempt: it must not touch the next one.
    const generation = this.generation;
    const extraction = this.extraction;
    const fail = (message: string) => {
      if (generation === this.generation) this.failure ??= message;
    };
    this.tarDone = (async () => {
      try {
        for await (const entry of x) {
          const header = entry.header;
          if (!this.failure && generation === this.generation) {
            const t = header.type;
            const type = t === 'file' || t === 'contiguous-file' ? 'file' : t === 'directory' ? 'directory' : t === 'symlink' ? 'symlink' : t === 'link' ? 'link' : 'other';
            try {
              await extraction.entry(
                { name: header.name, type, size: header.size ?? 0, mode: header.mode ?? 0o644, linkname: header.linkname ?? undefined },
                type === 'file' ? (entry as AsyncIterable<Buffer>) : undefined,
              );
            } catch (err) {
              fail(err instanceof Refused ? err.message : `extracting ${JSON.stringify(header.name)}: ${(err as Error).message}`);
            }
          }
          // What was not written (a refused entry, the rest after one) is read past.
          for await (const _ of entry as AsyncIterable<Buffer>) void _;
        }
      } catch (err) {
        fail(`tar: ${(err as Error).message}`);
      }
    })();
  }

  private async start(): Promise<void> {
    this.started = performance.now();
    this.ready = this.setUp();
    await this.ready;
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.aborted) return;
    if (!this.started) await this.start();
    if (this.aborted) return;
    if (this.zipFile) {
      await this.zipFile.write(chunk);
      return;
    }
    const x = this.tar!;
    if (x.destroyed || this.failure) return;
    if (!x.write(chunk)) await new Promise<void>((resolve) => {
      const done = () => {
        x.off('drain', done);
        x.off('close', done);
        x.off('error', done);
        resolve();
      };
      x.on('drain', done);
      x.on('close', done);
      x.on('error', done);
    });
  }

  restart(): void {
    // The transfer starts over (it does so between writes, after the folder was made): the
    // dropped attempt's folder goes, and the next first byte makes a fresh one.
    this.generation++;
    const { base, tar, zipFile } = this;
    tar?.destroy();
    void (async () => {
      await zipFile?.close().catch(() => {});
      if (base) await rm(base, { recursive: true, force: true });
    })();
    this.base = undefined;
    this.extraction = undefined;
    this.tar = undefined;
    this.tarDone = undefined;
    this.zipFile = undefined;
    this.failure = undefined;
    this.started = 0;
    this.ready = undefined;
  }

  private async cleanUp(): Promise<void> {
    const base = this.base;
    this.base = undefined;
    this.tar?.destroy();
    await this.zipFile?.close().catch(() => {});
    if (base) await rm(base, { recursive: true, force: true });
  }

  async abort(): Promise<void> {
    this.aborted = true;
    await this.ready?.catch(() => {});
    await this.cleanUp();
  }

  private async extractZip(): Promise<void> {
    await this.zipFile!.close();
    this.zipFile = undefined;
    const yauzl = await import('yauzl');
    let zip: import('yauzl').ZipFile;
    try {
      zip = await yauzl.openPromise(this.zipPath!, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false });
    } catch (err) {
      this.failure = `zip: ${(err as Error).message}`;
      return;
    }
    try {
      for await (const entry of zip.eachEntry()) {
        const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
        const dir = entry.fileName.endsWith('/') || mode === 0o040000;
        const isLink = mode === 0o120000;
        if (dir) {
          await this.extraction!.entry({ name: entry.fileName, type: 'directory', size: 0, mode: 0o755 }, undefined);
          continue;
        }
        const stream = (await zip.openReadStreamPromise(entry)) as Readable;
        if (isLink) {
          const chunks: Buffer[] = [];
          for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
          await this.extraction!.entry({ name: entry.fileName, type: 'symlink', size: 0, mode: 0o777, linkname: Buffer.concat(chunks).toString('utf8') }, undefined);
          continue;
        }
        const perm = (entry.externalFileAttributes >>> 16) & 0o777;
        await this.extraction!.entry({ name: entry.fileName, type: 'file', size: entry.uncompressedSize, mode: perm || 0o644 }, stream as AsyncIterable<Buffer>);
      }
    } catch (err) {
      this.failure = err instanceof Refused ? err.message : `zip: ${(err as Error).message}`;
    } finally {
      zip.close();
      await rm(this.zipPath!, { force: true });
    }
  }

  async end(): Promise<FileRestore> {
    if (!this.started) await this.start();
    if (this.format === 'zip') await this.extractZip();
    else {
      this.tar!.end();
      await this.tarDone;
    }
    const x = this.extraction!;
    if (!this.failure) await x.checkLinks().catch((err: Error) => (this.failure = err.message));
    if (!this.failure && (x.files !== x.listedFiles || x.bytes !== x.listedBytes)) {
      this.failure = `extracted ${x.files} files and ${x.bytes} bytes; the archive lists ${x.listedFiles} files and ${x.listedBytes} bytes`;
    }
    if (!this.failure && x.files === 0 && !this.o.allowEmpty) this.failure = 'the archive holds no file (give --allow-empty to accept an empty archive)';
    let exec: ExecResult | null = null;
    if (!this.failure && this.o.exec) {
      exec = await runExec(this.o.exec, x.root, this.o.execTimeoutMs, this.o.signal);
      if (exec.timed_out) this.failure = `--exec timed out after ${Math.round(this.o.execTimeoutMs / 1000)} s`;
      else if (exec.exit_code !== 0) this.failure = `--exec exited with ${exec.exit_code ?? `signal ${exec.signal}`}`;
    }
    const engine: EngineInfo = { mode: 'extract', product: this.format, version: null };
    const warnings = [...x.warnings];
    if (this.o.keep && this.base) {
      warnings.push(`kept in ${x.root}`);
      this.o.warn?.(`The extracted files are kept in ${x.root} (--keep); remove the folder ${this.base} when done.`);
      this.base = undefined;
    } else {
      await this.cleanUp();
    }
    return {
      kind: this.format,
      verdict: this.failure ? 'failed' : 'extracted',
      engine,
      database: null,
      tables: [],
      rows: 0,
      files: x.files,
      bytes: x.bytes,
      warnings,
      failure: this.failure ? { message: this.failure } : null,
      assertions: [],
      exec,
      restore_seconds: this.started ? (performance.now() - this.started) / 1000 : 0,
    };
  }
}
