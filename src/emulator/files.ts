// The files server: backup files behind signed URLs on a second port, as a
// storage bucket would serve them (no Authorization, S3-style XML errors,
// byte ranges). Contents are real archives made on the fly (archives.ts), the
// same on every call, with the damage a record's `content.fault` plants; the
// emulator's `changingFiles` option moves a file's bytes on every whole GET.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { bigTarGzStream, buildArchive, type ArchiveSpec } from './archives.js';
import { nightBytes } from './bad-night.js';
import { requireFixture } from './real-dumps.js';
import { plainLengthFor, sealBytes } from './demo-key.js';
import type { Answer } from './reply.js';
import type { FileRecord, Store } from './store.js';

export class FileSigner {
  constructor(private readonly secret: Buffer) {}

  private signature(ownerId: string, name: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${ownerId}/${name}:${expires}`).digest('hex');
  }

  /** `<filesUrl>/files/<owner>/<name>?expires=<unix s>&signature=<hmac>`. */
  url(filesUrl: string, ownerId: string, name: string, expires: number): string {
    const sig = this.signature(ownerId, name, expires);
    return `${filesUrl}/files/${encodeURIComponent(ownerId)}/${encodeURIComponent(name)}?expires=${expires}&signature=${sig}`;
  }

  verify(ownerId: string, name: string, expires: number, signature: string): boolean {
    const expected = Buffer.from(this.signature(ownerId, name, expires));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** How many bytes a wrong-size file really holds (a whole, valid archive): its record says `size`. */
export function wrongSize(size: number): number {
  return size + 1536;
}

/**
 * Where the flipped-byte fault strikes: inside the compressed data, well past the header. In a gzip, the
 * first place from 85% of the way back whose flip the CRC-32 catches: at some places a flip breaks the
 * deflate structure instead, or (once in ~200 names) changes nothing inflate sees, so the error would
 * depend on the file's name, which holds the hour it was made.
 */
function flipAt(bytes: Buffer): number {
  const start = Math.floor(bytes.length * 0.85);
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return start;
  for (let i = start; i > 32; i--) {
    const copy = Buffer.from(bytes);
    copy[i] = copy[i]! ^ 0x10;
    try {
      gunzipSync(copy);
    } catch (e) {
      if (/incorrect data check/.test((e as Error).message)) return i;
    }
  }
  return bytes.length - 8;
}

/**
 * The bytes of a file as stored: the archive its content describes, damaged as
 * its fault says; `version` moves a gzip header's MTIME (changing files).
 * Without content: one line naming it, repeated to its length.
 */
export function fileContent(ownerId: string, file: FileRecord, version = 0): Buffer {
  const content = file.content;
  if (!content) return Buffer.alloc(file.size, `backupctl emulator :: ${ownerId}/${file.name} :: `);
  if (content.text !== undefined) return Buffer.from(content.text);
  if (content.fixture !== undefined) return requireFixture(content.fixture);
  if (content.night !== undefined) return nightBytes(content.night.job, content.night.index);
  if (content.kind === undefined) throw new Error(`file ${file.name}: no bytes to serve (neither an archive kind nor a fixture)`);
  const length = content.fault === 'wrong-size' ? wrongSize(file.size) : file.size;
  // A sealed file: the archive of the length that seals to exactly the stated length, then sealed.
  const plainLength = content.sealed ? plainLengthFor(length, content.sealed.variant) : undefined;
  const spec: ArchiveSpec = {
    kind: content.sealed && plainLength === undefined ? 'encrypted' : content.kind,
    name: file.name,
    length: plainLength ?? length,
    incomplete: content.fault === 'no-end-marker',
    badTarHeader: content.fault === 'bad-tar-header',
    dotdotEntry: content.fault === 'dotdot-entry',
    gzipMtime: version ? 1_709_251_200 + version : undefined,
  };
  let bytes = buildArchive(spec);
  if (content.sealed && plainLength !== undefined) bytes = sealBytes(bytes, content.sealed);
  if (content.fault === 'flipped-byte') {
    const at = flipAt(bytes);
    bytes[at] = bytes[at]! ^ 0x10;
  }
  if (content.fault === 'truncated') return bytes.subarray(0, Math.floor(bytes.length * 0.6));
  return bytes;
}

/**
 * Makes and remembers the bytes of recently asked files (a resumed download
 * asks for the same file again), and counts whole GETs for changing files.
 */
export class FileBytes {
  private readonly recent = new Map<string, Buffer>();
  private readonly wholeGets = new Map<string, number>();
  constructor(private readonly changing = false) {}

  get(ownerId: string, file: FileRecord, whole: boolean): Buffer {
    const key = `${ownerId}/${file.name}`;
    let version = 0;
    if (this.changing) {
      version = (this.wholeGets.get(key) ?? 0) + (whole ? 1 : 0);
      this.wholeGets.set(key, version);
    }
    const cacheKey = `${key}#${version}`;
    let bytes = this.recent.get(cacheKey);
    if (!bytes) {
      bytes = fileContent(ownerId, file, version);
      if (this.recent.size >= 16) this.recent.delete(this.recent.keys().next().value!);
      this.recent.set(cacheKey, bytes);
    }
    return bytes;
  }
}

