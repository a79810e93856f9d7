// `restore-file`'s sink (docs/browse.md): a ContentSink of the one read
// pipeline that writes only the chosen members of a tar or zip, as the
// content stage's check walks them (ContentSink.entries: the one walk of the
// archive, after decryption and the one gunzip, within verify's bounds). It
// parses nothing itself.
//   - Every member's name goes through restore-test's rule (unsafeEntryName,
//     src/restore/files.ts): an absolute path, a ".." part or a NUL byte is
//     refused, the command fails and nothing more is written.
//   - Files are created new (O_EXCL|O_NOFOLLOW) under folders made here and
//     checked to be real folders (never a link); links and special members are
//     not made (named on stderr).
//   - A file keeps the archive's mtime and permission bits, without the
//     setuid, setgid and sticky bits; a folder gets its mtime and bits once
//     everything under it is written (it stays writable by the owner).
//   - restore-test's extraction bounds hold: BACKUPCTL_RESTORE_MAX_ENTRIES,
//     BACKUPCTL_RESTORE_MAX_BYTES.
import { constants as fsc } from 'node:fs';
import { chmod, lstat, mkdir, open, utimes, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { sanitize } from '../output/sanitize.js';
import { BOUND_SETTINGS, type Bounds } from '../pipeline/bounds.js';
import type { ArchiveEntry, Content, ContentSink, EntryContent, EntryWatcher } from '../pipeline/types.js';
import { unsafeEntryName } from './files.js';

/** A name from an archive or the command line, as a message shows it: one line, no escape, at most 200 characters. */
export function shownName(name: string): string {
  const s = sanitize(name);
  return s.length > 200 ? `${s.slice(0, 200)}… (${s.length} characters)` : s;
}

/** The archive path as `ls` shows it: no "./" or "/" in front, no "/" at the end. */
export function cleanMemberPath(p: string): string {
  let s = p.replace(/\\/g, '/');
  for (;;) {
    if (s.startsWith('./')) s = s.slice(2);
    else if (s.startsWith('/')) s = s.slice(1);
    else break;
  }
  return s.replace(/\/+$/, '') || '.';
}

export interface PickOptions {
  /** The archive path chosen (cleaned): a file, or a folder and everything under it. */
  wanted: string;
  /** --dir (resolved), or undefined: the one file to `stdout`. */
  root: string | undefined;
  stdout: Writable;
  bounds: Bounds;
  warn(message: string): void;
  /** The one file wanted is out: reading may stop. */
  done(): void;
  /** A refusal: reading stops, the command fails with it. */
  fail(err: Error): void;
}

export interface PickResult {
  /** The file was a tar or zip the check walked. */
  archive: boolean;
  written: number;
  skipped: number;
}

/** Bytes queued for the disk or stdout before the pipeline waits: bounds memory whatever the member's size. */
const QUEUE_BYTES = 8 * 1024 * 1024;

export class PickSink implements ContentSink<PickResult> {
  private archive = false;
  private written = 0;
  private skipped = 0;
  private entriesSeen = 0;
  private bytesOut = 0;
  private queued = 0;
  private chain: Promise<void> = Promise.resolve();
  private failed = false;
  private touched = false;
  /** Folders of the archive (their mtime and bits are set at the end, deepest first). */
  private readonly folders: Array<{ target: string; mode: number; mtime: number }> = [];
  /** Folders made and checked (real folders under the root). */
  private readonly made = new Set<string>();

  constructor(private readonly o: PickOptions) {}

  readonly entries: EntryWatcher = {
    begin: () => {
      this.archive = true;
    },
    entry: (entry) => this.entry(entry),
    close: () => {},
  };

  async open(_content: Content): Promise<void> {}

  async write(_chunk: Buffer): Promise<void> {
    // This sink's members queue their bytes (their `data` does not hold the walk): the pipeline waits here while too many are queued.
    if (this.queued > QUEUE_BYTES) await this.chain.catch(() => {});
  }

  async restart(): Promise<void> {
    if (this.touched) this.refuse(new CliError('the server started the file over after some of it was written: run again', ExitCode.transient));
    this.archive = false;
  }

  async end(): Promise<PickResult> {
    await this.chain.catch(() => {});
    if (!this.failed) await this.finishFolders();
    return this.counts();
  }

  /** What was written so far (also after reading stopped early). */
  counts(): PickResult {
    return { archive: this.archive, written: this.written, skipped: this.skipped };
  }

  async abort(): Promise<void> {
    await this.chain.catch(() => {});
  }

  private refuse(err: Error): void {
    if (this.failed) return;
    this.failed = true;
    this.o.fail(err);
  }

  private then(step: () => Promise<void>): void {
    this.chain = this.chain.then(async () => {
      if (!this.failed) await step();
    }).catch((err: Error) => this.refuse(err));
  }

  private entry(e: ArchiveEntry): EntryContent | undefined {
    if (this.failed) return undefined;
    const p = cleanMemberPath(e.path);
    const { wanted } = this.o;
    if (!(p === wanted || p.startsWith(`${wanted}/`))) return undefined;
    this.touched = true;
    // restore-test's rule, on the name as stored.
    const why = unsafeEntryName(e.path);
    if (why) {
      this.refuse(new CliError(`refused the entry ${shownName(JSON.stringify(e.path))}: ${why}`, ExitCode.restoreFailed));
      return undefined;
    }
    if (++this.entriesSeen > this.o.bounds.maxExtractEntries) {
      this.refuse(new CliError(`more than ${this.o.bounds.maxExtractEntries} entries under ${shownName(wanted)}: refused; raise the bound with ${BOUND_SETTINGS.maxExtractEntries}`, ExitCode.restoreFailed));
      return undefined;
    }
    const toStdout = this.o.root === undefined;
    if (e.type === 'directory' || (toStdout && p !== wanted)) {
      if (toStdout) {
        this.refuse(new UsageError(`${shownName(wanted)} is a folder: --output - takes one file; use --dir`));
        return undefined;
      }
      const target = this.target(e.path);
      this.then(async () => {
        await this.makeFolders(target);
        this.folders.push({ target, mode: e.mode, mtime: e.mtime });
      });
      return undefined;
    }
    if (e.type !== 'file') {
      this.skipped++;
      this.o.warn(`${shownName(p)}: a ${e.type === 'other' ? 'special' : e.type} entry, not restored (a link could lead outside the folder)`);
      return undefined;
    }
    if (this.bytesOut + e.size > this.o.bounds.maxExtractBytes) {
      this.refuse(new CliError(`the files under ${shownName(wanted)} come to more than ${this.o.bounds.maxExtractBytes} bytes: refused; raise the bound with ${BOUND_SETTINGS.maxExtractBytes}`, ExitCode.restoreFailed));
      return undefined;
    }
    return toStdout ? this.toStdout() : this.toFile(e);
  }

  private target(name: string): string {
    const parts = name.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
    return path.join(this.o.root!, ...parts);
  }

  /** Makes `dir` and its parents under the root, refusing any that exists and is not a real folder. */
  private async makeFolders(dir: string): Promise<void> {
    const root = this.o.root!;
    const rel = path.relative(root, dir);
    let at = root;
    for (const part of rel ? rel.split(path.sep) : []) {
      at = path.join(at, part);
      if (this.made.has(at)) continue;
      const st = await lstat(at).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      });
      if (!st) await mkdir(at, { mode: 0o700 });
      else if (!st.isDirectory()) throw new CliError(`${shownName(path.relative(root, at))} exists and is not a folder: refused`, ExitCode.restoreFailed);
      this.made.add(at);
    }
  }

  private queue(piece: Buffer, write: (piece: Buffer) => Promise<void>): void {
    this.queued += piece.length;
    this.then(async () => {
      this.queued -= piece.length;
      this.bytesOut += piece.length;
      if (this.bytesOut > this.o.bounds.maxExtractBytes) {
        throw new CliError(`the files under ${shownName(this.o.wanted)} come to more than ${this.o.bounds.maxExtractBytes} bytes: refused; raise the bound with ${BOUND_SETTINGS.maxExtractBytes}`, ExitCode.restoreFailed);
      }
      await write(piece);
    });
  }

  private toStdout(): EntryContent {
    const out = this.o.stdout;
    return {
      data: (piece) =>
        this.queue(piece, async (b) => {
          if (!out.write(b)) await once(out, 'drain');
        }),
      end: async () => {
        this.then(async () => {
          this.written++;
          this.o.done();
        });
        await this.chain;
      },
    };
  }

  private toFile(e: ArchiveEntry): EntryContent {
    const target = this.target(e.path);
    let fh: FileHandle | undefined;
    this.then(async () => {
      await this.makeFolders(path.dirname(target));
      // Created new, never through a link; a later member of the same name is refused (the folder was empty).
      fh = await open(target, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, 0o600);
    });
    return {
      data: (piece) =>
        this.queue(piece, async (b) => {
          await fh!.write(b);
        }),
      end: async () => {
        this.then(async () => {
          try {
            // The archive's permission bits without setuid, setgid and sticky; its mtime.
            await fh!.chmod(e.mode & 0o777 || 0o644);
            await fh!.utimes(e.mtime, e.mtime);
          } finally {
            await fh!.close();
          }
          this.written++;
          if (cleanMemberPath(e.path) === this.o.wanted) this.o.done();
        });
        await this.chain;
      },
    };
  }

  /** The folders' bits and mtimes, deepest first (writing into a folder changes its mtime). */
  private async finishFolders(): Promise<void> {
    for (const f of [...this.folders].sort((a, b) => b.target.length - a.target.length)) {
      const st = await lstat(f.target).catch(() => undefined);
      if (!st?.isDirectory()) continue;
      await chmod(f.target, (f.mode & 0o777) | 0o700);
      await utimes(f.target, f.mtime, f.mtime);
    }
  }
}
