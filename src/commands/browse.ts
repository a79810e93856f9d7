// What is in a backup, and what changed (issue 33 §3): `ls`, `find` and
// `diff` read the catalog's listings (a backup not there yet is read into it
// first, as `backupctl scan` does), as streams: a listing of a million entries
// is never held whole. `restore-file` streams one file or folder out of a
// tar backup without writing the archive anywhere. See docs/browse.md.
import { mkdir, lstat, readdir } from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import type { CommandInput, Context, Handler, Result } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { CliError, EmptyResultError, ExitCode, UsageError } from '../errors.js';
import { jobArg } from '../resources/common.js';
import { checkedHandler } from '../cli/checked.js';
import { checkDecryptFlags, decryptParams } from '../jobs/decrypt.js';
import type { Backup } from '../backups/record.js';
import type { Decryptor } from '../pipeline/decrypt.js';
import type { BackupFingerprint, CatalogState as Catalog } from '../state/catalog.js';
import { cleanPath, type ListingEntry } from '../catalog/listing.js';
import { diffSchema, findSchema, lsSchema } from '../catalog/document.js';
import { sanitize, tsvField } from '../output/sanitize.js';
import { encryptedHint, undecrypted } from '../pipeline/encrypted.js';
import { shownName } from '../restore/pick.js';

export const schemas = { ls: lsSchema, find: findSchema, diff: diffSchema };

const backupArg = (name: string, description: string) => ({ name, in: 'local' as const, type: 'uuid' as const, positional: true, required: true, complete: 'backups' as const, keywords: ['latest'], description: `${description}: its id, or latest (the newest completed backup)` });

export const module: ModuleSpec = {
  name: 'browse',
  commands: [
    {
      path: ['ls'],
      summary: 'List what a backup holds: every path of its archive, from the catalog',
      description:
        'Lists the entries of a tar backup (gzipped or not) in path order, like restic ls: the path alone, or with --long the mode, ' +
        'owner, size and time. A path given lists that entry, or everything under that folder. The listing comes from the catalog; a ' +
        'backup not in it yet is read into it first (as backupctl scan). Streams: a listing of a million entries is never held whole. ' +
        'An encrypted backup is decrypted on the way as verify does (--private-key, --decrypt-with, or the job\'s settings in the config).',
      examples: ['backupctl ls "file share" <backup-id>', 'backupctl ls "file share" <backup-id> config --long'],
      params: [
        { ...jobArg(), in: 'local' },
        backupArg('backup', 'The backup'),
        { name: 'path', in: 'local', type: 'string', positional: true, description: 'Only this path, or what is under this folder' },
        { name: 'long', in: 'local', type: 'boolean', short: 'l', description: 'Mode, owner, size and time too' },
        ...decryptParams,
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
        ...decryptParams,
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
        ...decryptParams,
      ],
      output: { kind: 'object', schema: 'diff' },
      handler: 'diff',
      alsoCalls: ['GET /backups/{backup_id}', 'POST /backups/{backup_id}/download'],
    },
    {
      path: ['restore-file'],
      summary: 'Stream one file or folder out of a tar or zip backup: to stdout or into a new folder',
      description:
        'Reads the backup through the read pipeline verify uses (its signed URL, decryption with --private-key, --decrypt-with or the ' +
        'job\'s settings, the one gunzip, verify\'s checks and bounds) and writes only the chosen entries: one regular file to stdout ' +
        'with --output -, or a file or folder into --dir (a folder that does not exist yet, or is empty), under its path in the ' +
        'archive. Nothing else reaches the disk, and reading stops as soon as a single file is out. The same path rule as ' +
        'restore-test: absolute paths and ".." are refused, files are created new (never through a link), links in the archive are ' +
        'not restored (they are named on stderr); files and folders keep their mtimes and modes, without the setuid, setgid and ' +
        'sticky bits. The backup may be given as latest.',
      examples: ['backupctl restore-file "file share" <backup-id> config/app.conf --output - > app.conf', 'backupctl restore-file "file share" <backup-id> docs/finance --dir ./restored'],
      params: [
        { ...jobArg(), in: 'local' },
        backupArg('backup', 'The backup'),
        { name: 'path', in: 'local', type: 'string', positional: true, required: true, description: 'A file or folder of the archive' },
        { name: 'dir', in: 'local', type: 'string', placeholder: 'folder', description: 'Write into this folder (made if missing; must be empty)' },
        { name: 'force', in: 'local', type: 'boolean', description: 'With --output -: write to a terminal all the same' },
        ...decryptParams,
      ],
      output: { kind: 'none', done: 'Restored {path}' },
      // `--output -` (the global -o) streams the one file to stdout, as jobs backup download does.
      extraFormats: ['-'],
      handler: 'restoreFile',
      alsoCalls: ['GET /backups/{backup_id}', 'POST /backups/{backup_id}/download'],
    },
  ],
};

