// The RestoreSink of a SQL dump (src/restore/types.ts): raw file bytes in
// (gzipped or not: sniffed), the dump's kind sniffed from its first
// decompressed bytes, an engine chosen (--into server, then local binaries,
// then embedded PGlite), the dump streamed into a scratch database with
// backpressure, then the checks: every table's count(*) against the rows the
// dump holds, the --assert queries, an empty restore refused.
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { CliError, ExitCode } from '../../errors.js';
import { isGzip, sniffContent as sniffDump } from '../../pipeline/kinds.js';
import type { AssertionResult, DumpKind, EngineInfo, FileRestore, RestoreFailure, RestoreOptions, RestoreSink, SqlDialect, TableRows } from '../types.js';
import type { PipedClient } from './client.js';
import type { EphemeralServer } from './ephemeral.js';
import { findMyClient, findMyServer, MysqlTarget, myConnFromUrl, startLocalMysql, type MyConn } from './mysql.js';
import { Warnings } from './noise.js';
import { loadPGlite, PGLITE_PACKAGE, PGliteTarget } from './pglite.js';
import { findPgClients, findPgServer, pgConnFromUrl, PsqlTarget, startLocalPostgres, type PgConn } from './postgres.js';
import { serverAccount } from './ephemeral.js';
import { redact } from './proc.js';
import { SqlRun } from './run.js';
import { RestoreError, type SqlTarget } from './target.js';
import { describeRaw, IntoUrlError, parseIntoUrl } from './url.js';

/** No engine can restore this dump (exit 15): names the three ways to get one. */
export class NoRestoreEngineError extends CliError {
  constructor(dialect: SqlDialect, tried: string[] = []) {
    const pg = dialect === 'postgres';
    super(`no engine to restore a ${pg ? 'PostgreSQL' : 'MySQL/MariaDB'} dump`, ExitCode.noRestoreEngine, [
      `install the server package (apt-get install ${pg ? 'postgresql' : 'mariadb-server'}): restore-test starts a private server for each test`,
      `or give a scratch server: --into ${pg ? 'postgres://user:password@host:5432/postgres' : 'mysql://user:password@host:3306/'} (or BACKUPCTL_RESTORE_URL)`,
      pg ? `or add PGlite, PostgreSQL in WebAssembly: npm install -g ${PGLITE_PACKAGE} (beside a global backupctl)` : `or add PGlite (npm install -g ${PGLITE_PACKAGE}): it restores PostgreSQL dumps only`,
      ...tried.map((t) => `(${t})`),
    ]);
  }
}

export const SQL_KINDS: readonly DumpKind[] = ['mysql', 'pg-plain', 'pg-custom'];

export function dialectOf(kind: DumpKind): SqlDialect | null {
  return kind === 'mysql' ? 'mysql' : kind === 'pg-plain' || kind === 'pg-custom' ? 'postgres' : null;
}

type Plan = { engine: 'server' | 'local' | 'embedded'; notes: string[] };

/**
 * Which engine would restore a dump of this kind, without starting anything;
 * throws NoRestoreEngineError (exit 15) when none can. The command may call
 * it before the transfer, to fail before reading a byte.
 */
