// `backupctl restore-test`: proves that a backup's data comes back. The
// chosen backup (src/pipeline/select.ts) is read through the one read pipeline
// verify uses (src/pipeline: signed URL, no Authorization, resumed, the size
// cap, verify's checks and ledger on the way) with one extra sink per file,
// which restores it as it streams: SQL dumps into a scratch
// database, mongodump archives parsed document by document, file archives
// extracted into a private folder where --exec runs. Exit 0 passed, 14 the
// restore or a check failed, 15 no engine, 11 a file failed the checks on the way,
// 18 unchecked (or structure-only with --check).
import { readFile } from 'node:fs/promises';
import type { Format, Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { jobArg } from '../resources/common.js';
import { CliError, ExitCode, UsageError, VerificationFailedError } from '../errors.js';
import { sanitize } from '../output/sanitize.js';
import { restoreDocumentSchema } from '../restore/document.js';
import { READBACK_CALLS, readbackHandler, readbackParams } from './readback.js';

/** Its own -o formats (besides table, json, ndjson, tsv, -q and --check). */
const FORMATS: ReadonlyArray<Format> = ['md', 'prometheus'];

export const module: ModuleSpec = {
  name: 'restore-test',
  commands: [
    {
      path: ['restore-test'],
      summary: 'Restore a backup to prove its data comes back: SQL into a scratch database, archives extracted',
      description:
        'Reads each file of the chosen backup (the newest completed one unless a backup id is given) by its signed ' +
        'URL, through the read pipeline verify uses (no Authorization header, resumed on a broken transfer; gzip CRC, tar ' +
        'headers and the sha256 against verify\'s ledger checked on the way), and restores it while it streams. What a file holds is sniffed from its bytes, never its name: ' +
        'MySQL/MariaDB and PostgreSQL dumps load into a scratch database (--into URL or BACKUPCTL_RESTORE_URL, else a ' +
        'private server started from the local binaries, else PGlite), every table\'s rows are counted against the dump, ' +
        'and each --assert SQL must return a true first cell. A SQLite database file or sqlite3 .dump is restored in memory ' +
        'inside backupctl (sql.js; no file, server or extension reachable), PRAGMA integrity_check run and every table counted. ' +
        'backupctl help kinds lists what each kind gets. A mongodump archive is parsed document by document and ' +
        'counted per collection ("structure checked, not restored"). A tar, tar.gz or zip is extracted into a private ' +
        'folder (0700; ".." paths, absolute paths and links leading outside, walked as the file system walks them, are ' +
        'refused), counted against its own listing, within the bounds of docs/verify.md (entries, bytes, free space; ' +
        'BACKUPCTL_RESTORE_MAX_ENTRIES, BACKUPCTL_RESTORE_MAX_BYTES), and only once every check passed (the ledger\'s ' +
        '"changed since" too) --exec CMD runs inside it (sh -c) with PATH, HOME, USER, LANG, LC_*, TZ, TERM and TMPDIR ' +
        'only (never BACKUPCTL_*, PGPASSWORD or MYSQL_PWD): its exit decides. The folder and any scratch database are ' +
        'removed afterwards, on Ctrl-C and SIGTERM too, unless --keep.\n\n' +
        'A backup may have been changed by whoever can write to its storage, so a PostgreSQL dump runs with no rights ' +
        'beyond its scratch database: as a throwaway login (random name and password; no superuser, CREATEROLE or ' +
        'CREATEDB, member of no role) that owns only that database, dropped afterwards; with an --into user that may ' +
        'not create roles, as that user only when it reaches nothing but the databases it creates (else ' +
        '--trust-into-user); the local server runs as nobody when root, never as postgres; PGlite in a child process. ' +
        'psql runs every session \\restrict-ed, so no client command of a dump runs. engine.rights in --json says ' +
        'which rights the dump had (docs/security.md).\n\n' +
        'A MySQL/MariaDB dump is sent statement by statement over the wire protocol (no client reads it, so client commands are never run) and ' +
        'runs as a throwaway login with rights on its scratch database only: --into needs a user that may CREATE USER and GRANT, else one whose ' +
        'grants reach only backupctl_restore_* databases, or --trust-into-user. A local MariaDB runs as nobody when backupctl runs as root. ' +
        'Keep the --into password out of argv: BACKUPCTL_RESTORE_URL or --into-file.\n\n' +
        'The global --timeout is the longest the test may take (default 30m). The verdict: passed (restored and counted), ' +
        'structure-only (parsed, not restored: a mongodump), unchecked (nothing could be restored: encrypted, or a kind backupctl ' +
        'does not restore), failed (the bytes or the data are bad), not-tested (the test could not run: network, store, service, ' +
        'scratch server, no engine; never makes a job failing). Exit 0 when passed (structure-only too, except with --check), ' +
        '14 when the restore or a check failed, 18 when unchecked or structure-only with --check (not a failure; 0 with --allow-unchecked), 11 when a file failed the checks on the way, ' +
        'not-tested the exit code of its cause (6 network or service, 15 no engine or a scratch server that cannot be used), 2 ' +
        'for flags that do not fit. Each test leaves a mark on its backup (marks.json in the state folder, keyed by service and backup), where status and report ' +
        'read it. --check is for cron: one summary line on stdout; --lock, --jitter and --healthcheck-url work ' +
        'as for verify. -o md writes a record for an audit folder, -o prometheus metrics per job; backupctl schema ' +
        'restore-test describes --json. As verify, the backup read gets a fingerprint in the catalog (backupctl anomalies, ls, ' +
        'find, diff); --skip-catalog records none.',
      examples: [
        'backupctl restore-test "archive files" --exec "test -d data"',
        'backupctl restore-test "events mongodb" --json',
        'backupctl restore-test "api postgres" --into postgres://restore@db-scratch/ --assert "select count(*) > 0 from orders"',
        'backupctl restore-test "archive files" --exec "test -d data" --check --lock restore-archive --healthcheck-url https://hc-ping.com/<uuid>',
        'backupctl restore-test "events mongodb" -o prometheus --output-file /var/lib/node_exporter/textfile/restore-events.prom',
      ],
      params: [
        { ...jobArg(), in: 'local' },
        { name: 'backup', in: 'local', type: 'uuid', positional: true, complete: 'backups', description: 'One backup id (else the newest completed one)' },
        { name: 'latest', in: 'local', type: 'boolean', description: 'The newest completed backup of the job (the default)' },
        { name: 'into', in: 'local', type: 'string', placeholder: 'url', description: 'A scratch server to restore SQL into (postgres://… or mysql://…; env BACKUPCTL_RESTORE_URL): a fresh database is made and dropped' },
        { name: 'into_file', in: 'local', type: 'string', placeholder: 'path', description: 'Read the --into URL from the first line of this file (keeps its password out of argv, where ps shows it)' },
        { name: 'engine', in: 'local', type: 'enum', values: ['auto', 'server', 'local', 'embedded'], default: 'auto', description: 'Where SQL is restored: auto tries --into, then local binaries, then PGlite' },
        { name: 'assert', in: 'local', type: 'string', repeatable: true, placeholder: 'sql', description: 'SQL that must return a true first cell after the restore' },
        { name: 'exec', in: 'local', type: 'string', placeholder: 'command', description: 'Run this (sh -c) inside an extracted file archive once every check passed, with a minimal environment; its exit decides' },
        { name: 'keep', in: 'local', type: 'boolean', description: 'Keep the scratch database or the extracted folder (their place is printed)' },
        { name: 'allow_empty', in: 'local', type: 'boolean', description: 'A restore that leaves no table (or an archive with no file) passes' },
        { name: 'run_as', in: 'local', type: 'string', placeholder: 'user', description: 'The unprivileged user an ephemeral server runs as when backupctl runs as root (PostgreSQL: nobody by default, never postgres)' },
        { name: 'trust_into_user', in: 'local', type: 'boolean', description: 'Restore as the --into user even when its rights reach beyond the databases it creates (else refused unless it may create roles)' },
        { name: 'check', in: 'local', type: 'boolean', description: 'For cron: a summary line on stdout, failed files on stderr; passes on passed only' },
        { name: 'allow_unchecked', in: 'local', type: 'boolean', description: 'A test that restored nothing (unchecked) or only parsed the structure (structure-only, with --check) passes' },
        ...readbackParams,
      ],
      output: { kind: 'object', schema: 'restore-test' },
      handler: 'restoreTest',
      alsoCalls: READBACK_CALLS,
      dryRunInHandler: true,
      extraFormats: [...FORMATS],
    },
  ],
};

export const schemas = { 'restore-test': restoreDocumentSchema };


const DEFAULT_TIMEOUT_MS = 30 * 60_000;

async function checkInto(url: string, from: string): Promise<void> {
  const { parseIntoUrl } = await import('../restore/servers/url.js');
  try {
    parseIntoUrl(url);
  } catch {
    // Never echo the value: it may hold a password.
    throw new UsageError(`invalid value for ${from}: must be a URL of a scratch server, postgres://user:password@host/ or mysql://user:password@host/ (a Unix socket: postgres://user@/db?host=/run/postgresql)`);
  }
}

/** --into-file: the URL is its first line (never echoed: it may hold a password). */
async function readIntoFile(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new UsageError(`invalid value for --into-file: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const line = text.split('\n')[0]!.replace(/\r$/, '').trim();
  if (!line) throw new UsageError(`invalid value for --into-file: the first line of ${file} is empty (it must hold the URL of a scratch server)`);
  return line;
}

interface Prep {
  timeoutMs: number;
  check: boolean;
  allowUnchecked: boolean;
  restore: Omit<import('../restore/types.js').RestoreOptions, 'signal'>;
}
type RestoreDocument = import('../restore/document.js').RestoreDocument;

/** restore-test: one backup, the read pipeline with a restore sink per file. */
const restoreTest = readbackHandler<RestoreDocument, Prep>({
  name: 'restore-test',
  formats: FORMATS,
  select: 'one',
  dryRunNote: "Then the job's newest completed backup, and a GET of each file's signed URL (no Authorization); nothing is restored.",
  async prepare(v, ctx, bounds) {
    const intoFlag = typeof v.into === 'string' ? v.into : undefined;
    const intoFile = typeof v.into_file === 'string' ? v.into_file : undefined;
    if (intoFlag !== undefined && intoFile !== undefined) throw new UsageError('--into and --into-file both name the scratch server: give one');
    const fromFile = intoFile !== undefined ? await readIntoFile(intoFile) : undefined;
    const into = intoFlag ?? fromFile ?? (ctx.env.BACKUPCTL_RESTORE_URL || undefined);
    if (into !== undefined) await checkInto(into, intoFlag !== undefined ? '--into' : intoFile !== undefined ? '--into-file' : 'BACKUPCTL_RESTORE_URL');
    if (intoFlag !== undefined && (await import('../restore/servers/url.js')).parseIntoUrl(intoFlag).password !== undefined) {
      ctx.warn('--into holds a password, which every user of this machine can read in the process list: give the URL in BACKUPCTL_RESTORE_URL or --into-file instead');
    }
    const engine = (v.engine as 'auto' | 'server' | 'local' | 'embedded' | undefined) ?? 'auto';
    if (engine === 'server' && into === undefined) throw new UsageError('--engine server restores into --into URL (or BACKUPCTL_RESTORE_URL): give one');
    const asserts = (v.assert as string[] | undefined) ?? [];
    const exec = typeof v.exec === 'string' ? v.exec : undefined;
    if (exec !== undefined && !exec.trim()) throw new UsageError('invalid value for --exec: an empty command');
    if (asserts.some((a) => !a.trim())) throw new UsageError('invalid value for --assert: an empty query');
    if (exec !== undefined && asserts.length) throw new UsageError('--exec (a file archive) and --assert (a SQL dump) check different kinds of backup: give one');
    // BACKUPCTL_RESTORE_MAX_DISK (src/restore/disk-budget.ts): a bad value is exit 3 naming it, before anything is sent.
    (await import('../restore/disk-budget.js')).maxDiskFromEnv(ctx.env);
    let timeoutMs = DEFAULT_TIMEOUT_MS;
    if (ctx.globals.timeout !== undefined) timeoutMs = (await ctx.settings()).timeoutMs;
    return {
      timeoutMs,
      check: v.check === true,
      allowUnchecked: v.allow_unchecked === true,
      restore: {
        engine,
        into,
        asserts,
        exec,
        execTimeoutMs: timeoutMs,
        keep: v.keep === true,
        allowEmpty: v.allow_empty === true,
        runAs: typeof v.run_as === 'string' ? v.run_as : undefined,
        trustIntoUser: v.trust_into_user === true,
        env: ctx.env,
        warn: (line) => ctx.warn(line),
        bounds,
      },
    };
  },
  async warm(o, ctx) {
    // --into's engine asks its read-only questions (psql's version, who the user is) while the job is looked up.
    if (o.restore.into === undefined) return;
    const { prewarmSqlEngine } = await import('../restore/sql/sink.js');
    prewarmSqlEngine(o.restore, ctx.signal);
  },
  async checkJob(job, o, label) {
    if (!job.recipe || (!o.restore.asserts.length && o.restore.exec === undefined)) return;
    // The engine that restores this recipe's backups says which check it takes (src/restore/registry.ts).
    const { ENGINES } = await import('../restore/registry.js');
    const engine = ENGINES.find((e) => e.recipes.includes(job.recipe!));
    if (!engine) return;
    const instead = (check: 'assert' | 'exec') => (engine.userCheck === check ? `: check it with --${check} instead` : '');
    if (o.restore.asserts.length && engine.userCheck !== 'assert') {
      throw new UsageError(`--assert runs SQL in a restored database, but job ${label} backs up ${engine.backsUp}${instead('exec')}`);
    }
    if (o.restore.exec !== undefined && engine.userCheck !== 'exec') {
      throw new UsageError(`--exec runs inside an extracted file archive, but job ${label} backs up ${engine.backsUp}${instead('assert')}`);
    }
  },
  noBackup: (label) => `job ${label} has no completed backup to restore`,
  noFiles: (label, [backup]) => `backup ${sanitize(backup!.id)} of job ${label} has no files`,
  async run(r, o) {
    const { restoreBackup } = await import('../restore/run.js');
    const backup = r.backups[0]!;
    return restoreBackup(backup, {
      job: { id: r.job.id, name: r.job.name },
      selection: r.selection.backup ? 'backup' : 'latest',
      transfer: r.transfer,
      progress: r.progress,
      ledger: r.ledger,
      decrypt: r.decrypt,
      urls: r.urls,
      restore: o.restore,
      timeoutMs: o.timeoutMs,
      signal: r.ctx.signal,
      now: () => new Date(),
      sinks: r.sinks,
      onOutcome: r.onOutcome,
      onFile: r.onFile,
    }).catch(async (err: unknown) => {
      // No engine (15) or the service gone (6): the test could not run. Its mark says so (never failed); Ctrl-C leaves none.
      if (!r.ctx.signal.aborted && err instanceof CliError && (err.exitCode === ExitCode.noRestoreEngine || err.exitCode === ExitCode.transient)) {
        const { openMarks } = await import('../fleet/marks.js');
        const mark = { at: new Date().toISOString(), state: 'not-tested' as const, reason: err.message, exit_code: err.exitCode };
        await (await openMarks(r.ctx)).record('restore_test', [{ backupId: backup.id, jobId: r.job.id, createdAt: backup.created_at, mark }]).catch(() => {});
      }
      throw err;
    });
  },
  async marks(doc, o) {
    const b = doc.backups[0]!;
    const { restoreMarks, markEngineText } = await import('../restore/view.js');
    const engines = [...new Set(b.files.filter((f) => f.engine).map((f) => markEngineText(f.engine!)))];
    return { kind: 'restore_test', entries: restoreMarks(doc, { check: o.check, allowUnchecked: o.allowUnchecked, engine: engines.length ? engines.join(', ') : null }) };
  },
  async view() {
    const view = await import('../restore/view.js');
    return { fileColumns: view.restoreFileColumns, summaryText: (doc, width) => view.summaryText(doc, width), prometheus: view.restorePrometheus, markdown: view.restoreMarkdown, };
  },
  async finish(doc, o, label) {
    const b = doc.backups[0]!;
    const { restoreExitCode, failureLines } = await import('../restore/view.js');
    const code = restoreExitCode(b, { check: o.check, allowUnchecked: o.allowUnchecked });
    if (code === 0) return { kind: 'empty' };
    const details = failureLines(doc);
    const why = sanitize(b.reason ?? 'see above');
    switch (b.verdict) {
      case 'failed':
        if (code === ExitCode.verifyFailed) throw new VerificationFailedError(`the restore test of job ${label} failed: a file failed the checks on the way`, details);
        throw new CliError(`the restore test of job ${label} failed: ${why}`, code, details);
      case 'not-tested':
        throw new CliError(`the restore test of job ${label} could not run: ${why} (not-tested: nothing is known of the backup; the job is not marked failing)`, code, details);
      case 'unchecked':
        throw new CliError(`the restore test of job ${label} restored nothing: ${why} (unchecked; --allow-unchecked accepts it)`, code, details);
      default:
        throw new CliError(`the restore test of job ${label} is ${b.verdict}: ${why}; --check passes on passed only (--allow-unchecked accepts it)`, code, details);
    }
  },
});

export const handlers: Record<string, Handler> = { restoreTest };
