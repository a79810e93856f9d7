// The embedded engine: PGlite (@electric-sql/pglite, PostgreSQL compiled to
// WebAssembly) for PostgreSQL plain dumps. An optional package, never in the
// bundle (src/scripts/build.mjs keeps it external) nor in the normal install:
// it is loaded here, on this path only. PGlite has no psql: statements run
// one by one, and COPY ... FROM stdin blocks go through its /dev/blob COPY,
// in slices of at most 16 MB.
import type { EngineInfo } from '../types.js';
import { RestoreError, type SqlTarget, type TargetCaps } from './target.js';
import { createRequire } from 'node:module';

const SLICE = 16 * 1024 * 1024;

interface PGliteLike {
  waitReady: Promise<void>;
  exec(sql: string): Promise<unknown>;
  query<T = unknown>(sql: string, params?: unknown[], opts?: { blob?: Blob; rowMode?: 'array' | 'object' }): Promise<{ rows: T[] }>;
  close(): Promise<void>;
}

export const PGLITE_PACKAGE = '@electric-sql/pglite';

/** PGlite's module, or null when it is not installed. */
export async function loadPGlite(): Promise<{ PGlite: new (opts?: unknown) => PGliteLike } | null> {
  try {
    // A variable specifier: esbuild leaves it alone, so PGlite (27 MB) stays out of the bundle.
    const name = PGLITE_PACKAGE;
    // require (PGlite ships a CommonJS build), not import(): the built CLI runs from a V8 code cache
    // (src/boot.cjs), where a dynamic import() fails with "A dynamic import callback was not specified".
    const mod = createRequire(import.meta.url)(name) as { PGlite?: new () => PGliteLike; default?: { PGlite?: new () => PGliteLike } };
    const PGlite = mod.PGlite ?? mod.default?.PGlite;
    return PGlite ? { PGlite } : null;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') return null;
    throw e;
  }
}

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
    private readonly db: PGliteLike,
    readonly info: EngineInfo,
    readonly caps: TargetCaps,
  ) {}

  static async open(): Promise<PGliteTarget> {
    const mod = await loadPGlite();
    if (!mod) throw new RestoreError(`PGlite is not installed (npm install -g ${PGLITE_PACKAGE})`);
    const db = new mod.PGlite();
    await db.waitReady;
    const v = await db.query<[string]>('SHOW server_version', [], { rowMode: 'array' });
    const settings = await db.query<[string]>('SELECT name FROM pg_settings', [], { rowMode: 'array' });
    const ext = await db.query<[string]>('SELECT name FROM pg_available_extensions', [], { rowMode: 'array' });
    const caps: TargetCaps = {
      settings: new Set(settings.rows.map((r) => r[0].toLowerCase())),
      extensions: new Set(ext.rows.map((r) => r[0])),
    };
    return new PGliteTarget(db, { mode: 'embedded', product: 'PGlite', version: v.rows[0]?.[0]?.split(' ')[0] ?? null }, caps);
  }

  async statement(text: string, line: number, _endLine: number, head: string): Promise<void> {
    if (this.copyStatement) {
      // The COPY ... FROM stdin itself: it runs as COPY ... FROM '/dev/blob' with its data (copyEnd).
      this.copyStatement = false;
      return;
    }
    try {
      await this.db.exec(text);
    } catch (e) {
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

  async copyData(text: string, rows: number): Promise<void> {
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
    const blob = new Blob(this.copyParts);
    this.copyParts = [];
    this.copyLen = 0;
    try {
      await this.db.query(this.copySql, [], { blob });
    } catch (e) {
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
        const r = await this.db.query<[number | bigint]>(`SELECT count(*) FROM ONLY ${t}`, [], { rowMode: 'array' });
        out.push(Number(r.rows[0]?.[0]));
      } catch {
        out.push(null);
      }
    }
    return out;
  }

  async countTables(): Promise<number> {
    const r = await this.db.query<[number]>(
      "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'",
      [],
      { rowMode: 'array' },
    );
    return Number(r.rows[0]?.[0] ?? 0);
  }

  async firstCell(sql: string): Promise<string | null> {
    const r = (await this.db.query<unknown[]>(sql, [], { rowMode: 'array' })) as { rows: unknown[][] };
    const v = r.rows[0]?.[0];
    if (v === undefined || v === null) return null;
    if (typeof v === 'boolean') return v ? 't' : 'f';
    if (v instanceof Date) return v.toISOString();
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
  }

  async close(keep: boolean): Promise<string[]> {
    if (this.closed) return [];
    this.closed = true;
    await this.db.close().catch(() => {});
    return keep ? ['--keep has no effect with PGlite: its database lives in memory'] : [];
  }

  async abort(): Promise<void> {
    await this.close(false);
  }
}
