// The embedded engine: PGlite (@electric-sql/pglite, PostgreSQL compiled to
// WebAssembly) for PostgreSQL plain dumps. An optional package, never in the
// bundle (src/scripts/build.mjs keeps it external) nor in the normal install:
// it is loaded on this path only, and runs in a CHILD PROCESS (issue 28 §3):
// a dump that spins it (COPY ... TO PROGRAM loops forever in WebAssembly) is
// ended by --timeout, Ctrl-C or SIGTERM with SIGKILL, at once. The child gets
// no environment but the package's path, and PGlite's files are in memory.
// PGlite has no psql: statements run one by one, and COPY ... FROM stdin
// blocks go through its /dev/blob COPY, in slices of at most 16 MB.
//
// The single executable (src/scripts/sea.mjs) carries PGlite as assets of its
// blob: its JavaScript and its three files (pglite.wasm, initdb.wasm,
// pglite.data). There process.execPath is the executable itself, which runs
// the CLI whatever its arguments (node's `-e` is not read), so the child is
// the executable started with BACKUPCTL_SEA_CHILD=pglite (src/sea.cjs), and
// PGlite is given its files from the blob instead of looking for them on disk.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import type { EngineInfo } from '../types.js';
import { countTable } from './pg-session.js';
import { EngineUnavailableError, RestoreError, type SqlTarget, type TargetCaps } from './target.js';

const SLICE = 16 * 1024 * 1024;

export const PGLITE_PACKAGE = '@electric-sql/pglite';

/** The single executable's assets that hold PGlite (src/scripts/sea.mjs writes them). */
export const SEA_PGLITE_ASSETS = { js: 'pglite/index.cjs', wasm: 'pglite/pglite.wasm', initdb: 'pglite/initdb.wasm', data: 'pglite/pglite.data' } as const;

/** The environment variable that makes the single executable the PGlite child (src/sea.cjs). */
export const SEA_CHILD_VAR = 'BACKUPCTL_SEA_CHILD';

type SeaModule = typeof import('node:sea');

/** node:sea when this process is the single executable, else null. */
function seaModule(): SeaModule | null {
  try {
    const sea = createRequire(import.meta.url)('node:sea') as SeaModule;
    return sea.isSea() ? sea : null;
  } catch {
    return null;
  }
}

/** The single executable carries PGlite in its blob. */
function seaHasPglite(sea: SeaModule): boolean {
  try {
    sea.getAsset(SEA_PGLITE_ASSETS.wasm);
    return true;
  } catch {
    return false;
  }
}

/** The path of PGlite's CommonJS entry, or null when it is not installed. */
export function pglitePath(): string | null {
  try {
    // A variable specifier: esbuild leaves it alone, so PGlite (27 MB) stays out of the bundle.
    const name = PGLITE_PACKAGE;
    return createRequire(import.meta.url).resolve(name);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return null;
    throw e;
  }
}

/** Whether PGlite is installed (it is loaded in the child only). */
export async function loadPGlite(): Promise<boolean> {
  const sea = seaModule();
  if (sea) return seaHasPglite(sea);
  return pglitePath() !== null;
}

/**
 * The child: PGlite behind IPC, one request at a time. Values come back as text (booleans as t/f).
 * `PGlite` (the class) and `options` (its files, when given) come from the lines before it.
 */
const CHILD_PROTOCOL = `
let db;
const text = (v) => v === null || v === undefined ? null : typeof v === 'boolean' ? (v ? 't' : 'f') : v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v);
const rows = (r) => r.rows.map((row) => row.map(text));
process.on('message', async (m) => {
  try {
    let out = null;
    if (m.op === 'open') {
      db = new PGlite(options);
      await db.waitReady;
      const q = async (sql) => rows(await db.query(sql, [], { rowMode: 'array' }));
      out = { version: (await q('SHOW server_version'))[0][0], settings: (await q('SELECT name FROM pg_settings')).map((r) => r[0]), extensions: (await q('SELECT name FROM pg_available_extensions')).map((r) => r[0]) };
    } else if (m.op === 'exec') await db.exec(m.sql);
    else if (m.op === 'copy') await db.query(m.sql, [], { blob: new Blob([m.data]) });
    else if (m.op === 'query') out = rows(await db.query(m.sql, [], { rowMode: 'array' }));
    process.send({ id: m.id, ok: true, out });
  } catch (e) {
    process.send({ id: m.id, ok: false, message: e && e.message ? e.message : String(e), where: e && e.where });
  }
});
process.on('disconnect', () => process.exit(0));
`;

/** The child under node: PGlite from the installed package. */
const CHILD = `const { PGlite } = require(process.env.PGLITE_PATH);\nconst options = {};\n${CHILD_PROTOCOL}`;

