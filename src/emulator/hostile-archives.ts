// Archives that attack a reader: verify's bounds (zip and gzip bombs) and
// restore-test's extraction (tar bombs, links that lead outside). Their lengths
// are known without making them (the files server states them in the records).
import { constants as zlibConstants, crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { ARCHIVE_EPOCH_S, STORED_BLOCK, tarArchive, tarHeader, zipImage } from './archive-formats.js';

/**
 * Archives that attack the reader, for `verify`'s bounds (src/emulator/verify-fixtures.ts):
 * zip-bomb   20,000 central-directory entries that all point at one 8 MiB entry (about 1 MB);
 * zip-zeros  2,000 entries of 1 MiB of zeros each, apart (legitimate, but 2 GiB to inflate);
 * gzip-zeros 4 GiB of zeros in about 4 MB.
 * Made from one deflated MiB of zeros, copied: nothing is compressed at length.
 */
export type HostileKind = 'zip-bomb' | 'zip-zeros' | 'gzip-zeros';

// ---------------------------------------------------------------- hostile archives

const MIB = 1024 * 1024;
let zeroMiB: { deflated: Buffer; crc: number } | undefined;
/** One MiB of zeros deflated as non-final blocks ending on a byte boundary: copies can follow one another. */
function deflatedZeroMiB(): { deflated: Buffer; crc: number } {
  zeroMiB ??= { deflated: deflateRawSync(Buffer.alloc(MIB), { finishFlush: zlibConstants.Z_SYNC_FLUSH }), crc: crc32(Buffer.alloc(MIB)) >>> 0 };
  return zeroMiB;
}
/** The final, empty deflate block. */
const DEFLATE_END = Buffer.from([0x03, 0x00]);

/** `mib` MiB of zeros, deflated. */
function deflatedZeros(mib: number): Buffer {
  const { deflated } = deflatedZeroMiB();
  return Buffer.concat([...Array.from({ length: mib }, () => deflated), DEFLATE_END]);
}

/** A 32x32 matrix over GF(2) times a vector (zlib's crc32_combine). */
function gf2Times(matrix: Uint32Array, vector: number): number {
  let sum = 0;
  for (let i = 0; vector; i++, vector >>>= 1) if (vector & 1) sum ^= matrix[i]!;
  return sum >>> 0;
}

function gf2Square(matrix: Uint32Array): Uint32Array {
  const out = new Uint32Array(32);
  for (let i = 0; i < 32; i++) out[i] = gf2Times(matrix, matrix[i]!);
  return out;
}

/** CRC-32 of `mib` MiB of zeros, without reading them: zlib's crc32_combine over zeros (1 GiB in microseconds). */
function zerosCrc(mib: number): number {
  let crc = crc32(Buffer.alloc(MIB)) >>> 0;
  // Appending n zero bytes maps the register linearly: the operator for one zero bit, squared up to 1 MiB of zeros.
  let op: Uint32Array = new Uint32Array(32);
  op[0] = 0xedb88320;
  for (let i = 1; i < 32; i++) op[i] = 1 << (i - 1);
  for (let bits = 1; bits < MIB * 8; bits *= 2) op = gf2Square(op);
  // The CRC register is pre- and post-inverted: step the raw register.
  for (let n = mib - 1; n > 0; n >>= 1) {
    if (n & 1) crc = (~gf2Times(op, ~crc >>> 0)) >>> 0;
    op = gf2Square(op);
  }
  return crc >>> 0;
}

const GZIP_ZEROS_MIB = 4096;
const ZIP_ZEROS_ENTRIES = 2000;
const ZIP_BOMB_ENTRIES = 20_000;
const ZIP_BOMB_MIB = 8;

export function hostileArchive(kind: HostileKind): Buffer {
  switch (kind) {
    case 'gzip-zeros': {
      const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
      header.writeUInt32LE(ARCHIVE_EPOCH_S, 4);
      const trailer = Buffer.alloc(8);
      trailer.writeUInt32LE(zerosCrc(GZIP_ZEROS_MIB), 0);
      trailer.writeUInt32LE((GZIP_ZEROS_MIB * MIB) % 2 ** 32, 4);
      return Buffer.concat([header, deflatedZeros(GZIP_ZEROS_MIB), trailer]);
    }
    case 'zip-zeros': {
      const body = deflatedZeros(1);
      const crc = deflatedZeroMiB().crc;
      return zipImage(Array.from({ length: ZIP_ZEROS_ENTRIES }, (_, i) => ({ name: `zeros/${String(i).padStart(4, '0')}.bin`, body, crc, size: MIB })));
    }
    case 'zip-bomb': {
      const body = deflatedZeros(ZIP_BOMB_MIB);
      const crc = zerosCrc(ZIP_BOMB_MIB);
      return zipImage(
        Array.from({ length: ZIP_BOMB_ENTRIES }, (_, i) => ({ name: `bomb/${String(i).padStart(5, '0')}.bin`, body, crc, size: ZIP_BOMB_MIB * MIB, offset: 0, local: i === 0 })),
      );
    }
  }
}

/** The length of a hostile archive, without making it. */
export function hostileLength(kind: HostileKind): number {
  const block = deflatedZeroMiB().deflated.length;
  // Names are fixed-width: zeros/0000.bin and bomb/00000.bin, 14 bytes each.
  const name = 14;
  switch (kind) {
    case 'gzip-zeros':
      return 10 + GZIP_ZEROS_MIB * block + DEFLATE_END.length + 8;
    case 'zip-zeros':
      return ZIP_ZEROS_ENTRIES * (30 + 46 + 2 * name + block + DEFLATE_END.length) + 22;
    case 'zip-bomb':
      return 30 + name + ZIP_BOMB_MIB * block + DEFLATE_END.length + ZIP_BOMB_ENTRIES * (46 + name) + 22;
  }
}

// ---------------------------------------------------------------- hostile archives for restore-test

/**
 * Archives that attack restore-test's extraction (issue 28 §4, §6; jobs in src/emulator/restore-fixtures.ts):
 * tar-zeros    a .tar.gz whose one entry is 1 GiB of zeros (about 1 MB: three gzip members, header, zeros, end);
 * tar-many     a .tar.gz of 50,000 empty files (stored, not compressed: its length is known without making it);
 * tar-dangling `x -> .` then `report.txt -> x/x/x/../../../escaped-by-link.txt`: read as text it stays inside,
 *              walked as the file system walks it, three levels above the folder;
 * tar-chain    `a -> d/..` made before `d -> .`: harmless when made, the folder's parent once d exists.
 * Each also holds an ordinary file, so nothing else fails first.
 */
export type RestoreHostileKind = 'tar-zeros' | 'tar-many' | 'tar-dangling' | 'tar-chain';

const TAR_ZEROS_MIB = 1024;
const TAR_MANY_ENTRIES = 50_000;

/** A tar header of a symbolic link (typeflag 2). */
function symlinkHeader(name: string, target: string): Buffer {
  const h = tarHeader({ name, data: Buffer.alloc(0), mode: 0o777 });
  h[156] = 0x32;
  h.write(target, 157, 100, 'utf8');
  h.write('        ', 148, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** The tar of `tar-many`: 50,000 empty files many/00000.txt..., headers made from one template (its checksum adjusted). */
function manyEntriesTar(): Buffer {
  const out = Buffer.alloc(TAR_MANY_ENTRIES * 512 + 1024);
  const template = tarHeader({ name: 'many/00000.txt', data: Buffer.alloc(0) });
  const base = template.subarray(0, 148).reduce((n, b) => n + b, 0) + 8 * 0x20 + template.subarray(156).reduce((n, b) => n + b, 0) - 5 * 0x30;
  for (let i = 0; i < TAR_MANY_ENTRIES; i++) {
    const h = out.subarray(i * 512, i * 512 + 512);
    template.copy(h);
    const digits = String(i).padStart(5, '0');
    h.write(digits, 5, 'ascii');
    let sum = base;
    for (let d = 0; d < 5; d++) sum += digits.charCodeAt(d);
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  }
  return out;
}

/** `raw` as a gzip of stored deflate blocks (no compression): its length is raw + 5 a block + 18. */
function storedGzip(raw: Buffer): Buffer {
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  header.writeUInt32LE(ARCHIVE_EPOCH_S, 4);
  const parts: Buffer[] = [header];
  for (let at = 0; at < raw.length; at += STORED_BLOCK) {
    const block = raw.subarray(at, at + STORED_BLOCK);
    const head = Buffer.alloc(5);
    head[0] = at + STORED_BLOCK >= raw.length ? 1 : 0;
    head.writeUInt16LE(block.length, 1);
    head.writeUInt16LE(~block.length & 0xffff, 3);
    parts.push(head, block);
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(raw) >>> 0, 0);
  trailer.writeUInt32LE(raw.length % 2 ** 32, 4);
  parts.push(trailer);
  return Buffer.concat(parts);
}

/** A small tar.gz of `entries` (headers and data already made), then the end blocks. */
const smallTarGz = (entries: Buffer[]) => gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]), { level: 9 });
const okFile = () => tarArchive([{ name: 'data/ok.txt', data: Buffer.from('an ordinary file\n') }]).subarray(0, 1024);

