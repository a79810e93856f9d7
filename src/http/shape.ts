// What an answer must hold before a command uses it. A hostile or broken service
// can answer a get with `{"data":null}`, `[]` or `123`, a record without its id,
// or `files: "nope"`: each is a clear error (exit 6, like a list answer without
// its `data` array), never `null` on stdout, an "unexpected failure", or a
// request to /backups/undefined/download.
import type { ApiResponse } from '../contract/context.js';
import { ApiError } from '../errors.js';

type Rec = Record<string, unknown>;

function isRecord(v: unknown): v is Rec {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** An error about the answer `res` (a 2xx): exit 6, naming the request. */
export function badAnswer(res: Pick<ApiResponse, 'status' | 'display'>, problem: string): ApiError {
  const display = res.display ?? 'GET (request)';
  const i = display.indexOf(' ');
  return new ApiError({
    status: res.status,
    request: { method: display.slice(0, i), path: display.slice(i + 1) },
    serviceMessage: problem,
    exitCode: 6,
  });
}

/** The record of a get: `data` when the answer wraps it (as the API does), else the body; an object. */
export function recordOf(res: ApiResponse): Rec {
  const body = res.body;
  const data = isRecord(body) && 'data' in body ? body.data : body;
  if (!isRecord(data)) throw badAnswer(res, `the answer holds no record (a \`data\` object; got ${describe(data)})`);
  return data;
}

/** The record's `id`, which the next request's path is built from: a non-empty string or a number. */
export function idOf(res: ApiResponse, record: Rec, what: string): string {
  const id = record.id;
  if ((typeof id === 'string' && id.trim()) || (typeof id === 'number' && Number.isFinite(id))) return String(id);
  throw badAnswer(res, `the ${what} has no \`id\` (got ${describe(id)}); nothing more was asked of the service`);
}

/** A list field of a record (`files`): absent is empty; anything but a list is an error. */
export function listField(res: ApiResponse, record: Rec, field: string, what: string): unknown[] {
  const v = record[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw badAnswer(res, `\`${field}\` is not a list in the ${what} (got ${describe(v)})`);
  return v;
}
