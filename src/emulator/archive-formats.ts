// The formats the emulator's backup files are written in, byte by byte: tar
// (ustar headers with their checksums), gzip (one member padded to a stated
// length) and zip (one writer: local headers, central directory, end record).
// What goes in them is made in src/emulator/archives.ts and hostile-archives.ts.
import { createCipheriv, createHash } from 'node:crypto';
import { crc32, deflateRawSync } from 'node:zlib';

/** 2024-03-01T00:00:00Z: every archive's inner dates are fixed, never "now". */
export const ARCHIVE_EPOCH_S = 1_709_251_200;

/** The most a stored deflate block holds. */
export const STORED_BLOCK = 65_535;

// ---------------------------------------------------------------- tar

export interface TarEntry {
  name: string;
  data: Buffer;
  /** Length written in the header when the data is sent separately. */
  size?: number;
  type?: 'file' | 'directory';
  mode?: number;
  mtime?: number;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** A POSIX ustar header with a correct checksum. */
export function tarHeader(entry: TarEntry): Buffer {
  const h = Buffer.alloc(512);
  const dir = entry.type === 'directory';
  h.write(entry.name, 0, 100, 'utf8');
  h.write(octal(entry.mode ?? (dir ? 0o755 : 0o644), 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(dir ? 0 : (entry.size ?? entry.data.length), 12), 124, 'ascii');
  h.write(octal(entry.mtime ?? ARCHIVE_EPOCH_S, 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write(dir ? '5' : '0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  h.write('root', 265, 32, 'ascii');
  h.write('root', 297, 32, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** Entries, each padded to 512 bytes, then the two zero blocks that end an archive. */
export function tarArchive(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(tarHeader(e));
    if (e.type !== 'directory' && e.data.length) {
      parts.push(e.data, Buffer.alloc((512 - (e.data.length % 512)) % 512));
    }
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}


// ---------------------------------------------------------------- gzip

const PADDING_TEXT = 'backupctl emulator: header comment that pads this file to the length its record states. ';

/**
 * One gzip member of exactly `length` bytes (or undefined when `raw` does not
 * compress into it): header with FCOMMENT padding and FHCRC, deflate, CRC32, ISIZE.
 */
export function paddedGzip(raw: Buffer, length: number, mtime = ARCHIVE_EPOCH_S): Buffer | undefined {
  // Level 1 (gzip --fast): the files server makes these on every call.
  const deflated = deflateRawSync(raw, { level: 1 });
  const commentLength = length - (10 + 1 + 2 + deflated.length + 8);
  if (commentLength < 0) return undefined;
  const header = Buffer.alloc(10 + commentLength + 1);
  header.set([0x1f, 0x8b, 8, 0x02 | 0x10], 0);
  header.writeUInt32LE(mtime >>> 0, 4);
  header[8] = 0;
  header[9] = 3;
  Buffer.from(PADDING_TEXT.repeat(Math.ceil(commentLength / PADDING_TEXT.length) || 1)).copy(header, 10, 0, commentLength);
  header[10 + commentLength] = 0;
  const headerCrc = Buffer.alloc(2);
  headerCrc.writeUInt16LE(crc32(header) & 0xffff);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(raw) >>> 0, 0);
  trailer.writeUInt32LE(raw.length >>> 0, 4);
  return Buffer.concat([header, headerCrc, deflated, trailer]);
}


// ---------------------------------------------------------------- zip

/** A zip entry whose body is ready (deflated, method 8, or stored, method 0). */
export interface ZipImageEntry {
  name: string;
  body: Buffer;
  /** CRC-32 of the entry's inflated bytes. */
  crc: number;
  /** Inflated length. */
  size: number;
  /** Deflated (8, the default) or stored (0). */
  method?: 0 | 8;
  /** The DOS date in the headers (0: none). */
  date?: number;
  /** Where the central directory says its local header is (the bomb points them all at one). */
  offset?: number;
  /** Written as a local header and body (false: listed in the central directory only). */
  local?: boolean;
}

/** THE zip writer: every entry's local header and body, the central directory, then its end record. */
export function zipImage(entries: ZipImageEntry[]): Buffer {
  const parts: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    // The local header and the central directory entry share these fields, at 4 and 6.
    const shared = (b: Buffer, at: number) => {
      b.writeUInt16LE(20, at);
      b.writeUInt16LE(0x0800, at + 2);
      b.writeUInt16LE(e.method ?? 8, at + 4);
      b.writeUInt16LE(0, at + 6);
      b.writeUInt16LE(e.date ?? 0, at + 8);
      b.writeUInt32LE(e.crc, at + 10);
      b.writeUInt32LE(e.body.length, at + 14);
      b.writeUInt32LE(e.size, at + 18);
      b.writeUInt16LE(name.length, at + 22);
    };
    const at = e.offset ?? offset;
    if (e.local !== false) {
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      shared(local, 4);
      parts.push(local, name, e.body);
      offset += 30 + name.length + e.body.length;
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x031e, 4);
    shared(central, 6);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(at, 42);
    centrals.push(central, name);
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, ...centrals, end]);
}

export interface ZipEntry {
  name: string;
  data: Buffer;
  /** Deflated (8) or stored (0). */
  method: 0 | 8;
}

/** A zip of `entries` (deflated at level 1, or stored), dated 2024-01-01. */
export function zipArchive(entries: ZipEntry[]): Buffer {
  return zipImage(
    entries.map((e) => ({
      name: e.name,
      body: e.method === 8 ? deflateRawSync(e.data, { level: 1 }) : e.data,
      crc: crc32(e.data) >>> 0,
      size: e.data.length,
      method: e.method,
      date: 0x5821,
    })),
  );
}

/** Fast deterministic noise: AES-256-CTR over zeros, keyed by `seed`. */
export function pseudoRandomBytes(seed: number, length: number): Buffer {
  const key = createHash('sha256').update(`backupctl-emulator:${seed}`).digest();
  return createCipheriv('aes-256-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(length));
}