export async function planSqlEngine(kind: DumpKind, options: Pick<RestoreOptions, 'engine' | 'into' | 'runAs'>): Promise<Plan> {
  const dialect = dialectOf(kind);
  if (!dialect) throw new RestoreError(`not a SQL dump (${kind})`);
  const notes: string[] = [];
  const into = options.into ?? process.env.BACKUPCTL_RESTORE_URL;
  const choice = options.engine;
  if (choice === 'server' || (choice === 'auto' && into)) {
    if (!into) throw new CliError('--engine server needs --into URL (or BACKUPCTL_RESTORE_URL)', ExitCode.usage);
    let u;
    try {
      u = parseIntoUrl(into);
    } catch (e) {
      throw new CliError((e as Error).message, ExitCode.usage);
    }
    if (u.dialect === dialect) {
      const client = dialect === 'postgres' ? findPgClients() : await findMyClient();
      if (!client) {
        if (choice === 'server') throw new NoRestoreEngineError(dialect, [`no ${dialect === 'postgres' ? 'psql' : 'mariadb/mysql'} client to reach --into`]);
        notes.push(`--into: no ${dialect === 'postgres' ? 'psql' : 'mariadb/mysql'} client installed`);
      } else if (kind === 'pg-custom' && !(client as { pgRestore: string | null }).pgRestore) {
        if (choice === 'server') throw new NoRestoreEngineError(dialect, ['no pg_restore for a custom-format dump']);
      } else return { engine: 'server', notes };
    } else {
      if (choice === 'server') throw new CliError(`--into is a ${u.dialect === 'postgres' ? 'PostgreSQL' : 'MySQL'} server, and this dump is ${dialect === 'postgres' ? 'PostgreSQL' : 'MySQL/MariaDB'}`, ExitCode.usage);
      notes.push(`--into ${describeRaw(into)} is not a ${dialect === 'postgres' ? 'PostgreSQL' : 'MySQL'} server: not used for this dump`);
    }
  }
  if (choice === 'local' || choice === 'auto') {
    const ok = dialect === 'postgres' ? findPgServer() && findPgClients() && (kind !== 'pg-custom' || findPgClients()!.pgRestore) : findMyServer() && (await findMyClient());
    const who = serverAccount(dialect === 'postgres' ? 'postgres' : 'mysql', options.runAs);
    if (ok && !who.problem) return { engine: 'local', notes };
    const why = ok ? who.problem! : `no local ${dialect === 'postgres' ? 'PostgreSQL (initdb, postgres, psql)' : 'MariaDB/MySQL (mariadb-install-db, mariadbd, mariadb)'} binaries`;
    if (choice === 'local') {
      if (ok) throw new CliError(`--engine local: ${why}`, ExitCode.noRestoreEngine);
      throw new NoRestoreEngineError(dialect, [why]);
    }
    notes.push(why);
  }
  if ((choice === 'embedded' || choice === 'auto') && dialect === 'postgres') {
    const pgRestore = kind === 'pg-custom' ? findPgClients()?.pgRestore : true;
    if (pgRestore && (await loadPGlite())) return { engine: 'embedded', notes };
    notes.push(pgRestore ? `PGlite is not installed` : 'a custom-format dump needs pg_restore, even for PGlite');
  }
  if (choice === 'embedded' && dialect === 'mysql') notes.push('PGlite restores PostgreSQL dumps only');
  throw new NoRestoreEngineError(dialect, notes);
}

function truthy(v: string | null): boolean {
  if (v === null) return false;
  const s = v.trim().toLowerCase();
  if (s === 't' || s === 'true' || s === 'yes' || s === 'on') return true;
  if (s === '' || s === 'f' || s === 'false' || s === 'no' || s === 'off') return false;
  const n = Number(s);
  return Number.isFinite(n) && n !== 0;
}

class SqlSink implements RestoreSink {
  private input: PassThrough | null = null;
  private consumer: Promise<void> | null = null;
  private target: SqlTarget | null = null;
  private server: EphemeralServer | null = null;
  private converter: PipedClient | null = null;
  private run: SqlRun | null = null;
  private warnings: Warnings;
  private failure: RestoreFailure | null = null;
  private fatal: unknown = null;
  private kind: DumpKind;
  private started = 0;
  private reset: Promise<void> | null = null;
  private aborted = false;
  private secrets: string[];
  /** Aborts a server still starting (initdb, mariadb-install-db) when abort() comes first. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly options: RestoreOptions,
    private readonly givenKind?: DumpKind,
  ) {
    this.kind = givenKind ?? 'unknown';
    this.warnings = new Warnings(options.warn);
    const into = options.into ?? process.env.BACKUPCTL_RESTORE_URL;
    let pw: string | undefined;
    try {
      pw = into ? parseIntoUrl(into).password : undefined;
    } catch {
      pw = undefined;
    }
    this.secrets = pw ? [pw] : [];
    // --timeout and Ctrl-C reach the sink through the signal too: stop at once.
    options.signal.addEventListener('abort', () => void this.abort().catch(() => {}), { once: true });
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.reset) {
      await this.reset;
      this.reset = null;
    }
    if (this.aborted) throw new Error('restore aborted');
    if (this.fatal) throw this.fatal;
    if (!this.input) this.begin(chunk);
    if (!this.input!.write(chunk)) await Promise.race([once(this.input!, 'drain'), this.consumer]);
    if (this.fatal) throw this.fatal;
  }

  private begin(first: Buffer): void {
    this.started = Date.now();
    this.input = new PassThrough({ highWaterMark: 1 << 20 });
    const source: Readable = isGzip(first) ? this.input.pipe(createGunzip({ chunkSize: 256 * 1024 })) : this.input;
    const gen = this.gen;
    this.consumer = this.consume(source, gen).catch((e) => {
      if (gen !== this.gen) return;
      this.fatal = e;
      this.input?.resume();
    });
  }

  /** Bumped by restart(): a consumer of an earlier attempt touches nothing of the new one. */
  private gen = 0;

