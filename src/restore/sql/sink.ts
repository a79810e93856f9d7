// The RestoreSink of a SQL dump (src/restore/types.ts): decoded bytes in
// (the pipeline's content stage inflated and sniffed them; dispatch.ts asked
// the registry for this engine), or a SQL text's statements read once by that
// stage (ContentSink.statements); the placement planned once (engine.ts:
// --into server, then local binaries, then embedded PGlite) and opened
// confined (the dump's session reaches only its scratch database), the dump
// streamed into it with backpressure, then the checks: every table's
// count(*) against the rows the dump holds, the --assert queries, an empty
// restore refused.
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { CliError } from '../../errors.js';
import { emptyRestore, type AssertionResult, type EngineInfo, type FileRestore, type RestoreFailure, type RestoreOptions, type RestoreSink, type TableRows } from '../types.js';
import { KINDS, type ContentKind, type SqlDialect } from '../../pipeline/kinds.js';
import type { SqlEvent } from '../../pipeline/sql-events.js';
import type { StatementWatcher } from '../../pipeline/types.js';
import type { PipedClient } from './client.js';
import { NoRestoreEngineError, planEngine, prewarmInto, type EngineOptions, type EnginePlan, type SqlEngine } from './engine.js';
import { mysqlEngine } from './mysql.js';
import { Warnings } from './noise.js';
import { postgresEngine } from './postgres.js';
import { DEFAULT_PATH, redact } from '../servers/proc.js';
import { BOUND_SETTINGS, boundsFromEnv } from '../../pipeline/bounds.js';
import { SqlRun } from './run.js';
import { EMPTY_RESTORE, rowsFailure, truthy } from '../db-checks.js';
import { EngineUnavailableError, RestoreError, type SqlTarget } from './target.js';
import { parseIntoUrl } from '../servers/url.js';
import { whenAborted } from '../../util/abort.js';
import { parsing } from '../../pipeline/parses.js';

/** Every SQL engine: a new one is a file implementing SqlEngine, named here. */
export const SQL_ENGINES: readonly SqlEngine[] = [postgresEngine, mysqlEngine];

export const SQL_KINDS: readonly ContentKind[] = SQL_ENGINES.flatMap((e) => e.kinds);

export function dialectOf(kind: ContentKind): SqlDialect | null {
  return SQL_ENGINES.find((e) => e.kinds.includes(kind))?.dialect ?? null;
}

/** What the engines are told: the command's options and environment (never process.env). */
export function engineOptions(o: Pick<RestoreOptions, 'engine' | 'into' | 'runAs' | 'trustIntoUser' | 'env'>): EngineOptions {
  return { engine: o.engine, into: o.into, runAs: o.runAs, trustIntoUser: o.trustIntoUser, env: o.env ?? { PATH: DEFAULT_PATH } };
}

/**
 * Which engine would restore a dump of this kind, without starting anything;
 * throws NoRestoreEngineError (exit 15) when none can. The only place the
 * engine is chosen (engine.ts planEngine).
 */
export function planSqlEngine(kind: ContentKind, o: Pick<RestoreOptions, 'engine' | 'into' | 'runAs' | 'trustIntoUser' | 'env'>): Promise<EnginePlan> {
  return planEngine(SQL_ENGINES, kind, engineOptions(o));
}

/** --into's engine asks its read-only questions while the job is looked up (engine.ts prewarmInto). */
export function prewarmSqlEngine(o: Pick<RestoreOptions, 'engine' | 'into' | 'runAs' | 'trustIntoUser' | 'env'>, signal: AbortSignal): void {
  prewarmInto(SQL_ENGINES, engineOptions(o), signal);
}

/**
 * The reader's memory bound from the command's environment (BACKUPCTL_RESTORE_MAX_STATEMENT, a size such as
 * 256MiB), read by the one parser of the bounds (src/pipeline/bounds.ts); a bad value fails the restore.
 */
export function maxStatement(env: NodeJS.ProcessEnv | undefined): number {
  try {
    return boundsFromEnv({ [BOUND_SETTINGS.maxStatement]: env?.[BOUND_SETTINGS.maxStatement]?.trim() }).maxStatement;
  } catch (e) {
    throw new RestoreError((e as Error).message);
  }
}

