// The driver of one SQL restore: text in, events out of the reader, each
// statement through the noise filter to the target, rows counted per table
// on the way (the tuples of each INSERT, the lines of each COPY).
import type { SqlDialect } from '../../pipeline/kinds.js';
import { DIALECTS, type DialectRules } from './dialects.js';
import { NoiseFilter, Warnings } from './noise.js';
import type { SqlEvent } from '../../pipeline/sql-events.js';
import { newlines, SqlReader } from '../../pipeline/sql-reader.js';
import { countInsertRows, normalizeName } from '../../pipeline/sql-rows.js';
import { RestoreError, type SqlTarget } from './target.js';
import { DEFAULT_BOUNDS, statementBoundRefusal } from '../../pipeline/bounds.js';

const NAME = '(?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|[A-Za-z_\\u0080-\\uffff][\\w$\\u0080-\\uffff]*)';
const QNAME = `(${NAME}(?:\\s*\\.\\s*${NAME})?)`;
const CREATE_TABLE = new RegExp(`^CREATE\\s+(?:(?:GLOBAL|LOCAL)\\s+)?(?:(?:TEMP|TEMPORARY|UNLOGGED)\\s+)?TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?${QNAME}`, 'i');
const DROP_TABLE = new RegExp(`^DROP\\s+(?:TEMPORARY\\s+)?TABLE\\s+(?:IF\\s+EXISTS\\s+)?${QNAME}`, 'i');
const COPY_TABLE = new RegExp(`^COPY\\s+${QNAME}`, 'i');

const SET_PATH = /^SET\s+(?:SESSION\s+|LOCAL\s+)?search_path\s*(?:=|TO)\s*([\s\S]*?)\s*;?\s*$/i;
const SET_CONFIG_PATH = /^SELECT\s+(?:pg_catalog\s*\.\s*)?set_config\s*\(\s*'search_path'\s*,\s*'((?:[^']|'')*)'/i;

/** The schema unqualified names land in under a search_path value ("app, pg_catalog" -> app), or null (none: pg_dump's ''). */
export function firstSchema(value: string): string | null {
  for (const part of value.split(',')) {
    let p = part.trim().replace(/^'(.*)'$/, '$1').trim();
    if (!p || /^"?\$user"?$/i.test(p) || /^"?pg_catalog"?$/i.test(p) || /^"?pg_temp"?$/i.test(p)) continue;
    if (!p.startsWith('"')) p = p.toLowerCase();
    return p;
  }
  return null;
}

export interface CountedTable {
  /** As the dump names it ("public.orders"; mysql: "shop.orders" when the dump names its database). */
  display: string;
  /** How the count query names it (pg: as the dump wrote it; mysql: the bare table name). */
  sql: string;
  expected: number;
}

export class SqlRun {
  private readonly reader: SqlReader;
  readonly filter: NoiseFilter;
  private readonly tables = new Map<string, CountedTable>();
  private copyTable: CountedTable | null = null;
  /** What differs between dialects (dialects.ts). */
  private readonly rules: DialectRules;

  /** pg: the schema of unqualified names, from the dump's own SET search_path (null: as the session's default). */
  private schema: string | null = null;

  constructor(
    readonly dialect: SqlDialect,
    private readonly target: SqlTarget,
    readonly warnings: Warnings,
    /** The reader's memory bound, in characters (BACKUPCTL_RESTORE_MAX_STATEMENT). */
    private readonly maxStatement: number = DEFAULT_BOUNDS.maxStatement,
  ) {
    this.rules = DIALECTS[dialect];
    this.reader = new SqlReader(dialect);
    this.filter = new NoiseFilter(this.rules, target.caps, target.database ?? 'in memory');
  }

  get line(): number {
    return this.reader.currentLine;
  }

  async feed(text: string): Promise<void> {
    await this.handle(this.reader.push(text));
    if (this.reader.pendingChars > this.maxStatement) {
      throw new RestoreError(statementBoundRefusal(this.maxStatement, this.reader.pendingLine), this.reader.pendingLine);
    }
  }

  async end(): Promise<void> {
    await this.handle(this.reader.end());
  }

  /**
   * Statements the content stage read (src/pipeline/content/stage.ts, ContentSink.statements): the same
   * events feed() makes of the text, read once for every sink of the file (the reader's bound applied there).
   */
  async take(events: readonly SqlEvent[]): Promise<void> {
    await this.handle(events);
  }

  /** The tables of the dump with the rows it holds for each. */
  counted(): CountedTable[] {
    const db = this.rules.databaseNamesTables && this.filter.databases.length === 1 ? this.filter.databases[0]! : null;
    return [...this.tables.values()].map((t) => (db && !t.display.includes('.') ? { ...t, display: `${db}.${t.display}` } : t));
  }

