// The two SQL engines of restore-test's registry (registry.ts): PostgreSQL and
// MySQL/MariaDB dumps, each a RestoreEngine whose sink is made here. Which
// placement restores the dump is planned once, before the sink is made
// (sql/engine.ts planEngine: --into, then local binaries, then embedded PGlite
// for PostgreSQL): when none can, NoRestoreEngineError (exit 15, naming the
// ways to get one) is thrown from open(), so the dispatcher stops the whole run
// before the rest of the file is read. The sink gets that plan and never
// chooses again.
//
// The one boundary every SQL engine goes through (docs/restore-tests.md, "An
// engine's failure is never a bad backup"): the engine is wrapped here, so
// - an engine that cannot open (a binary missing or exiting, a server that does
//   not start, a refused login, no right to create the scratch database) is the
//   engine's failure: the file's verdict is not-tested (the run exits 15),
//   whatever error it threw;
// - a restore that stops with an error is asked one question afterwards: the
//   engine answers `SELECT 1` (on a fresh session: a new psql, a new MySQL
//   connection; PGlite has one session, asked again), or it does not. An engine that
//   no longer answers (crashed, killed, its child gone, the connection lost) failed
//   itself: not-tested. One that answers refused the dump's statement: failed (exit 14).
import type { ContentKind } from '../pipeline/kinds.js';
import type { FileRestore, RestoreEngine, RestoreOptions, RestoreSink } from './types.js';
import type { EnginePlan, SqlEngine } from './sql/engine.js';
import type { SqlTarget } from './sql/target.js';

/** How long the engine has to answer the question after a failed restore. */
const PROBE_MS = 20_000;

/** What the boundary learnt of one engine while the dump ran. */
interface Watch {
  /** A call to the target threw, or a count came back empty. */
  erred: boolean;
  /** After that, the engine did not answer SELECT 1: why. */
  lost: string | null;
}

/** Asks the engine one trivial question on a fresh session; the reason it could not answer, or null. */
async function unanswered(target: SqlTarget): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to SELECT 1 within ${PROBE_MS / 1000} s`)), PROBE_MS);
    });
    await Promise.race([target.firstCell('SELECT 1'), late]);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    clearTimeout(timer);
  }
}

/** The target with every call watched; before it is closed after an error, the engine is asked if it still answers. */
function watchTarget(target: SqlTarget, watch: Watch): SqlTarget {
  return new Proxy(target, {
    get(t, prop) {
      const v = Reflect.get(t, prop, t) as unknown;
      if (typeof v !== 'function') return v;
      if (prop === 'close') {
        return async (keep: boolean) => {
          if (watch.erred || t.dead) watch.lost = await unanswered(t);
          return t.close(keep);
        };
      }
      if (prop === 'abort' || prop === 'firstCell') return (v as (...a: unknown[]) => unknown).bind(t);
      return async (...args: unknown[]) => {
        try {
          const r = await (v as (...a: unknown[]) => Promise<unknown>).apply(t, args);
          if (prop === 'countRows' && Array.isArray(r) && r.some((n) => n === null)) watch.erred = true;
          return r;
        } catch (e) {
          watch.erred = true;
          throw e;
        }
      };
    },
  });
}

/** The engine behind the boundary: its open() failures are its own, its targets watched. */
async function guardEngine(engine: SqlEngine, watch: Watch): Promise<SqlEngine> {
  const { EngineUnavailableError, RestoreError } = await import('./sql/target.js');
  const { CliError } = await import('../errors.js');
  return {
    ...engine,
    async open(plan, o, x) {
      let target: SqlTarget;
      try {
        target = await engine.open(plan, o, x);
      } catch (e) {
        // A usage or configuration error stops the run as it is; an abort is no failure at all.
        if (x.signal.aborted || e instanceof EngineUnavailableError || (e instanceof CliError && !(e instanceof RestoreError))) throw e;
        const msg = e instanceof Error ? e.message : String(e);
        throw new EngineUnavailableError(`${engine.product} (${plan.placement}) could not start: ${msg}`);
      }
      return watchTarget(target, watch);
    },
  };
}

/** The sink behind the boundary: a failed restore whose engine stopped answering is not-tested, not failed. */
class EngineBoundary implements RestoreSink {
  constructor(
    private readonly inner: RestoreSink,
    private readonly watch: Watch,
  ) {}
  get statements() {
    return this.inner.statements;
  }
  write(chunk: Buffer): Promise<void> {
    return this.inner.write(chunk);
  }
  restart(): void {
    this.watch.erred = false;
    this.watch.lost = null;
    this.inner.restart();
  }
  async end(): Promise<FileRestore> {
    const r = await this.inner.end();
    if (r.verdict !== 'failed' || !r.failure || r.failure.untested || this.watch.lost === null) return r;
    const product = r.engine ? `${r.engine.product} (${r.engine.runs})` : 'the engine';
    return { ...r, failure: { ...r.failure, message: `${product} stopped answering during the restore, so the backup is not judged: ${r.failure.message} (then: ${this.watch.lost})`, untested: true } };
  }
  abort(reason?: unknown): Promise<void> {
    return this.inner.abort(reason);
  }
}

/**
 * The RestoreSink of one SQL dump of `kind`. It gets the decompressed bytes
 * (the dispatcher gunzips), streams them into a scratch database, then counts
 * every table's rows against the dump and runs the --assert queries.
 */
export async function sqlRestoreSink(kind: ContentKind, o: RestoreOptions, x: { fromStage?: boolean } = {}): Promise<RestoreSink> {
  const { planSqlEngine, createSqlRestoreSink } = await import('./sql/sink.js');
  const planned = await planSqlEngine(kind, o);
  const watch: Watch = { erred: false, lost: null };
  const plan: EnginePlan = { ...planned, engine: await guardEngine(planned.engine, watch) };
  // Under the content stage (Content.statements): a SQL text dump's statements come from its one reader.
  return new EngineBoundary(createSqlRestoreSink(o, kind, plan, { fromStage: x.fromStage === true }), watch);
}

/** PostgreSQL dumps (plain and custom format): --into postgres://..., else a local server, else PGlite. */
export const postgresDumpEngine: RestoreEngine = {
  id: 'postgres',
  product: 'PostgreSQL',
  kinds: ['pg-plain', 'pg-custom'],
  placements: ['server', 'local', 'embedded'],
  userCheck: 'assert',
  lists: 'tables',
  recipes: ['postgresql'],
  backsUp: 'a PostgreSQL database',
  does: (kind) => `loaded into a scratch PostgreSQL database (--into postgres://..., else a local server, else PGlite)${kind === 'pg-custom' ? ' through pg_restore' : ''}, every table counted`,
  open: (kind, o, content) => sqlRestoreSink(kind, o, { fromStage: content.statements === true }),
};

/** MySQL and MariaDB dumps: --into mysql://..., else a local MariaDB server. */
export const mysqlDumpEngine: RestoreEngine = {
  id: 'mysql',
  product: 'MySQL/MariaDB',
  kinds: ['mysql'],
  placements: ['server', 'local'],
  userCheck: 'assert',
  lists: 'tables',
  recipes: ['mysql'],
  backsUp: 'a MySQL database',
  does: () => 'loaded into a scratch MySQL/MariaDB database (--into mysql://..., else a local server), every table counted',
  open: (kind, o, content) => sqlRestoreSink(kind, o, { fromStage: content.statements === true }),
};
