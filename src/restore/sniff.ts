// A MINIMAL sniff, written by the restore-test command's branch so it can
// dispatch before the restore-sql branch lands: that branch owns this file and
// its fuller sniffDump replaces this one at merge. What the decompressed bytes
// are, from their first bytes, never from the file's name.
import type { DumpKind } from './types.js';

function isTarHeader(head: Buffer): boolean {
  if (head.length < 512) return false;
  if (head.toString('latin1', 257, 262) === 'ustar') return true;
  const stored = parseInt(head.toString('latin1', 148, 156).replace(/\0.*$/, '').trim(), 8);
  if (!Number.isFinite(stored)) return false;
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : head[i]!;
  return sum === stored && sum !== 256;
}

/** The kind of dump the first (decompressed) bytes start; a few KB are enough. */
export function sniffDump(head: Buffer): DumpKind {
  if (head.length >= 4 && head.readUInt32LE(0) === 0x8199e26d) return 'mongo-archive';
  if (head.length >= 5 && head.toString('latin1', 0, 5) === 'PGDMP') return 'pg-custom';
  if (head.length >= 4 && head.readUInt32LE(0) === 0x04034b50) return 'zip';
  if (head.length >= 4 && head.readUInt32LE(0) === 0x06054b50) return 'zip';
  if (isTarHeader(head)) return 'tar';
  const text = head.toString('latin1', 0, Math.min(head.length, 4096));
  if (/^-- (MySQL|MariaDB) dump/m.test(text) || /^\/\*M?!\d+/m.test(text)) return 'mysql';
  if (/^-- PostgreSQL database (cluster )?dump/m.test(text)) return 'pg-plain';
  return 'unknown';
}