/** The parts of `tar-zeros`: the entry's header and the end blocks as two small gzip members around the zeros. */
function tarZerosMembers(): { head: Buffer; tail: Buffer } {
  const header = tarHeader({ name: 'data/zeros.img', data: Buffer.alloc(0), size: TAR_ZEROS_MIB * MIB });
  return { head: gzipSync(Buffer.concat([okFile(), header]), { level: 9 }), tail: gzipSync(Buffer.alloc(1024), { level: 9 }) };
}

/** The bytes of a hostile archive for restore-test. */
export function restoreHostileArchive(kind: RestoreHostileKind): Buffer {
  switch (kind) {
    case 'tar-zeros': {
      const { head, tail } = tarZerosMembers();
      const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
      header.writeUInt32LE(ARCHIVE_EPOCH_S, 4);
      const trailer = Buffer.alloc(8);
      trailer.writeUInt32LE(zerosCrc(TAR_ZEROS_MIB), 0);
      trailer.writeUInt32LE((TAR_ZEROS_MIB * MIB) % 2 ** 32, 4);
      return Buffer.concat([head, header, deflatedZeros(TAR_ZEROS_MIB), trailer, tail]);
    }
    case 'tar-many':
      return storedGzip(manyEntriesTar());
    case 'tar-dangling':
      return smallTarGz([okFile(), symlinkHeader('x', '.'), symlinkHeader('report.txt', 'x/x/x/../../../escaped-by-link.txt')]);
    case 'tar-chain':
      return smallTarGz([okFile(), symlinkHeader('a', 'd/..'), symlinkHeader('d', '.')]);
  }
}

/** The length of a hostile archive for restore-test, without making the big ones. */
export function restoreHostileLength(kind: RestoreHostileKind): number {
  switch (kind) {
    case 'tar-zeros': {
      const { head, tail } = tarZerosMembers();
      return head.length + 10 + TAR_ZEROS_MIB * deflatedZeroMiB().deflated.length + DEFLATE_END.length + 8 + tail.length;
    }
    case 'tar-many': {
      const raw = TAR_MANY_ENTRIES * 512 + 1024;
      return 10 + raw + 5 * Math.ceil(raw / STORED_BLOCK) + 8;
    }
    default:
      return restoreHostileArchive(kind).length;
  }
}