function fileEtag(ownerId: string, file: FileRecord): string {
  return `"${createHash('sha1').update(`${ownerId}/${file.name}/${file.size}`).digest('hex')}"`;
}

function contentType(name: string): string {
  if (name.endsWith('.gz') || name.endsWith('.tgz')) return 'application/gzip';
  if (name.endsWith('.json')) return 'application/json';
  if (name.endsWith('.txt') || name.endsWith('.sha256')) return 'text/plain';
  return 'application/octet-stream';
}

function s3Error(status: number, code: string, message: string): Answer {
  const body = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
  return { status, headers: { 'Content-Type': 'application/xml' }, body };
}

/** One `bytes=` range of a file of `size` bytes: [start, end] inclusive, 'unsatisfiable', or undefined (serve whole). */
export function parseRange(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges, or a unit we do not know: RFC 9110 lets a server send the whole file.
  if (!m) return undefined;
  const [, from, to] = m;
  if (from === '' && to === '') return undefined;
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(from);
  if (start >= size) return 'unsatisfiable';
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (end < start) return undefined;
  return [start, end];
}

/** Answers a GET or HEAD for `/files/<owner>/<name>?expires=&signature=`. */
export function answerFileRequest(
  req: IncomingMessage,
  url: URL,
  store: Store,
  signer: FileSigner,
  nowMs: number,
  fileBytes: FileBytes = new FileBytes(),
): Answer {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const answer = s3Error(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
    answer.headers.Allow = 'GET, HEAD';
    return answer;
  }
  const m = /^\/files\/([^/]+)\/([^/]+)$/.exec(url.pathname);
  if (!m) return s3Error(404, 'NoSuchKey', 'The specified key does not exist.');
  const ownerId = decodeURIComponent(m[1]!);
  const name = decodeURIComponent(m[2]!);
  const expires = Number(url.searchParams.get('expires'));
  const signature = url.searchParams.get('signature') ?? '';
  if (!Number.isInteger(expires) || !signer.verify(ownerId, name, expires, signature)) {
    return s3Error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
  }
  if (expires * 1000 < nowMs) return s3Error(403, 'AccessDenied', 'Request has expired');
  const file = store.findFile(ownerId, name);
  if (!file) return s3Error(404, 'NoSuchKey', 'The specified key does not exist.');

  const headers: Record<string, string> = {
    'Content-Type': contentType(name),
    'Accept-Ranges': 'bytes',
    ETag: fileEtag(ownerId, file),
    'Content-Disposition': `attachment; filename="${name.replace(/"/g, '')}"`,
  };
  if (file.content?.streamed) return streamedAnswer(req, file, headers);
  const content = fileBytes.get(ownerId, file, !req.headers.range);
  const range = parseRange(req.headers.range, content.length);
  if (range === 'unsatisfiable') {
    const answer = s3Error(416, 'InvalidRange', 'The requested range is not satisfiable');
    answer.headers['Content-Range'] = `bytes */${content.length}`;
    return answer;
  }
  if (range) {
    const [start, end] = range;
    headers['Content-Range'] = `bytes ${start}-${end}/${content.length}`;
    return { status: 206, headers, body: content.subarray(start, end + 1) };
  }
  return { status: 200, headers, body: content };
}

/** The big .tar.gz: made while it is sent, whole or one range. */
function streamedAnswer(req: IncomingMessage, file: FileRecord, headers: Record<string, string>): Answer {
  const range = parseRange(req.headers.range, file.size);
  if (range === 'unsatisfiable') {
    const answer = s3Error(416, 'InvalidRange', 'The requested range is not satisfiable');
    answer.headers['Content-Range'] = `bytes */${file.size}`;
    return answer;
  }
  const [start, end] = range ?? [0, file.size - 1];
  if (range) headers['Content-Range'] = `bytes ${start}-${end}/${file.size}`;
  return {
    status: range ? 206 : 200,
    headers,
    body: Buffer.alloc(0),
    stream: { length: end - start + 1, open: () => bigTarGzStream(file.size, start, end) },
  };
}