/**
 * The PGlite child inside the single executable (src/sea.cjs calls it when started with
 * BACKUPCTL_SEA_CHILD=pglite and an IPC channel): PGlite's JavaScript and its files from the blob.
 */
export async function seaPgliteChild(): Promise<void> {
  const sea = seaModule();
  if (!sea || !process.send) throw new Error('not the PGlite child of the single executable');
  // require, not import(): the single executable's main script has no loader for a dynamic import.
  const vm = createRequire(import.meta.url)('node:vm') as typeof import('node:vm');
  const Module = createRequire(import.meta.url)('node:module') as typeof import('node:module');
  const file = process.execPath;
  const mod: { exports: { PGlite?: unknown } } = { exports: {} };
  const source = Buffer.from(sea.getAsset(SEA_PGLITE_ASSETS.js)).toString('utf8');
  const req = Module.createRequire(file);
  (vm.runInThisContext(Module.wrap(source), { filename: `${file}/pglite/index.cjs`, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER }) as (...a: unknown[]) => void).call(mod.exports, mod.exports, req, mod, file, file);
  // The lib of this project has no DOM: WebAssembly's value is typed here.
  const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: ArrayBuffer): Promise<unknown> } }).WebAssembly;
  const [pgliteWasmModule, initdbWasmModule] = await Promise.all([wasm.compile(sea.getAsset(SEA_PGLITE_ASSETS.wasm)), wasm.compile(sea.getAsset(SEA_PGLITE_ASSETS.initdb))]);
  const options = { pgliteWasmModule, initdbWasmModule, fsBundle: new Blob([sea.getAsset(SEA_PGLITE_ASSETS.data)]) };
  (vm.runInThisContext(`(function (PGlite, options, require) {${CHILD_PROTOCOL}\n})`) as (...a: unknown[]) => void)(mod.exports.PGlite, options, req);
}

class PgliteError extends Error {
  constructor(
    message: string,
    readonly where?: string,
  ) {
    super(message);
  }
}

/** The child process and its requests. */
class PgliteChild {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private gone: Error | null = null;
  private stderr = '';
  /** Ended by kill() (--timeout, a signal, the end of the test), not on its own. */
  private killed = false;

  constructor(private readonly child: ChildProcess) {
    child.on('message', (m: { id: number; ok: boolean; out?: unknown; message?: string; where?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.out);
      else p.reject(new PgliteError(m.message ?? 'PGlite failed', m.where));
    });
    const end = (why: string) => {
      // The child went away: the engine's failure, never the dump's (restore-test: not-tested).
      this.gone ??= new EngineUnavailableError(why);
      for (const p of this.pending.values()) p.reject(this.gone);
      this.pending.clear();
    };
    child.on('exit', (code, signal) => end(this.killed ? 'PGlite stopped' : `PGlite exited (${signal ?? `exit code ${code}`}${this.stderr ? `: ${this.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 300)}` : ''})`));
    child.on('error', (e) => end(`PGlite could not start: ${e.message}`));
    // Its last words, for the message when it dies.
    child.stderr?.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString('utf8')).slice(-2000);
    });
  }

  call<T>(op: string, fields: Record<string, unknown> = {}): Promise<T> {
    if (this.gone) return Promise.reject(this.gone);
    const id = ++this.next;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ id, op, ...fields }, (e) => {
        if (e && this.pending.delete(id)) reject(new EngineUnavailableError(`PGlite: ${e.message}`));
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Ends it now, wherever it is (a loop in WebAssembly included). */
  kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.killed = true;
    this.child.kill('SIGKILL');
    return exited;
  }
}