  /** pg: an unqualified name as the dump's search_path resolves it. */
  private resolve(raw: string): string {
    return this.rules.qualify(raw, this.schema);
  }

  private table(given: string): CountedTable {
    const raw = this.resolve(given);
    const display = normalizeName(raw, this.dialect);
    const key = this.rules.tableKey(display);
    let t = this.tables.get(key);
    if (!t) {
      t = { display, sql: this.rules.countName(raw, display), expected: 0 };
      this.tables.set(key, t);
    }
    return t;
  }

  private async handle(events: readonly SqlEvent[]): Promise<void> {
    const t = this.target;
    for (const ev of events) {
      if (t.dead) return;
      switch (ev.type) {
        case 'statement': {
          if (ev.copy) {
            const m = COPY_TABLE.exec(ev.head);
            this.copyTable = m ? this.table(m[1]!) : null;
            await t.copyStart(ev.head, ev.line);
            await t.statement(ev.text, ev.line, ev.endLine, ev.head);
            break;
          }
          const d = this.filter.statement(ev.head);
          if (d.action === 'fail') throw new RestoreError(d.message, ev.line, ev.head.slice(0, 200));
          if (d.action === 'skip') {
            this.warnings.add(d.kind, d.what, ev.line);
            await t.blank(newlines(ev.text));
            break;
          }
          this.track(ev.head);
          if (d.action === 'rewrite') {
            this.warnings.add(d.kind, d.what, ev.line);
            const text = ev.text.slice(0, ev.text.length - ev.head.length) + d.text;
            await t.statement(text, ev.line, ev.endLine, d.text);
            const lost = newlines(ev.text) - newlines(text);
            if (lost > 0) await t.blank(lost);
            break;
          }
          await t.statement(ev.text, ev.line, ev.endLine, ev.head);
          break;
        }
        case 'copy-data':
          if (this.copyTable) this.copyTable.expected += ev.rows;
          await t.copyData(ev.text, ev.rows);
          break;
        case 'copy-bytes':
          // The dump's own bytes (the content stage's SqlBytesReader): to the client as they are.
          if (this.copyTable) this.copyTable.expected += ev.rows;
          await t.copyData(ev.bytes, ev.rows);
          break;
        case 'copy-end':
          this.copyTable = null;
          await t.copyEnd(ev.text, ev.line);
          break;
        case 'meta': {
          const d = this.filter.meta(ev.command, ev.args);
          if (d.action === 'fail') throw new RestoreError(d.message, ev.line, ev.text.trim().slice(0, 200));
          if (d.action === 'rewrite') {
            await t.statement(d.text + '\n', ev.line, ev.line, d.text);
            await t.blank(newlines(ev.text) - 1);
            break;
          }
          if (d.action === 'skip' && d.what) this.warnings.add(d.kind, d.what, ev.line);
          await t.blank(newlines(ev.text));
          break;
        }
        case 'client': {
          if (ev.command === 'sandbox') {
            const d = this.filter.sandbox();
            if (d.action === 'skip') {
              this.warnings.add(d.kind, d.what, ev.line);
              await t.blank(newlines(ev.text));
            } else await t.raw(ev.text);
            break;
          }
          await t.raw(ev.text);
          break;
        }
        case 'trailing':
          await t.raw(ev.text);
          break;
        case 'error':
          throw new RestoreError(ev.message, ev.line, ev.text.trim().slice(0, 200));
      }
    }
  }

  /** CREATE TABLE and INSERT: the tables and their rows; DROP TABLE forgets one (mysqldump's stand-ins of views). */
  private track(head: string): void {
    const h = this.rules.openVersionComment(head);
    const c = h.charCodeAt(0) | 0x20;
    if (c === 115 /* s */ && this.rules.searchPath) {
      const m = SET_PATH.exec(h.slice(0, 1000)) ?? SET_CONFIG_PATH.exec(h.slice(0, 1000));
      if (m) this.schema = firstSchema(m[1]!.replace(/''/g, "'"));
      return;
    }
    if (c === 105 /* i */ || c === 114 /* r */) {
      const ins = countInsertRows(h, this.dialect);
      if (ins) this.table(ins.table).expected += ins.rows;
      return;
    }
    if (c === 99 /* c */) {
      const m = CREATE_TABLE.exec(h.slice(0, 600));
      if (m && !/^\s*PARTITION\s+OF\b/i.test(h.slice(m.index + m[0].length, m.index + m[0].length + 40))) this.table(m[1]!);
      return;
    }
    if (c === 100 /* d */) {
      const m = DROP_TABLE.exec(h.slice(0, 600));
      if (m) {
        const display = normalizeName(this.resolve(m[1]!), this.dialect);
        this.tables.delete(this.rules.tableKey(display));
      }
    }
  }
}