  private stale(gen: number): boolean {
    return gen !== this.gen || this.aborted;
  }

  private async consume(source: Readable, gen: number): Promise<void> {
    let head: Buffer[] = [];
    let headLen = 0;
    let ready = false;
    const decoder = new StringDecoder('utf8');
    let failed = false;
    source.on('error', (e) => {
      if (!this.stale(gen)) this.fail(new RestoreError(`the file does not gunzip: ${(e as Error).message}`));
    });
    const take = async (chunk: Buffer) => {
      if (failed || this.failure) {
        failed = true;
        return;
      }
      try {
        if (this.converter) await this.converter.writeBuffer(chunk);
        else {
          await this.run!.feed(decoder.write(chunk));
          if (this.target!.dead) await this.target!.finish();
        }
      } catch (e) {
        failed = true;
        this.fail(e);
        await this.converter?.kill();
        await this.stopFeeding();
      }
    };
    const setup = async () => {
      ready = true;
      const all = Buffer.concat(head);
      head = [];
      try {
        await this.setup(all, gen);
      } catch (e) {
        if (this.stale(gen)) return;
        if (e instanceof NoRestoreEngineError || (e instanceof CliError && !(e instanceof RestoreError))) throw e;
        failed = true;
        this.fail(e);
        return;
      }
      await take(all);
    };
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        if (this.stale(gen)) return;
        if (!ready) {
          head.push(chunk);
          headLen += chunk.length;
          if (headLen < 65536) continue;
          await setup();
          continue;
        }
        await take(chunk);
      }
    } catch (e) {
      if (!this.stale(gen)) this.fail(new RestoreError(`reading the dump failed: ${(e as Error).message}`));
      return;
    }
    if (this.stale(gen)) return;
    if (!ready) await setup();
    if (failed || this.failure || !this.run) return;
    try {
      if (this.converter) {
        await this.converter.closeInput();
        await this.converterDone;
      } else {
        const rest = decoder.end();
        if (rest) await this.run.feed(rest);
      }
      await this.run.end();
      await this.target!.finish();
    } catch (e) {
      this.fail(e);
      await this.stopFeeding();
    }
  }

  private converterDone: Promise<void> | null = null;

  private async stopFeeding(): Promise<void> {
    // The client stopped or must stop: what it said is the failure; nothing more is sent.
    try {
      await this.target?.finish();
    } catch (e) {
      if (!this.failure || !this.failure.line) this.fail(e, true);
    }
  }

  private fail(e: unknown, replace = false): void {
    if (this.failure && !replace) return;
    if (e instanceof RestoreError) {
      this.failure = { message: redact(e.message, this.secrets) };
      if (e.line !== undefined) this.failure.line = e.line;
      if (e.statement) this.failure.statement = redact(e.statement.slice(0, 200), this.secrets);
    } else this.failure = { message: redact(e instanceof Error ? e.message : String(e), this.secrets) };
  }

  /** The kind, the engine, the scratch database. */
  private async setup(head: Buffer, gen: number): Promise<void> {
    if (!this.givenKind) this.kind = sniffDump(head);
    const dialect = dialectOf(this.kind);
    if (!dialect) throw new RestoreError(`not a SQL dump: ${this.kind}`);
    const plan = await planSqlEngine(this.kind, this.options);
    for (const n of plan.notes) this.warnings.add(`note:${n}`, n, 0);
    const signal = AbortSignal.any([this.options.signal, this.stopping.signal]);
    const into = this.options.into ?? process.env.BACKUPCTL_RESTORE_URL;
    // Everything this attempt starts is held here until it is known not to be stale (restart(), abort()).
    let server: EphemeralServer | null = null;
    const onClose = async () => {
      await server?.stop();
    };
    let target: SqlTarget;
    try {
      if (plan.engine === 'server') {
        const u = parseIntoUrl(into!);
        target =
          dialect === 'postgres'
            ? await PsqlTarget.open(findPgClients()!, pgConnFromUrl(u), 'server', onClose, signal)
            : await MysqlTarget.open((await findMyClient())!, myConnFromUrl(u), 'server', onClose);
      } else if (plan.engine === 'local') {
        const started = dialect === 'postgres' ? await startLocalPostgres(this.options.runAs, signal) : await startLocalMysql(this.options.runAs, signal);
        server = started.server;
        if (this.stale(gen)) throw new RestoreError('aborted');
        target =
          dialect === 'postgres'
            ? await PsqlTarget.open(findPgClients()!, started.conn as PgConn, 'local', onClose, signal)
            : await MysqlTarget.open((await findMyClient())!, started.conn as MyConn, 'local', onClose);
      } else {
        target = await PGliteTarget.open();
      }
    } catch (e) {
      await server?.stop();
      throw e;
    }
    if (this.stale(gen)) {
      await target.abort();
      throw new RestoreError('aborted');
    }
    this.server = server;
    this.target = target;
    this.run = new SqlRun(dialect, this.target, this.warnings);
    if (this.kind === 'pg-custom') {
      const converter = PsqlTarget.archiveConverter(findPgClients()!);
      this.converter = converter;
      const decoder = new StringDecoder('utf8');
      this.converterDone = (async () => {
        for await (const out of converter.child.stdout! as AsyncIterable<Buffer>) {
          if (this.failure) continue;
          await this.run!.feed(decoder.write(out));
          if (this.target!.dead) {
            await this.target!.finish();
          }
        }
        const r = await converter.end();
        if (r.code !== 0) throw new RestoreError(`pg_restore: ${(/pg_restore: error: ([^\n]*)/.exec(r.stderr)?.[1] ?? r.stderr.trim().split('\n').pop() ?? `exited with ${r.code}`).trim()}`);
        const rest = decoder.end();
        if (rest) await this.run!.feed(rest);
      })();
      // A failure while converting stops the transfer's feeding too.
      this.converterDone.catch(async (e) => {
        this.fail(e);
        await converter.kill();
      });
    }
  }

  /** Consumers of earlier attempts: end() and abort() wait until they have stopped what they started. */
  private earlier: Promise<void>[] = [];

  restart(): void {
    this.gen++;
    if (this.consumer) this.earlier.push(this.consumer);
    const old = this.teardown();
    this.reset = old;
    this.input = null;
    this.consumer = null;
    this.failure = null;
    this.fatal = null;
    this.kind = this.givenKind ?? 'unknown';
    this.warnings = new Warnings(this.options.warn);
  }

  private async teardown(): Promise<void> {
    const input = this.input;
    const target = this.target;
    const server = this.server;
    const converter = this.converter;
    this.target = null;
    this.server = null;
    this.converter = null;
    this.run = null;
    this.converterDone = null;
    input?.destroy();
    await converter?.kill();
    await target?.abort().catch(() => {});
    await server?.stop().catch(() => {});
  }

  async end(): Promise<FileRestore> {
    if (this.reset) await this.reset;
    if (!this.input) {
      this.started = Date.now();
      this.begin(Buffer.alloc(0));
    }
    this.input!.end();
    await this.consumer;
    await Promise.all(this.earlier);
    if (this.converterDone) await this.converterDone.catch(() => {});
    if (this.fatal) {
      await this.teardown();
      throw this.fatal;
    }
    const result: FileRestore = {
      kind: this.kind,
      verdict: 'failed',
      engine: this.target ? this.target.info : null,
      database: this.target?.database ?? null,
      tables: [],
      rows: 0,
      files: null,
      bytes: null,
      warnings: [],
      failure: null,
      assertions: [],
      exec: null,
      restore_seconds: 0,
    };
    if (!dialectOf(this.kind)) {
      result.verdict = 'not-restorable';
      result.failure = { message: `not a SQL dump (${this.kind})` };
      result.restore_seconds = (Date.now() - this.started) / 1000;
      await this.teardown();
      return result;
    }
    const counted = this.run?.counted() ?? [];
    result.tables = counted.map((t) => ({ table: t.display, expected: t.expected, restored: null }));
    if (!this.failure && this.target) {
      try {
        await this.checks(result, counted);
      } catch (e) {
        this.fail(e);
      }
    }
    result.rows = result.tables.reduce((s, t) => s + (t.restored ?? t.expected), 0);
    let closeWarnings: string[] = [];
    if (this.target) closeWarnings = await this.target.close(this.options.keep && !this.aborted).catch((e) => [`cleanup: ${(e as Error).message}`]);
    await this.server?.stop().catch(() => {});
    this.target = null;
    this.server = null;
    result.failure = this.failure;
    result.verdict = this.failure ? 'failed' : 'restored';
    result.warnings = [...this.warnings.list(), ...closeWarnings].map((w) => redact(w, this.secrets));
    if (this.options.keep && result.database && result.engine?.mode === 'local') result.warnings.push(`--keep: the scratch database ${result.database} was on an ephemeral local server, which is gone`);
    result.restore_seconds = (Date.now() - this.started) / 1000;
    return result;
  }

  private async checks(result: FileRestore, counted: { display: string; sql: string; expected: number }[]): Promise<void> {
    const target = this.target!;
    const [counts, n] = await Promise.all([target.countRows(counted.map((t) => t.sql)), target.countTables()]);
    const tables: TableRows[] = counted.map((t, i) => ({ table: t.display, expected: t.expected, restored: counts[i] ?? null }));
    result.tables = tables;
    const wrong = tables.filter((t) => t.restored !== t.expected);
    if (wrong.length > 0) {
      const w = wrong[0]!;
      this.failure = {
        message:
          w.restored === null
            ? `${w.table}: the dump holds ${w.expected} rows, and the table cannot be counted after the restore`
            : `${w.table}: the dump holds ${w.expected} rows, the restored table ${w.restored}` + (wrong.length > 1 ? ` (and ${wrong.length - 1} more tables differ)` : ''),
      };
    }
    if (n === 0 && !this.options.allowEmpty && !this.failure) this.failure = { message: 'the restore left no table (--allow-empty accepts an empty database)' };
    for (const sql of this.options.asserts) {
      const a: AssertionResult = { sql, ok: false, value: null };
      try {
        a.value = await target.firstCell(sql);
        a.ok = truthy(a.value);
      } catch (e) {
        a.error = redact((e as Error).message, this.secrets);
      }
      result.assertions.push(a);
      if (!a.ok && !this.failure) this.failure = { message: a.error ? `--assert failed: ${sql}: ${a.error}` : `--assert returned ${a.value === null ? 'NULL' : a.value}, not true: ${sql}` };
    }
  }

  async abort(): Promise<void> {
    this.aborted = true;
    this.stopping.abort();
    await this.teardown();
    await this.consumer?.catch(() => {});
    await Promise.all(this.earlier);
  }
}

/**
 * A RestoreSink for one SQL dump file: hand it the file's raw bytes (gzipped
 * or not). `kind` when the caller already sniffed it (sniffHead); otherwise
 * the sink sniffs the first decompressed bytes itself, and a kind that is not
 * SQL ends as verdict "not-restorable". write() rejects with
 * NoRestoreEngineError (exit 15) when no engine can restore the dump.
 */
export function createSqlRestoreSink(options: RestoreOptions, kind?: DumpKind): RestoreSink {
  return new SqlSink(options, kind);
}