/** The PGlite child processes running now (for tests that check nothing is left behind). */
export const livePglite = new Set<number>();

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class PGliteTarget implements SqlTarget {
  readonly dialect = 'postgres' as const;
  readonly database = null;
  readonly dead = false;
  private copySql = '';
  private copyLine = 0;
  private copyHead = '';
  private copyParts: string[] = [];
  private copyLen = 0;
  private copyRowsSent = 0;
  private closed = false;

  private constructor(
    private readonly db: PgliteChild,
    readonly info: EngineInfo,
    readonly caps: TargetCaps,
  ) {}

  /** PGlite started in its child process; `signal` (--timeout, Ctrl-C, SIGTERM) kills it wherever it is. */
  static async open(signal?: AbortSignal): Promise<PGliteTarget> {
    const sea = seaModule();
    const entry = sea ? null : pglitePath();
    if (sea ? !seaHasPglite(sea) : !entry) throw new EngineUnavailableError(`PGlite is not installed (npm install -g ${PGLITE_PACKAGE})`);
    // Under node: node -e CHILD. In the single executable: itself, which becomes the child (src/sea.cjs).
    const child = sea
      ? spawn(process.execPath, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { [SEA_CHILD_VAR]: 'pglite' } })
      : spawn(process.execPath, ['-e', CHILD], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { PGLITE_PATH: entry! } });
    const db = new PgliteChild(child);
    if (child.pid !== undefined) {
      livePglite.add(child.pid);
      child.once('exit', () => livePglite.delete(child.pid!));
    }
    const onAbort = () => void db.kill();
    signal?.addEventListener('abort', onAbort, { once: true });
    child.once('exit', () => signal?.removeEventListener('abort', onAbort));
    if (signal?.aborted) await db.kill();
    try {
      const o = await db.call<{ version: string; settings: string[]; extensions: string[] }>('open');
      const caps: TargetCaps = { settings: new Set(o.settings.map((s) => s.toLowerCase())), extensions: new Set(o.extensions) };
      return new PGliteTarget(
        db,
        { name: 'postgres', runs: 'embedded', product: 'PGlite', version: o.version?.split(' ')[0] ?? null, rights: 'PGlite superuser, in a child process with an in-memory file system and no environment, killed at --timeout or a signal' },
        caps,
      );
    } catch (e) {
      await db.kill();
      throw e;
    }
  }

  async statement(text: string, line: number, _endLine: number, head: string): Promise<void> {
    if (this.copyStatement) {
      // The COPY ... FROM stdin itself: it runs as COPY ... FROM '/dev/blob' with its data (copyEnd).
      this.copyStatement = false;
      return;
    }
    try {
      await this.db.call('exec', { sql: text });
    } catch (e) {
      // The child gone is the engine's failure; PGlite's answer to a statement is the dump's.
      if (e instanceof EngineUnavailableError) throw e;
      throw new RestoreError(errorMessage(e), line, head.slice(0, 200));
    }
  }

  async blank(): Promise<void> {}

  async raw(): Promise<void> {}

  private copyStatement = false;

  async copyStart(head: string, line: number): Promise<void> {
    this.copyStatement = true;
    this.copySql = head.replace(/\bFROM\s+stdin\b/i, "FROM '/dev/blob'");
    this.copyLine = line;
    this.copyHead = head.slice(0, 200);
    this.copyParts = [];
    this.copyLen = 0;
    this.copyRowsSent = 0;
  }

  async copyData(data: string | Buffer, rows: number): Promise<void> {
    // PGlite takes the COPY data as text (the dump's bytes, decoded here).
    const text = typeof data === 'string' ? data : data.toString('utf8');
    this.copyParts.push(text);
    this.copyLen += text.length;
    if (this.copyLen >= SLICE) await this.sendCopy(rows);
    else this.pendingRows += rows;
  }

  private pendingRows = 0;

  private async sendCopy(extraRows = 0): Promise<void> {
    const rows = this.pendingRows + extraRows;
    this.pendingRows = 0;
    if (this.copyParts.length === 0) return;
    const data = this.copyParts.join('');
    this.copyParts = [];
    this.copyLen = 0;
    try {
      await this.db.call('copy', { sql: this.copySql, data });
    } catch (e) {
      if (e instanceof EngineUnavailableError) throw e;
      const msg = errorMessage(e);
      const at = /line (\d+)/.exec((e as { where?: string }).where ?? '');
      throw new RestoreError(msg, at ? this.copyLine + this.copyRowsSent + Number(at[1]) : this.copyLine, this.copyHead);
    }
    this.copyRowsSent += rows;
  }

  async copyEnd(): Promise<void> {
    await this.sendCopy();
  }

  async finish(): Promise<void> {}

  async countRows(tables: string[]): Promise<(number | null)[]> {
    const out: (number | null)[] = [];
    for (const t of tables) {
      try {
        // Counted only while it is a table still: a view of the same name in its place is no count (null).
        const r = await this.db.call<(string | null)[][]>('query', { sql: countTable(t) });
        const cell = r[0]?.[0];
        out.push(cell === null || cell === undefined ? null : Number(cell));
      } catch {
        out.push(null);
      }
    }
    return out;
  }

  async countTables(): Promise<number> {
    const r = await this.db.call<(string | null)[][]>('query', {
      sql: "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'",
    });
    return Number(r[0]?.[0] ?? 0);
  }

  async firstCell(sql: string): Promise<string | null> {
    const r = await this.db.call<(string | null)[][]>('query', { sql });
    return r[0]?.[0] ?? null;
  }

  async close(keep: boolean): Promise<string[]> {
    if (this.closed) return [];
    this.closed = true;
    await this.db.kill();
    return keep ? ['--keep has no effect with PGlite: its database lives in memory'] : [];
  }

  async abort(): Promise<void> {
    await this.close(false);
  }
}
