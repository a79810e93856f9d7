// What is in a backup, and what changed (issue 33 §3): `ls`, `find` and
// `diff` read the catalog's listings (a backup not there yet is read into it
// first, as `backupctl scan` does), as streams: a listing of a million entries
// is never held whole. `restore-file` streams one file or folder out of a
// tar backup without writing the archive anywhere. See docs/browse.md.
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, unlink } from 'node:fs/promises';
import { once } from 'node:events';
import { PassThrough, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import path from 'node:path';
import type { CommandInput, Context, Handler, Result } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { CliError, EmptyResultError, ExitCode, UsageError } from '../errors.js';
import { jobArg } from '../resources/common.js';
import { checkedHandler } from '../cli/checked.js';
import type { BackupFingerprint, Catalog } from '../state/catalog.js';
import { cleanPath, type ListingEntry } from '../catalog/listing.js';
import { diffSchema, findSchema, lsSchema } from '../catalog/model.js';

export const schemas = { ls: lsSchema, find: findSchema, diff: diffSchema };

const backupArg = (name: string, description: string) => ({ name, in: 'local' as const, type: 'uuid' as const, positional: true, required: true, complete: 'backups' as const, description });

export const module: ModuleSpec = {
  name: 'browse',
  commands: [
    {
      path: ['ls'],
      summary: 'List what a backup holds: every path of its archive, from the catalog',
      description:
        'Lists the entries of a tar backup (gzipped or not) in path order, like restic ls: the path alone, or with --long the mode, ' +
        'owner, size and time. A path given lists that entry, or everything under that folder. The listing comes from the catalog; a ' +
        'backup not in it yet is read into it first (as backupctl scan). Streams: a listing of a million entries is never held whole.',
      examples: ['backupctl ls "file share" <backup-id>', 'backupctl ls "file share" <backup-id> config --long'],
      params: [
        { ...jobArg(), in: 'local' },
        backupArg('backup', 'The backup'),
        { name: 'path', in: 'local', type: 'string', positional: true, description: 'Only this path, or what is under this folder' },
        { name: 'long', in: 'local', type: 'boolean', short: 'l', description: 'Mode, owner, size and time too' },
      ],
      output: { kind: 'object', schema: 'ls' },
      handler: 'ls',
      alsoCalls: ['GET /backups/{backup_id}', 'POST /backups/{backup_id}/download'],
    },
    {
      path: ['find'],
      summary: 'Which backups of a job hold a path: newest first',
      description:
        'Searches the listings of the job\'s completed backups created since --since (default 30d), newest first, like restic find. ' +
        'The pattern is a glob: * and ? within one path segment, ** across segments; a pattern without a slash matches the last ' +
        'segment (the name), one with a slash the whole path. Backups not in the catalog yet are read into it first.',
      examples: ['backupctl find "file share" "*.conf"', 'backupctl find "file share" "docs/**/budget-*" --since 7d --json'],
      params: [
        { ...jobArg(), in: 'local' },
        { name: 'pattern', in: 'local', type: 'string', positional: true, required: true, description: 'A glob: "*.conf", "config/app.conf", "docs/**/*.xls"' },
        { name: 'since', in: 'local', type: 'datetime', placeholder: 'age|datetime', description: 'Backups created since then (default 30d)' },
        { name: 'long', in: 'local', type: 'boolean', short: 'l', description: 'Mode, owner, size and time too' },
      ],
      output: { kind: 'object', schema: 'find' },
      handler: 'find',
      alsoCalls: ['GET /jobs/{job_id}/backups', 'POST /backups/{backup_id}/download'],
    },
    {
      path: ['diff'],
      summary: 'What changed between two backups of a job: files added, removed, changed; tables and rows',
      description:
        'Compares two backups of the job as restic diff does: a line per change, "+" added, "-" removed, "M" content changed (or a ' +
        'link\'s target), "T" type changed, "U" mode or owner only; then statistics: files and bytes added, removed and changed. For ' +
        'SQL dumps, the tables added or dropped and the rows gained or lost per table. --stat prints the statistics alone; ' +
        '-o ndjson (or --json-lines) a JSON object per change, then one of the statistics; --json one document. The listings are ' +
        'walked together in path order: memory stays bounded whatever their size.',
      examples: ['backupctl diff "file share" <backup-a> <backup-b>', 'backupctl diff "crm postgres" <backup-a> <backup-b> --stat'],
      params: [
        { ...jobArg(), in: 'local' },
        backupArg('backup_a', 'The older backup'),
        backupArg('backup_b', 'The newer backup'),
        { name: 'stat', in: 'local', type: 'boolean', description: 'The statistics only' },
        { name: 'json_lines', in: 'local', type: 'boolean', description: 'A JSON object per change, then one of the statistics (as -o ndjson)' },
      ],
      output: { kind: 'object', schema: 'diff' },
      handler: 'diff',
      alsoCalls: ['GET /backups/{backup_id}', 'POST /backups/{backup_id}/download'],
    },
    {
      path: ['restore-file'],
      summary: 'Stream one file or folder out of a tar backup: to stdout or into a new folder',
      description:
        'Reads the backup\'s archive through its signed URL and writes only the chosen entries: one regular file to stdout with ' +
        '--output -, or a file or folder into --dir (a folder that does not exist yet, or is empty), under its path in the archive. ' +
        'Nothing else reaches the disk, and reading stops as soon as a single file is out. The same path safety as restore-test: ' +
        'absolute paths and ".." are refused, files are created new (never through a link), links in the archive are not restored ' +
        '(they are named on stderr), and modes lose their setuid, setgid and sticky bits.',
      examples: ['backupctl restore-file "file share" <backup-id> config/app.conf --output - > app.conf', 'backupctl restore-file "file share" <backup-id> docs/finance --dir ./restored'],
      params: [
        { ...jobArg(), in: 'local' },
        backupArg('backup', 'The backup'),
        { name: 'path', in: 'local', type: 'string', positional: true, required: true, description: 'A file or folder of the archive' },
        { name: 'dir', in: 'local', type: 'string', placeholder: 'folder', description: 'Write into this folder (made if missing; must be empty)' },
        { name: 'force', in: 'local', type: 'boolean', description: 'With --output -: write to a terminal all the same' },
      ],
      output: { kind: 'none', done: 'Restored {path}' },
      // `--output -` (the global -o) streams the one file to stdout, as jobs backup download does.
      extraFormats: ['-'],
      handler: 'restoreFile',
      alsoCalls: ['GET /backups/{backup_id}', 'POST /backups/{backup_id}/download'],
    },
  ],
};

/** The fingerprint of one backup of the job, read into the catalog when it is not there. */
async function fingerprintOf(ctx: Context, catalog: Catalog, jobId: string, backupId: string): Promise<BackupFingerprint> {
  const scan = await import('../catalog/scan.js');
  const record = await scan.backupOfJobById(ctx, jobId, backupId);
  const { fingerprints } = await scan.ensureFingerprints(ctx, catalog, [record]);
  const fp = fingerprints[0];
  if (!fp) throw new EmptyResultError(`backup ${backupId} has no files to read`);
  return fp;
}

function listingsOf(catalog: Catalog, fp: BackupFingerprint, what: string): Array<{ file: string; path: string }> {
  const listings = catalog.listings(fp);
  if (!listings.length) {
    const sql = fp.files.some((f) => f.sql);
    const notes = fp.files.map((f) => f.note).filter(Boolean);
    throw new CliError(
      `backup ${fp.backup_id} has no archive listing to ${what}: ${sql ? 'it is a SQL dump (diff shows its tables and rows)' : `its files are ${fp.files.map((f) => f.kind).join(', ')}`}`,
      ExitCode.notFound,
      notes.map((n) => `  ${n}`),
    );
  }
  return listings;
}

const under = (p: string, prefix: string | undefined) => !prefix || p === prefix || p.startsWith(`${prefix}/`);
/** A path argument: cleaned as the listing's paths are; the root ("", ".", "/") is none. */
const pathArg = (p: string) => {
  const clean = cleanPath(p);
  return clean === '.' ? '' : clean;
};

/** Writes entries to stdout as the format says, streaming; returns how many. */
async function writeEntries(ctx: Context, entries: AsyncIterable<ListingEntry>, long: boolean, extra: Record<string, unknown> = {}): Promise<number> {
  const { longLine } = await import('../catalog/view.js');
  const out = ctx.io.stdout;
  // --long asks for the long lines: in a pipe too, unless a format is given (-o tsv, --json).
  const chosen = ctx.globals.output !== undefined || ctx.globals.json === true;
  const format = ctx.output.quiet || (long && !chosen) ? 'table' : ctx.output.format;
  let n = 0;
  const put = async (s: string) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  if (format === 'json') await put('[');
  for await (const e of entries) {
    const json = () => JSON.stringify({ ...extra, path: e.path, type: e.type, size: e.size, mode: e.mode, uid: e.uid, gid: e.gid, mtime: new Date(e.mtime * 1000).toISOString(), crc32: e.crc || null, ...(e.link ? { link: e.link } : {}) });
    if (format === 'json') await put(`${n ? ',' : ''}\n${json()}`);
    else if (format === 'ndjson') await put(`${json()}\n`);
    else if (format === 'tsv') await put(`${[...Object.values(extra), e.path, e.type, e.size, e.mode.toString(8), e.uid, e.gid, e.mtime, e.crc].join('\t')}\n`);
    else await put(`${long ? longLine(e) : `${e.path}${e.type === 'd' ? '/' : ''}`}\n`);
    n++;
  }
  if (format === 'json') await put(n ? '\n]\n' : ']\n');
  return n;
}

/** The check of a command that streams its output: no --jq (before a name given for the job is looked up). */
function streamsOnly(command: string) {
  return async (_input: CommandInput, ctx: Context): Promise<void> => {
    if (ctx.output.jq) throw new UsageError(`${command} streams its output: --jq is not taken here; pipe -o ndjson to jq instead`);
  };
}

const ls = checkedHandler(streamsOnly('ls'), async (input, ctx) => {
  const v = input.values;
  const { catalogFor } = await import('../catalog/scan.js');
  const catalog = await catalogFor(ctx);
  const fp = await fingerprintOf(ctx, catalog, String(v.job_id), String(v.backup));
  const prefix = typeof v.path === 'string' ? pathArg(v.path) || undefined : undefined;
  const { backupListing } = await import('../catalog/anomalies.js');
  const listings = listingsOf(catalog, fp, 'show');
  async function* chosen() {
    for await (const e of backupListing(listings)) if (under(e.path, prefix)) yield e;
  }
  const n = await writeEntries(ctx, chosen(), v.long === true);
  if (!n && prefix) throw new CliError(`${prefix}: no such path in backup ${fp.backup_id}`, ExitCode.notFound);
  return { kind: 'empty' };
});

/** A glob as a regular expression: * and ? stay within a segment, ** crosses them. */
export function globRegExp(pattern: string): { re: RegExp; whole: boolean } {
  const p = pathArg(pattern);
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*' && p[i + 1] === '*') {
      re += '.*';
      i++;
      if (p[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return { re: new RegExp(`^${re}$`), whole: p.includes('/') };
}

const find = checkedHandler(streamsOnly('find'), async (input, ctx) => {
  const v = input.values;
  const jobId = String(v.job_id);
  const since = typeof v.since === 'string' ? v.since : new Date(Date.now() - 30 * 86_400_000).toISOString();
  const { re, whole } = globRegExp(String(v.pattern));
  const scan = await import('../catalog/scan.js');
  const catalog = await scan.catalogFor(ctx);
  const records = await scan.backupsOfJob(ctx, jobId, since);
  if (!records.length) throw new EmptyResultError(`the job has no completed backup with files since ${since}`);
  const { fingerprints } = await scan.ensureFingerprints(ctx, catalog, records);
  const newestFirst = [...fingerprints].sort((a, b) => (b.created_at ?? '').localeCompare(a.created_at ?? ''));
  const { backupListing } = await import('../catalog/anomalies.js');
  const { utcMinute } = await import('../output/format.js');
  const format = ctx.output.quiet ? 'quiet' : ctx.output.format;
  let found = 0;
  let backups = 0;
  let first = true;
  if (format === 'json') ctx.io.stdout.write('[');
  for (const fp of newestFirst) {
    const listings = catalog.listings(fp);
    if (!listings.length) continue;
    let here = 0;
    async function* matches() {
      for await (const e of backupListing(listings)) {
        const name = whole ? e.path : (e.path.split('/').pop() ?? e.path);
        if (re.test(name)) {
          here++;
          if (here === 1 && format === 'table') ctx.io.stdout.write(`${backups ? '\n' : ''}backup ${fp.backup_id} (${utcMinute(fp.created_at)}):\n`);
          yield e;
        }
      }
    }
    if (format === 'quiet') {
      for await (const _ of matches()) break;
      if (here) ctx.io.stdout.write(`${fp.backup_id}\n`);
    } else if (format === 'json') {
      for await (const e of matches()) {
        ctx.io.stdout.write(`${first ? '' : ','}\n${JSON.stringify({ backup_id: fp.backup_id, created_at: fp.created_at, path: e.path, type: e.type, size: e.size, mode: e.mode, mtime: new Date(e.mtime * 1000).toISOString() })}`);
        first = false;
      }
    } else {
      await writeEntries(ctx, matches(), v.long === true, { backup_id: fp.backup_id, created_at: fp.created_at });
    }
    found += here;
    if (here) backups++;
  }
  if (format === 'json') ctx.io.stdout.write(first ? ']\n' : '\n]\n');
  if (!found) throw new EmptyResultError(`no backup of the job since ${since} holds a path matching ${String(v.pattern)}`);
  if (format === 'table') ctx.note(`${found} match${found === 1 ? '' : 'es'} in ${backups} backup${backups === 1 ? '' : 's'}`);
  return { kind: 'empty' };
});

const diff = checkedHandler(streamsOnly('diff'), async (input, ctx) => {
  const v = input.values;
  const jobId = String(v.job_id);
  const { catalogFor } = await import('../catalog/scan.js');
  const catalog = await catalogFor(ctx);
  const a = await fingerprintOf(ctx, catalog, jobId, String(v.backup_a));
  const b = await fingerprintOf(ctx, catalog, jobId, String(v.backup_b));
  const d = await import('../catalog/diff.js');
  const { backupListing } = await import('../catalog/anomalies.js');
  const stats = d.emptyStats();
  const tables = d.diffTables(a, b);
  const la = catalog.listings(a);
  const lb = catalog.listings(b);
  if (!tables && (!la.length || !lb.length)) listingsOf(catalog, la.length ? b : a, 'compare');
  // The text report in a pipe too (tsv has no place for the statistics); scripts take --json-lines or --json.
  const format = v.json_lines === true ? 'ndjson' : ctx.output.format === 'tsv' || ctx.output.quiet ? 'table' : ctx.output.format;
  const out = ctx.io.stdout;
  const put = async (s: string) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  const { utcMinute } = await import('../output/format.js');
  const files = la.length > 0 && lb.length > 0;
  if (format === 'table' && v.stat !== true) await put(`comparing backup ${a.backup_id} (${utcMinute(a.created_at)}) to ${b.backup_id} (${utcMinute(b.created_at)}):\n${files ? '\n' : ''}`);
  const changes: Array<Record<string, unknown>> = [];
  if (files) {
    for await (const c of d.diffListings(backupListing(la), backupListing(lb), stats)) {
      if (v.stat === true) continue;
      if (format === 'ndjson') await put(`${JSON.stringify({ record: 'change', ...c })}\n`);
      else if (format === 'json') changes.push({ ...c });
      else await put(`${c.change}    ${c.path}${c.type === 'd' ? '/' : ''}\n`);
    }
  }
  const summary = { record: 'statistics', backup_a: a.backup_id, backup_b: b.backup_id, ...stats, ...(tables ? { tables } : {}) };
  if (format === 'json') {
    const { record: _r, ...rest } = summary;
    return { kind: 'object', value: { ...rest, changes } };
  }
  if (format === 'ndjson') {
    for (const t of tables ?? []) await put(`${JSON.stringify({ record: 'table', ...t })}\n`);
    await put(`${JSON.stringify(summary)}\n`);
    return { kind: 'empty' };
  }
  await put(`${v.stat === true ? '' : '\n'}${d.statsText(files ? stats : undefined, tables)}`);
  return { kind: 'empty' };
});

class Done extends Error {}

/** A path inside `root` for an archive path, or why not. */
function safeTarget(root: string, archivePath: string): string | string {
  const p = archivePath.replace(/\\/g, '/');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) throw new Error(`absolute path refused: ${archivePath}`);
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.some((s) => s === '..')) throw new Error(`".." refused: ${archivePath}`);
  if (!parts.length || parts.some((s) => s.includes('\0'))) throw new Error(`not a path: ${JSON.stringify(archivePath)}`);
  return path.join(root, ...parts);
}

/** Makes the folders of `target` under `root`, refusing any part that exists and is not a real folder (a link). */
async function makeParents(root: string, target: string): Promise<void> {
  const rel = path.relative(root, path.dirname(target));
  let at = root;
  for (const part of rel ? rel.split(path.sep) : []) {
    at = path.join(at, part);
    try {
      const st = await lstat(at);
      if (!st.isDirectory() || st.isSymbolicLink()) throw new Error(`${path.relative(root, at)} exists and is not a folder`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await mkdir(at, { mode: 0o700 });
    }
  }
}

/** restore-file's path and destination, checked before a name given for the job is looked up. */
async function checkRestoreFile(input: CommandInput, ctx: Context) {
  const v = input.values;
  const wanted = pathArg(String(v.path));
  if (!wanted) throw new UsageError('give a file or folder of the archive: restore-file <job> <backup> <path>');
  const toStdout = ctx.globals.output?.trim() === '-';
  if (toStdout === (v.dir !== undefined)) throw new UsageError('give one of --output - (one file to stdout) or --dir <folder>');
  if (toStdout && ctx.io.stdoutIsTTY && v.force !== true) throw new UsageError('--output - would write the file to the terminal: redirect it (> file) or give --force');
  let root: string | undefined;
  if (!toStdout) {
    root = path.resolve(String(v.dir));
    await mkdir(root, { recursive: true, mode: 0o700 });
    const st = await lstat(root);
    if (!st.isDirectory()) throw new UsageError(`--dir ${String(v.dir)} is not a folder`);
    if ((await readdir(root)).length) throw new UsageError(`--dir ${String(v.dir)} is not empty: give a new or empty folder`);
  }
  return { wanted, toStdout, root };
}

const restoreFile = checkedHandler(checkRestoreFile, async (input, ctx, { wanted, toStdout, root }) => {
  const v = input.values;
  const scan = await import('../catalog/scan.js');
  const record = await scan.backupOfJobById(ctx, String(v.job_id), String(v.backup));
  const { pipelineBackup } = await import('../pipeline/select.js');
  const backup = await pipelineBackup(ctx, record);
  if (!backup.files.length) throw new EmptyResultError(`backup ${backup.id} has no files`);
  const settings = await ctx.settings();
  const { signedUrlTransfer } = await import('../pipeline/transfer.js');
  const { extract: makeExtract } = await import('tar-stream');
  let written = 0;
  let skipped = 0;
  let single = false;
  for (const file of backup.files) {
    const stop = new AbortController();
    const signal = AbortSignal.any([ctx.signal, stop.signal]);
    const transfer = signedUrlTransfer({ signal, timeoutMs: settings.timeoutMs, stderr: ctx.io.stderr, debug: settings.debug });
    const input = new PassThrough({ highWaterMark: 1024 * 1024 });
    let started = false;
    let gzip = false;
    const extract = makeExtract() as unknown as import('node:stream').Writable & NodeJS.EventEmitter;
    let notTar: string | undefined;
    extract.on('entry', (header: { name: string; type?: string | null; mode?: number }, stream: import('node:stream').Readable, next: (err?: Error) => void) => {
      const p = cleanPath(header.name);
      const type = header.type ?? 'file';
      const hit = under(p, wanted);
      const drain = () => {
        stream.on('end', () => next());
        stream.resume();
      };
      if (!hit) return drain();
      if (type === 'directory') {
        if (root) {
          try {
            // Judged as stored: an absolute name is refused (cleanPath, which the match uses, drops a leading /).
            const target = safeTarget(root, header.name);
            makeParents(root, path.join(target, 'x')).then(() => drain(), (err: Error) => next(err));
          } catch (err) {
            next(err as Error);
          }
          return;
        }
        return drain();
      }
      if (type !== 'file' && type !== 'contiguous-file') {
        skipped++;
        ctx.warn(`${p}: a ${type} entry, not restored (a link could lead outside the folder)`);
        return drain();
      }
      const write = async () => {
        if (toStdout) {
          if (p !== wanted) throw new UsageError(`${wanted} is a folder: --output - takes one file; use --dir`);
          for await (const piece of stream) {
            if (!ctx.io.stdout.write(piece)) await once(ctx.io.stdout, 'drain');
          }
          written++;
          single = true;
          throw new Done();
        }
        const target = safeTarget(root!, header.name);
        await makeParents(root!, target);
        await unlink(target).catch(() => {});
        const fh = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, ((header.mode ?? 0o644) & 0o777) | 0o600);
        const ws = fh.createWriteStream();
        await new Promise<void>((resolve, reject) => pipeline(stream, ws, (err) => (err ? reject(err) : resolve())));
        written++;
        if (p === wanted) {
          single = true;
          throw new Done();
        }
      };
      write().then(() => next(), (err: Error) => next(err));
    });
    const done = new Promise<void>((resolve, reject) => {
      extract.on('finish', () => resolve());
      extract.on('error', (err: Error) => (err instanceof Done ? resolve() : reject(err)));
    });
    done.catch(() => {});
    const sink = {
      write: async (chunk: Buffer) => {
        if (!started) {
          started = true;
          gzip = chunk[0] === 0x1f && chunk[1] === 0x8b;
          pipeline(gzip ? [input, createGunzip(), extract] : ([input, extract] as never), (err) => {
            if (err && !(err instanceof Done) && !single) notTar = err.message;
          });
        }
        if (single) {
          stop.abort(new Done());
          throw new Done();
        }
        if (notTar) throw new CliError(`${file.name}: ${notTar}`, ExitCode.verifyFailed);
        if (!input.write(chunk)) await Promise.race([once(input, 'drain'), done]);
      },
      restart: () => {
        if (started) throw new CliError(`${file.name}: the server started over; run again`, ExitCode.transient);
      },
    };
    try {
      await transfer.read({ name: file.name, url: file.url }, sink);
      input.end();
      await done;
    } catch (err) {
      input.destroy();
      if (!(err instanceof Done) && !(signal.aborted && signal.reason instanceof Done)) {
        if (err instanceof CliError) throw err;
        throw new CliError(`${file.name}: ${(err as Error).message}`, ExitCode.verifyFailed);
      }
    }
    if (single) break;
  }
  if (!written && !skipped) throw new CliError(`${wanted}: no such file or folder in backup ${backup.id}`, ExitCode.notFound);
  if (root) ctx.note(`${written} file${written === 1 ? '' : 's'} written under ${root}${skipped ? `; ${skipped} link or special entr${skipped === 1 ? 'y' : 'ies'} not restored` : ''}`);
  return { kind: 'empty' } satisfies Result;
});

export const handlers: Record<string, Handler> = { ls, find, diff, restoreFile };