/** The decryptor of the job's backups: --private-key, --decrypt-with, else the job's settings in the config (src/jobs/decrypt.ts). */
async function decryptOf(ctx: Context, values: Record<string, unknown>, jobId: string): Promise<Decryptor | undefined> {
  const [{ decryptorFor }, { jobName }] = await Promise.all([import('../jobs/decrypt.js'), import('../catalog/scan.js')]);
  return decryptorFor(ctx, values, { id: jobId, name: null }, () => jobName(ctx, jobId));
}

/** "backup <id> is encrypted: give --private-key or set jobs.<job>.private_key": exit 15, as verify's "could not decrypt". */
async function encryptedError(ctx: Context, jobId: string, what: string, plural = false): Promise<CliError> {
  const { jobName } = await import('../catalog/scan.js');
  return new CliError(`${what} ${plural ? 'are' : 'is'} ${encryptedHint((await jobName(ctx, jobId)) ?? jobId)}`, ExitCode.noRestoreEngine);
}

/** Whether the catalog holds this backup's files encrypted, not decrypted. */
const undecryptedFp = (fp: BackupFingerprint, record: Backup | undefined) =>
  fp.files.some((f) => undecrypted(f, typeof record?.encryption_key === 'string' && record.encryption_key !== ''));

/** The fingerprint of one backup of the job (an id or `latest`), read into the catalog when it is not there. */
async function fingerprintOf(ctx: Context, catalog: Catalog, jobId: string, backupId: string, decrypt: Decryptor | undefined): Promise<{ fp: BackupFingerprint; record: Backup }> {
  const scan = await import('../catalog/scan.js');
  const record = await scan.backupOfJobById(ctx, jobId, backupId);
  const { fingerprints } = await scan.ensureFingerprints(ctx, catalog, [record], { decrypt });
  const fp = fingerprints[0];
  if (!fp) throw new EmptyResultError(`backup ${sanitize(record.id)} has no files to read`);
  return { fp, record };
}

