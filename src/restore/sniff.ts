// What a dump is, from its bytes only (issue 24 §2): never from the file name.
// sniffDump looks at the first decompressed bytes; sniffHead also sees
// through gzip, for a caller that holds the raw first bytes of a file.
import { constants, gunzipSync } from 'node:zlib';
import type { DumpKind } from './types.js';

/** The gzip magic (1f 8b). */
export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

const MONGO_MAGIC = 0x8199e26d;

/** What the (decompressed) bytes are. A few kB of the start is enough; 64 kB is plenty. */
export function sniffDump(head: Buffer): DumpKind {
  if (head.length >= 5 && head.subarray(0, 5).toString('latin1') === 'PGDMP') return 'pg-custom';
  if (head.length >= 4 && head.readUInt32LE(0) === MONGO_MAGIC) return 'mongo-archive';
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5) && (head[3] === 4 || head[3] === 6)) return 'zip';
  if (head.length >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar') return 'tar';
  const text = head.subarray(0, 65536).toString('utf8');
  if (/\u0000/.test(text.slice(0, 4096))) return 'unknown';
  // mysqldump / mariadb-dump: their banner, the sandbox line, versioned comments, LOCK TABLES and backticks.
  if (/^\/\*M!999999\\- enable the sandbox mode \*\//.test(text)) return 'mysql';
  if (/^-- (MySQL|MariaDB) dump \d/m.test(text)) return 'mysql';
  // pg_dump: its banner, \restrict, or the SET lines it always writes.
  if (/^-- PostgreSQL database (cluster )?dump/m.test(text)) return 'pg-plain';
  if (/^\\restrict [A-Za-z0-9]+\s*$/m.test(text)) return 'pg-plain';
  if (/^SELECT pg_catalog\.set_config\('search_path'/m.test(text)) return 'pg-plain';
  if (/^COPY [^\n]+ FROM stdin;$/m.test(text)) return 'pg-plain';
  if (/^\/\*!\d{5} SET /m.test(text) || /^LOCK TABLES `/m.test(text) || /^CREATE TABLE `[^`]+` \(/m.test(text)) return 'mysql';
  if (/^SET (statement_timeout|client_encoding|standard_conforming_strings) = /m.test(text)) return 'pg-plain';
  return 'unknown';
}

/**
 * sniffDump through gzip: what the raw first bytes of a file hold, inflating
 * as much of a gzip start as there is (a partial member is fine).
 */
export function sniffHead(raw: Buffer): { gzip: boolean; kind: DumpKind } {
  if (!isGzip(raw)) return { gzip: false, kind: sniffDump(raw) };
  try {
    return { gzip: true, kind: sniffDump(gunzipSync(raw.subarray(0, 65536), { finishFlush: constants.Z_SYNC_FLUSH })) };
  } catch {
    return { gzip: true, kind: 'unknown' };
  }
}
