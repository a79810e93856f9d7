// What changed between two backups (issue 33 §3): their listings walked
// together in path order (bounded memory, whatever their size), as restic diff
// shows it: `+` added, `-` removed, `M` content (or a link's target), `T` type,
// `U` mode or owner only; then statistics. For SQL dumps, the tables added or
// dropped and the rows gained or lost per table, from the fingerprints.
import type { BackupFingerprint } from '../state/catalog.js';
import { mergeJoin } from './anomalies.js';
import type { EntryType, ListingEntry } from './listing.js';

export type ChangeCode = '+' | '-' | 'M' | 'T' | 'U';

export interface DiffChange {
  change: ChangeCode;
  path: string;
  type: EntryType;
  size: number;
  /** The older size (M, T, U). */
  old_size?: number;
  /** The older mode and owner (U). */
  old_mode?: number;
  mode?: number;
}

export interface DiffStats {
  files: { added: number; removed: number; changed: number; metadata: number };
  dirs: { added: number; removed: number };
  others: { added: number; removed: number };
  bytes: { added: number; removed: number; changed_before: number; changed_after: number };
}

export function emptyStats(): DiffStats {
  return {
    files: { added: 0, removed: 0, changed: 0, metadata: 0 },
    dirs: { added: 0, removed: 0 },
    others: { added: 0, removed: 0 },
    bytes: { added: 0, removed: 0, changed_before: 0, changed_after: 0 },
  };
}

const kindOf = (t: EntryType): 'files' | 'dirs' | 'others' => (t === 'f' ? 'files' : t === 'd' ? 'dirs' : 'others');

/** The changes between two sorted listings, counting into `stats` as they go. */
export async function* diffListings(older: AsyncIterable<ListingEntry>, newer: AsyncIterable<ListingEntry>, stats: DiffStats): AsyncGenerator<DiffChange> {
  for await (const [a, b] of mergeJoin(older, newer)) {
    if (a && !b) {
      const k = kindOf(a.type);
      stats[k].removed++;
      if (a.type === 'f') stats.bytes.removed += a.size;
      yield { change: '-', path: a.path, type: a.type, size: a.size };
    } else if (!a && b) {
      const k = kindOf(b.type);
      stats[k].added++;
      if (b.type === 'f') stats.bytes.added += b.size;
      yield { change: '+', path: b.path, type: b.type, size: b.size };
    } else if (a && b) {
      if (a.type !== b.type) {
        stats[kindOf(a.type)].removed++;
        stats[kindOf(b.type)].added++;
        if (a.type === 'f') stats.bytes.removed += a.size;
        if (b.type === 'f') stats.bytes.added += b.size;
        yield { change: 'T', path: b.path, type: b.type, size: b.size, old_size: a.size };
      } else if (a.crc !== b.crc || a.size !== b.size || (a.link ?? '') !== (b.link ?? '')) {
        if (a.type === 'f') {
          stats.files.changed++;
          stats.bytes.changed_before += a.size;
          stats.bytes.changed_after += b.size;
        }
        yield { change: 'M', path: b.path, type: b.type, size: b.size, old_size: a.size };
      } else if (a.mode !== b.mode || a.uid !== b.uid || a.gid !== b.gid) {
        if (a.type === 'f') stats.files.metadata++;
        yield { change: 'U', path: b.path, type: b.type, size: b.size, old_size: a.size, old_mode: a.mode, mode: b.mode };
      }
    }
  }
}

export interface TableChange {
  table: string;
  change: '+' | '-' | 'rows';
  rows_before: number | null;
  rows_after: number | null;
}

/** Tables added or dropped, and rows gained or lost per table, between two fingerprints of SQL dumps. */
export function diffTables(a: BackupFingerprint, b: BackupFingerprint): TableChange[] | undefined {
  const tables = (fp: BackupFingerprint) => {
    const sql = fp.files.filter((f) => f.sql);
    if (!sql.length) return undefined;
    const out = new Map<string, number>();
    for (const f of sql) for (const [t, n] of Object.entries(f.sql!.tables)) out.set(t, (out.get(t) ?? 0) + n);
    return out;
  };
  const ta = tables(a);
  const tb = tables(b);
  if (!ta && !tb) return undefined;
  const names = [...new Set([...(ta?.keys() ?? []), ...(tb?.keys() ?? [])])].sort();
  const out: TableChange[] = [];
  for (const name of names) {
    const before = ta?.get(name);
    const after = tb?.get(name);
    if (before === undefined) out.push({ table: name, change: '+', rows_before: null, rows_after: after ?? 0 });
    else if (after === undefined) out.push({ table: name, change: '-', rows_before: before, rows_after: null });
    else if (before !== after) out.push({ table: name, change: 'rows', rows_before: before, rows_after: after });
  }
  return out;
}

/** "12.3 KiB" */
export function bytesText(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${v.toFixed(1)} ${units[i]}`;
}

/** The statistics block under a diff. */
export function statsText(s: DiffStats | undefined, tables?: TableChange[]): string {
  const lines = !s ? [] : [
    `Files:        ${s.files.added} added, ${s.files.removed} removed, ${s.files.changed} changed, ${s.files.metadata} mode or owner only`,
    `Directories:  ${s.dirs.added} added, ${s.dirs.removed} removed`,
    `Others:       ${s.others.added} added, ${s.others.removed} removed`,
    `Bytes:        ${bytesText(s.bytes.added)} added, ${bytesText(s.bytes.removed)} removed, ${bytesText(s.bytes.changed_before)} changed to ${bytesText(s.bytes.changed_after)}`,
  ];
  if (tables) {
    const added = tables.filter((t) => t.change === '+').length;
    const dropped = tables.filter((t) => t.change === '-').length;
    lines.push(`Tables:       ${added} added, ${dropped} dropped, ${tables.filter((t) => t.change === 'rows').length} with other row counts`);
    for (const t of tables) {
      if (t.change === '+') lines.push(`  + ${t.table} (${t.rows_after} rows)`);
      else if (t.change === '-') lines.push(`  - ${t.table} (${t.rows_before} rows)`);
      else {
        const d = t.rows_after! - t.rows_before!;
        lines.push(`  ${d > 0 ? '+' : '-'}${Math.abs(d)} rows ${t.table} (${t.rows_before} -> ${t.rows_after})`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