async function listingsOf(ctx: Context, catalog: Catalog, fp: BackupFingerprint, record: Backup, what: string): Promise<Array<{ file: string; path: string }>> {
  const listings = await catalog.listings(fp);
  if (!listings.length) {
    if (undecryptedFp(fp, record)) throw await encryptedError(ctx, String(record.job_id ?? fp.job_id ?? ''), `backup ${sanitize(fp.backup_id)}`);
    const sql = fp.files.some((f) => f.sql);
    const notes = fp.files.map((f) => f.note).filter(Boolean);
    throw new CliError(
      `backup ${sanitize(fp.backup_id)} has no archive listing to ${what}: ${sql ? 'it is a SQL dump (diff shows its tables and rows)' : `its files are ${fp.files.map((f) => f.kind).join(', ')}`}`,
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
    // A member's name is the archive's: escape sequences and line breaks go (JSON escapes them instead).
    else if (format === 'tsv') await put(`${[...Object.values(extra).map((x) => tsvField(String(x))), tsvField(e.path), e.type, e.size, e.mode.toString(8), e.uid, e.gid, e.mtime, e.crc].join('\t')}\n`);
    else await put(`${long ? longLine(e) : `${sanitize(e.path)}${e.type === 'd' ? '/' : ''}`}\n`);
    n++;
  }
  if (format === 'json') await put(n ? '\n]\n' : ']\n');
  return n;
}

/** The check of a command that streams its output: no --jq; the decryption flags (before a name given for the job is looked up). */
function streamsOnly(command: string) {
  return async (input: CommandInput, ctx: Context): Promise<void> => {
    if (ctx.output.jq) throw new UsageError(`${command} streams its output: --jq is not taken here; pipe -o ndjson to jq instead`);
    await checkDecryptFlags(input.values);
  };
}

const ls = checkedHandler(streamsOnly('ls'), async (input, ctx) => {
  const v = input.values;
  const { catalogFor } = await import('../catalog/scan.js');
  const catalog = await catalogFor(ctx);
  const decrypt = await decryptOf(ctx, v, String(v.job_id));
  const { fp, record } = await fingerprintOf(ctx, catalog, String(v.job_id), String(v.backup), decrypt);
  const prefix = typeof v.path === 'string' ? pathArg(v.path) || undefined : undefined;
  const { backupListing } = await import('../catalog/anomalies.js');
  const listings = await listingsOf(ctx, catalog, fp, record, 'show');
  async function* chosen() {
    for await (const e of backupListing(listings)) if (under(e.path, prefix)) yield e;
  }
  const n = await writeEntries(ctx, chosen(), v.long === true);
  if (!n && prefix) throw new CliError(`${shownName(prefix)}: no such path in backup ${sanitize(fp.backup_id)}`, ExitCode.notFound);
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
  // dotAll: ** crosses a line break in a name too (an archive's names may hold one).
  return { re: new RegExp(`^${re}$`, 's'), whole: p.includes('/') };
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
  const decrypt = await decryptOf(ctx, v, jobId);
  const { fingerprints } = await scan.ensureFingerprints(ctx, catalog, records, { decrypt });
  const recordOf = new Map(records.map((r) => [r.id, r]));
  let sealed = 0;
  const newestFirst = [...fingerprints].sort((a, b) => (b.created_at ?? '').localeCompare(a.created_at ?? ''));
  const { backupListing } = await import('../catalog/anomalies.js');
  const { utcMinute } = await import('../output/format.js');
  const format = ctx.output.quiet ? 'quiet' : ctx.output.format;
  let found = 0;
  let backups = 0;
  let first = true;
  if (format === 'json') ctx.io.stdout.write('[');
  for (const fp of newestFirst) {
    const listings = await catalog.listings(fp);
    if (!listings.length) {
      if (undecryptedFp(fp, recordOf.get(fp.backup_id))) sealed++;
      continue;
    }
    let here = 0;
    async function* matches() {
      for await (const e of backupListing(listings)) {
        const name = whole ? e.path : (e.path.split('/').pop() ?? e.path);
        if (re.test(name)) {
          here++;
          if (here === 1 && format === 'table') ctx.io.stdout.write(`${backups ? '\n' : ''}backup ${sanitize(fp.backup_id)} (${utcMinute(fp.created_at)}):\n`);
          yield e;
        }
      }
    }
    if (format === 'quiet') {
      for await (const _ of matches()) break;
      if (here) ctx.io.stdout.write(`${sanitize(fp.backup_id)}\n`);
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
  if (!found && sealed) throw await encryptedError(ctx, jobId, `${sealed === 1 ? 'its backup' : `its ${sealed} backups`} since ${since}`, sealed > 1);
  if (sealed) ctx.warn(`${sealed} backup${sealed === 1 ? ' was' : 's were'} not searched: ${sealed === 1 ? 'it is' : 'they are'} ${encryptedHint((await scan.jobName(ctx, jobId)) ?? jobId)}`);
  if (!found) throw new EmptyResultError(`no backup of the job since ${since} holds a path matching ${shownName(String(v.pattern))}`);
  if (format === 'table') ctx.note(`${found} match${found === 1 ? '' : 'es'} in ${backups} backup${backups === 1 ? '' : 's'}`);
  return { kind: 'empty' };
});

const diff = checkedHandler(streamsOnly('diff'), async (input, ctx) => {
  const v = input.values;
  const jobId = String(v.job_id);
  const { catalogFor } = await import('../catalog/scan.js');
  const catalog = await catalogFor(ctx);
  const decrypt = await decryptOf(ctx, v, jobId);
  const { fp: a, record: ra } = await fingerprintOf(ctx, catalog, jobId, String(v.backup_a), decrypt);
  const { fp: b, record: rb } = await fingerprintOf(ctx, catalog, jobId, String(v.backup_b), decrypt);
  const d = await import('../catalog/diff.js');
  const { backupListing } = await import('../catalog/anomalies.js');
  const stats = d.emptyStats();
  const tables = d.diffTables(a, b);
  const la = await catalog.listings(a);
  const lb = await catalog.listings(b);
  if (!tables && (!la.length || !lb.length)) await (la.length ? listingsOf(ctx, catalog, b, rb, 'compare') : listingsOf(ctx, catalog, a, ra, 'compare'));
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
      else await put(`${c.change}    ${sanitize(c.path)}${c.type === 'd' ? '/' : ''}\n`);
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

/** restore-file's path, destination, decryption flags and bounds, checked before a name given for the job is looked up. */
async function checkRestoreFile(input: CommandInput, ctx: Context) {
  const v = input.values;
  const wanted = pathArg(String(v.path));
  if (!wanted) throw new UsageError('give a file or folder of the archive: restore-file <job> <backup> <path>');
  const toStdout = ctx.globals.output?.trim() === '-';
  if (toStdout === (v.dir !== undefined)) throw new UsageError('give one of --output - (one file to stdout) or --dir <folder>');
  if (toStdout && ctx.io.stdoutIsTTY && v.force !== true) throw new UsageError('--output - would write the file to the terminal: redirect it (> file) or give --force');
  await checkDecryptFlags(v);
  // The bounds (src/pipeline/bounds.ts): a bad value is exit 3 naming the variable, before anything is sent.
  const { boundsFromEnv } = await import('../pipeline/bounds.js');
  const bounds = boundsFromEnv(ctx.env);
  let root: string | undefined;
  if (!toStdout) {
    root = path.resolve(String(v.dir));
    await mkdir(root, { recursive: true, mode: 0o700 });
    const st = await lstat(root);
    if (!st.isDirectory()) throw new UsageError(`--dir ${sanitize(String(v.dir))} is not a folder`);
    if ((await readdir(root)).length) throw new UsageError(`--dir ${sanitize(String(v.dir))} is not empty: give a new or empty folder`);
  }
  return { wanted, toStdout, root, bounds };
}

/** The read stopped because the one file wanted is out. */
const DONE = Symbol('restore-file: done');

// Through the one read pipeline (src/pipeline/read.ts): the signed URL, fresh URLs, decryption, the one gunzip,
// verify's checks and bounds; the content stage's walk of the archive hands the members to a PickSink
// (src/restore/pick.ts), which writes the chosen ones under restore-test's path rule.
const restoreFile = checkedHandler(checkRestoreFile, async (input, ctx, { wanted, root, bounds }) => {
  const v = input.values;
  const jobId = String(v.job_id);
  const scan = await import('../catalog/scan.js');
  const record = await scan.backupOfJobById(ctx, jobId, String(v.backup));
  const decrypt = await decryptOf(ctx, v, jobId);
  const [{ pipelineBackup }, { readFile }, { signedUrlTransfer }, { SignedUrls, urlMaxAgeFromEnv }, { PickSink }] = await Promise.all([
    import('../pipeline/select.js'),
    import('../pipeline/read.js'),
    import('../pipeline/transfer.js'),
    import('../pipeline/urls.js'),
    import('../restore/pick.js'),
  ]);
  const backup = await pipelineBackup(ctx, record);
  if (!backup.files.length) throw new EmptyResultError(`backup ${sanitize(backup.id)} has no files`);
  const settings = await ctx.settings();
  const urls = new SignedUrls(ctx, await urlMaxAgeFromEnv(ctx.env));
  let written = 0;
  let skipped = 0;
  let archives = 0;
  let encrypted = 0;
  for (const file of backup.files) {
    const stop = new AbortController();
    const signal = AbortSignal.any([ctx.signal, stop.signal]);
    const sink = new PickSink({
      wanted,
      root,
      stdout: ctx.io.stdout,
      bounds,
      warn: (m) => ctx.warn(m),
      done: () => stop.abort(DONE),
      fail: (err) => stop.abort(err),
    });
    let read: Awaited<ReturnType<typeof readFile>> | undefined;
    try {
      read = await readFile(backup, file, {
        transfer: signedUrlTransfer({ signal, timeoutMs: settings.timeoutMs, stderr: ctx.io.stderr, debug: settings.debug }),
        signal,
        now: () => new Date(),
        inspect: { bounds },
        decrypt,
        urls,
        sinks: [sink],
      });
    } catch (err) {
      if (ctx.signal.aborted || !stop.signal.aborted) throw err;
    }
    if (stop.signal.aborted && stop.signal.reason !== DONE) throw stop.signal.reason;
    const counts = sink.counts();
    written += counts.written;
    skipped += counts.skipped;
    if (counts.archive) archives++;
    if (stop.signal.reason === DONE) break;
    const result = read!.result;
    if (result.verdict === 'encrypted') encrypted++;
    // What was written came from a file that failed verify's checks (cut short, damaged): say so, exit 11.
    if (result.verdict === 'failed' && (counts.archive || counts.written)) {
      throw new CliError(`${sanitize(file.name)}: ${sanitize(result.reasons.join('; '))}`, ExitCode.verifyFailed, counts.written ? [`  ${counts.written} file${counts.written === 1 ? '' : 's'} written before it may be incomplete`] : []);
    }
  }
  if (!written && !skipped) {
    if (!archives && encrypted) throw await encryptedError(ctx, jobId, `backup ${sanitize(backup.id)}`);
    if (!archives) throw new CliError(`backup ${sanitize(backup.id)} holds no tar or zip archive: restore-file reads those`, ExitCode.notFound);
    throw new CliError(`${shownName(wanted)}: no such file or folder in backup ${sanitize(backup.id)}`, ExitCode.notFound);
  }
  if (root) ctx.note(`${written} file${written === 1 ? '' : 's'} written under ${sanitize(root)}${skipped ? `; ${skipped} link or special entr${skipped === 1 ? 'y' : 'ies'} not restored` : ''}`);
  return { kind: 'empty' } satisfies Result;
});

export const handlers: Record<string, Handler> = { ls, find, diff, restoreFile };
