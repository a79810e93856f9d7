// The files server: backup files behind signed URLs on a second port, as a
// storage bucket would serve them (no Authorization, S3-style XML errors,
// byte ranges). Contents are made up on the fly but are the same on every call.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
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

/** The bytes of a file: one line naming it, repeated to its length. */
export function fileContent(ownerId: string, file: FileRecord): Buffer {
  return Buffer.alloc(file.size, `backupctl emulator :: ${ownerId}/${file.name} :: `);
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

  const content = fileContent(ownerId, file);
  const headers: Record<string, string> = {
    'Content-Type': contentType(name),
    'Accept-Ranges': 'bytes',
    ETag: fileEtag(ownerId, file),
    'Content-Disposition': `attachment; filename="${name.replace(/"/g, '')}"`,
  };
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