/** An error of opening the engine that stops the whole run (no engine: exit 15; a usage or configuration error), not only this file's test. */
function stopsTheRun(e: unknown): boolean {
  return e instanceof NoRestoreEngineError || (e instanceof CliError && !(e instanceof RestoreError));
}


/** How much of the decoded dump may wait in memory while the engine opens (see SqlSink.write). */
const SETUP_AHEAD = 8 << 20;

class SqlSink implements RestoreSink {
  private input: PassThrough | null = null;
  /** The engine is open (or failed to open): the input's usual backpressure applies. */
  private opened = false;
  private consumer: Promise<void> | null = null;
  private target: SqlTarget | null = null;
  private converter: PipedClient | null = null;
  private run: SqlRun | null = null;
  private warnings: Warnings;
  private failure: RestoreFailure | null = null;
  private fatal: unknown = null;
  private kind: ContentKind;
  private started = 0;
  private reset: Promise<void> | null = null;
  private aborted = false;
  private secrets: string[];
  /** Aborts a server still starting (initdb, mariadb-install-db) when abort() comes first. */
  private readonly stopping = new AbortController();

  /**
   * The statements come from the content stage (ContentSink.statements), read once for every sink
   * of the file: write() then only gathers the head the engine opens with. Without it (the sink
   * alone, a pg_dump -Fc converted by pg_restore), the sink reads the decoded bytes itself.
   */
  readonly statements?: StatementWatcher;

