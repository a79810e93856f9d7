// What route handlers return or throw, in the shapes a Laravel API answers
// with, and the bytes a server finally sends.

export interface Reply {
  status: number;
  /** Serialised as JSON; absent for an empty body. */
  body?: unknown;
  /** The body as JSON text already (list pages assemble theirs from cached records). */
  json?: string;
  headers?: Record<string, string>;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: { message: string; errors?: Record<string, string[]> },
    readonly headers: Record<string, string> = {},
  ) {
    super(body.message);
  }
}

export function ok(body: unknown): Reply {
  return { status: 200, body };
}

export function okData(data: unknown): Reply {
  return { status: 200, body: { data } };
}

export function created(data: unknown): Reply {
  return { status: 201, body: { data } };
}

export function noContent(): Reply {
  return { status: 204 };
}

/** Laravel's model-binding miss: `No query results for model [App\Models\Server] 99.` */
export function notFound(model: string, id: string | number): HttpError {
  return new HttpError(404, { message: `No query results for model [App\\Models\\${model}] ${id}.` });
}

/** Laravel's 422: the first message, `(and N more errors)`, and every message by field. */
export function validationError(errors: Record<string, string[]>): HttpError {
  const messages = Object.values(errors).flat();
  const more = messages.length - 1;
  const suffix = more > 0 ? ` (and ${more} more error${more === 1 ? '' : 's'})` : '';
  return new HttpError(422, { message: `${messages[0] ?? 'The given data was invalid.'}${suffix}`, errors });
}

/** A 422 about the state of a record rather than a field of the request. */
export function conflictError(field: string, message: string): HttpError {
  return validationError({ [field]: [message] });
}

/** What a server sends: status, headers and the whole body. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** A body too big to hold, made while it is sent (then `body` is empty). */
  stream?: { length: number; open(): import('node:stream').Readable };
}

export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', ...headers },
    body: Buffer.from(JSON.stringify(body)),
  };
}

/**
 * The emulator's report of a failure of its own (a bug, never a client's mistake), in the CLI's style:
 * one line starting `error:`, then the stack's frames indented by two spaces, on stderr. Node's
 * console.error(err) would print "Error: ..." beside the CLI's "error: ..." (issue 25 §12).
 */
export function reportInternalError(err: unknown, write: (text: string) => void = (text) => void process.stderr.write(text)): void {
  const message = err instanceof Error ? err.message : String(err);
  const frames = err instanceof Error && err.stack ? err.stack.split('\n').filter((line) => /^\s+at /.test(line)) : [];
  write(`error: emulator: internal error: ${message}\n${frames.map((line) => `  ${line.trim()}\n`).join('')}`);
}