  constructor(
    private readonly options: RestoreOptions,
    private readonly givenKind: ContentKind,
    private readonly plan?: EnginePlan,
    fromStage = false,
  ) {
    if (fromStage && KINDS[givenKind].statements) this.statements = { events: (batch) => this.events(batch) };
    this.kind = givenKind;
    this.warnings = new Warnings(options.warn);
    const into = options.into;
    let pw: string | undefined;
    try {
      pw = into ? parseIntoUrl(into).password : undefined;
    } catch {
      pw = undefined;
    }
    this.secrets = pw ? [pw] : [];
    // --timeout and Ctrl-C reach the sink through the signal too: stop at once.
    // Already aborted: nothing is made on a server.
    whenAborted(options.signal, () => void this.abort().catch(() => {}));
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.reset) {
      await this.reset;
      this.reset = null;
    }
    if (this.aborted) throw new Error('restore aborted');
    if (this.fatal) throw this.fatal;
    if (this.statements) return this.gatherHead(chunk);
    if (!this.input) this.begin();
    // While the engine opens (the server probed, the scratch database and its login made), the download and its
    // checks go on into memory, up to SETUP_AHEAD: opening overlaps the transfer instead of stopping it.
    if (!this.input!.write(chunk) && (this.opened || this.input!.writableLength >= SETUP_AHEAD)) await Promise.race([once(this.input!, 'drain'), this.consumer]);
    if (this.fatal) throw this.fatal;
  }

  // ---- The statements from the content stage (this.statements): the head for the engine, then events. ----

  /** The first bytes, which the engine opens with (a server's version, the dump's settings). */
  private head: Buffer[] = [];
  private headLength = 0;
  /** The engine opening (from the head, or at the end of a short dump). */
  private opening: Promise<void> | null = null;
  /** Batches that came while the engine opened (up to SETUP_AHEAD characters, then the stage waits). */
  private queued: Array<readonly SqlEvent[]> = [];
  private queuedChars = 0;
  /** The restore stopped (its failure said): later statements are dropped. */
  private stoppedFeeding = false;

  private gatherHead(chunk: Buffer): void {
    if (!this.started) this.started = Date.now();
    if (this.opening) return;
    this.head.push(chunk);
    this.headLength += chunk.length;
    if (this.headLength >= 65536) this.openEngine();
  }

  private openEngine(): Promise<void> {
    if (!this.started) this.started = Date.now();
    if (this.opening) return this.opening;
    const gen = this.gen;
    const head = Buffer.concat(this.head, this.headLength);
    this.head = [];
    this.headLength = 0;
    this.opening = (async () => {
      try {
        await this.setup(head, gen);
      } catch (e) {
        if (this.stale(gen)) return;
        if (stopsTheRun(e)) this.fatal = e;
        else this.fail(e);
        this.stoppedFeeding = true;
      } finally {
        if (!this.stale(gen)) this.opened = true;
      }
    })();
    return this.opening;
  }

  private async events(batch: readonly SqlEvent[]): Promise<void> {
    if (this.aborted) throw new Error('restore aborted');
    if (this.fatal) throw this.fatal;
    if (this.stoppedFeeding || this.failure) return;
    this.queued.push(batch);
    if (!this.opened) {
      // While the engine opens, the download and its checks go on: up to SETUP_AHEAD characters wait here.
      for (const e of batch) this.queuedChars += e.type === 'copy-bytes' ? e.bytes.length : e.text.length;
      if (this.queuedChars < SETUP_AHEAD) return;
      await this.openEngine();
    }
    await this.feedQueued(this.gen);
    if (this.fatal) throw this.fatal;
  }

  private async feedQueued(gen: number): Promise<void> {
    while (this.queued.length) {
      const batch = this.queued.shift()!;
      if (this.stale(gen) || this.stoppedFeeding || this.failure) break;
      try {
        await this.run!.take(batch);
        if (this.target!.dead) await this.target!.finish();
      } catch (e) {
        this.stoppedFeeding = true;
        this.fail(e);
        await this.stopFeeding();
      }
    }
    this.queued = [];
    this.queuedChars = 0;
  }

  /** The content stage handed on every statement (its last batch held the reader's end). */
  private async endStatements(): Promise<void> {
    const gen = this.gen;
    await this.openEngine();
    if (this.stale(gen)) return;
    await this.feedQueued(gen);
    if (this.stoppedFeeding || this.failure || !this.run) return;
    try {
      await this.target!.finish();
    } catch (e) {
      this.fail(e);
      await this.stopFeeding();
    }
  }

  private begin(): void {
    this.started = Date.now();
    this.input = new PassThrough({ highWaterMark: 1 << 20 });
    const source: Readable = this.input;
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
    let readsText = false;
    const take = async (chunk: Buffer) => {
      if (failed || this.failure) {
        failed = true;
        return;
      }
      try {
        if (this.converter) await this.converter.writeBuffer(chunk);
        else {
          // The dump's text read here (no statements from the content stage): a parse of the file's bytes.
          if (!readsText) parsing('sql');
          readsText = true;
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
        this.opened = true;
        if (stopsTheRun(e)) throw e;
        failed = true;
        this.fail(e);
        return;
      }
      this.opened = true;
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
      if (e instanceof EngineUnavailableError) this.failure.untested = true;
    } else this.failure = { message: redact(e instanceof Error ? e.message : String(e), this.secrets) };
  }

  /** The engine (planned once), the scratch database, the converter of a custom-format dump. */
  private async setup(head: Buffer, gen: number): Promise<void> {
    const dialect = dialectOf(this.kind);
    if (!dialect) throw new RestoreError(`not a SQL dump: ${this.kind}`);
    const eo = engineOptions(this.options);
    const plan = this.plan ?? (await planEngine(SQL_ENGINES, this.kind, eo));
    for (const n of plan.notes) this.warnings.add(`note:${n}`, n, 0);
    const signal = AbortSignal.any([this.options.signal, this.stopping.signal]);
    const target = await plan.engine.open(plan, eo, {
      signal,
      warn: (key, text) => this.warnings.add(key, text, 0),
      head: head.subarray(0, 65536).toString('utf8'),
    });
    if (this.stale(gen)) {
      await target.abort();
      throw new RestoreError('aborted');
    }
    this.target = target;
    this.run = new SqlRun(dialect, this.target, this.warnings, maxStatement(this.options.env));
    const converter = plan.engine.converter(this.kind, eo);
    if (converter) {
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
    this.opened = false;
    this.consumer = null;
    this.failure = null;
    this.fatal = null;
    this.head = [];
    this.headLength = 0;
    this.opening = null;
    this.queued = [];
    this.queuedChars = 0;
    this.stoppedFeeding = false;
    this.started = 0;
    this.kind = this.givenKind;
    this.warnings = new Warnings(this.options.warn);
  }

  private async teardown(): Promise<void> {
    const input = this.input;
    const target = this.target;
    const converter = this.converter;
    this.target = null;
    this.converter = null;
    this.run = null;
    this.converterDone = null;
    input?.destroy();
    await converter?.kill();
    await target?.abort().catch(() => {});
  }

  async end(): Promise<FileRestore> {
    try {
      return await this.finishRun();
    } finally {
      // An abort under way (Ctrl-C reaches the sink through its signal while the pipeline waits here):
      // its cleanup (DROP DATABASE, the throwaway login, the server) ends before the process may exit.
      if (this.aborting) await this.aborting;
    }
  }

  private async finishRun(): Promise<FileRestore> {
    if (this.reset) await this.reset;
    if (this.statements) await this.endStatements();
    else {
      if (!this.input) {
        this.started = Date.now();
        this.begin();
      }
      this.input!.end();
      await this.consumer;
    }
    await Promise.all(this.earlier);
    if (this.converterDone) await this.converterDone.catch(() => {});
    if (this.fatal) {
      await this.teardown();
      throw this.fatal;
    }
    const result = emptyRestore(this.kind, { engine: this.target ? this.target.info : null, database: this.target?.database ?? null });
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
    // A scratch database or login left on the --into server is never a passed test.
    if (!this.failure && this.target?.leftBehind) this.failure = { message: `left on the --into server: ${this.target.leftBehind}` };
    this.target = null;
    result.failure = this.failure;
    result.verdict = this.failure ? 'failed' : 'restored';
    result.warnings = [...this.warnings.list(), ...closeWarnings].map((w) => redact(w, this.secrets));
    if (this.options.keep && result.database && result.engine?.runs === 'local') result.warnings.push(`--keep: the scratch database ${result.database} was on an ephemeral local server, which is gone`);
    // Its name on stderr in every output mode (-q, --check, --json, -o md): where to look, and what to drop when done.
    if (this.options.keep && result.database && result.engine?.runs === 'server' && !this.aborted) this.options.warn?.(`the scratch database ${result.database} is kept on the --into server (--keep); drop it when done`);
    result.restore_seconds = (Date.now() - this.started) / 1000;
    return result;
  }

  private async checks(result: FileRestore, counted: { display: string; sql: string; expected: number }[]): Promise<void> {
    const target = this.target!;
    const [counts, n] = await Promise.all([target.countRows(counted.map((t) => t.sql)), target.countTables()]);
    const tables: TableRows[] = counted.map((t, i) => ({ table: t.display, expected: t.expected, restored: counts[i] ?? null }));
    result.tables = tables;
    const wrong = rowsFailure(tables);
    if (wrong) this.failure = { message: wrong };
    if (n === 0 && !this.options.allowEmpty && !this.failure) this.failure = { message: EMPTY_RESTORE };
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

  private aborting: Promise<void> | null = null;

  /**
   * One abort, however many callers: the signal's listener and the pipeline both call it, and the
   * second must wait for the first's cleanup (it used to return at once, and the process exited
   * before DROP DATABASE reached the --into server: a backupctl_restore_* schema left in 2 of 5 Ctrl-C).
   */
  abort(): Promise<void> {
    this.aborting ??= (async () => {
      this.aborted = true;
      this.stopping.abort();
      await this.teardown();
      await this.consumer?.catch(() => {});
      // An engine still opening (statements from the content stage): it sees the abort and stops what it made.
      await this.opening;
      await Promise.all(this.earlier);
    })();
    return this.aborting;
  }

}

/**
 * The rule of the row counts: every table the dump created holds exactly the rows the dump held, neither fewer
 * (rows lost) nor more (the dump's own code added some: a DO block, a trigger), nor none it can count (a view
 * in its place). The first table that differs, in words; null when every one holds.
 */
/**
 * A RestoreSink for one SQL dump: hand it the decoded bytes (the caller
 * gunzips) of a dump of `kind` (the caller sniffed it). `plan`: the engine
 * planSqlEngine chose (else it is planned when the first bytes arrive).
 * write() rejects with NoRestoreEngineError (exit 15) when no engine can
 * restore the dump.
 */
export function createSqlRestoreSink(options: RestoreOptions, kind: ContentKind, plan?: EnginePlan, o: { fromStage?: boolean } = {}): RestoreSink {
  return new SqlSink(options, kind, plan, o.fromStage === true);
}

