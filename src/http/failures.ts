// The errors one attempt or a whole request can end in, shared by the client
// and the retry layer.
import type { ApiResponse, RequestSpec } from '../contract/context.js';
import { ApiError, CliError, ExitCode, OutcomeUnknownError, TransientError, statusText } from '../errors.js';

/** Failure of one attempt, before retry policy decides: carries what the retry layer needs. */
export class AttemptError extends Error {
  constructor(
    message: string,
    /** The request surely did not reach the service (connection refused, DNS). */
    readonly notSent: boolean,
    /**
     * network, timeout: worth another try. answer: a 2xx whose body is not the
     * JSON the API speaks (a proxy's HTML page, a cut-off body); retried like a
     * network error. tls: the certificate was refused; another try cannot help.
     * refused: an answer we will not read (too large, too deeply nested); the
     * service would send it again, so it is not retried either.
     */
    readonly kind: 'network' | 'timeout' | 'answer' | 'tls' | 'refused',
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Turns a non-2xx answer into the typed error (used by the retry layer once retries are over). */
export function errorForResponse(req: RequestSpec, res: ApiResponse, display: string): Error {
  const body = res.body as { message?: unknown; errors?: unknown } | string | undefined;
  let serviceMessage: string | undefined;
  let fieldErrors: Record<string, string[]> | undefined;
  if (body && typeof body === 'object') {
    if (typeof body.message === 'string') serviceMessage = body.message;
    if (body.errors && typeof body.errors === 'object' && !Array.isArray(body.errors)) {
      fieldErrors = {};
      for (const [k, v] of Object.entries(body.errors as Record<string, unknown>)) {
        fieldErrors[k] = Array.isArray(v) ? v.map(messageText) : [messageText(v)];
      }
    }
  } else if (typeof body === 'string' && body.trim()) {
    // HTML from a proxy: say what it was, not the whole page.
    serviceMessage = /<html|<!doctype/i.test(body) ? 'the answer was an HTML page, not JSON' : body.trim().slice(0, 200);
  }
  const [method, path] = splitDisplay(display);
  const err = new ApiError({ status: res.status, request: { method, path }, serviceMessage, fieldErrors, body: res.body });
  const hint = spellingHint(req, res.status, fieldErrors);
  if (hint) err.details.push(hint);
  return err;
}

/**
 * The interface document and the published service spell providers differently (issue 30 §1):
 * a droplet/volume path not found, or a provider value refused, may be only that.
 */
function spellingHint(req: RequestSpec, status: number, fieldErrors: Record<string, string[]> | undefined): string | undefined {
  const area = /^\/(?:v1\/)?(cloud_i|digitalocean)\/(droplets|volumes)\/?$/.exec(req.path);
  const other = area?.[1] === 'cloud_i' ? 'published (/v1/digitalocean/...)' : 'neutral (/v1/cloud_i/...)';
  if (status === 404 && area) return `  The service may spell this area the other way, ${other}: see backupctl doctor, then backupctl config set provider_names <neutral|published>.`;
  if (status === 422 && fieldErrors && Object.hasOwn(fieldErrors, 'provider')) {
    return '  The service may take the other spelling of provider names (cloud_a or aws): see backupctl doctor, then backupctl config set provider_names <neutral|published>.';
  }
  return undefined;
}

/** A field error as text: strings as sent, anything else as compact JSON (not "[object Object]"). */
function messageText(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * A 3xx answer: never followed, never success. It names the status and the origin
 * the Location points to (not its path, which may carry anything), and points at
 * the base URL, the usual cause (http:// for an https service, a missing path, an
 * old host). After a POST the service may have acted before redirecting: exit 7.
 */
export function redirectError(req: RequestSpec, res: ApiResponse, display: string, origin: string | undefined): CliError {
  const location = Array.isArray(res.headers.location) ? res.headers.location[0] : res.headers.location;
  let to = 'nowhere (no Location header)';
  if (location) {
    try {
      to = new URL(location, origin).origin;
    } catch {
      to = 'an unreadable Location';
    }
  }
  const what = `${res.status} ${statusText(res.status)}: ${display}: the service redirected to ${to}; redirects are not followed`;
  const hint = 'Check the base URL (--base-url, BACKUPCTL_BASE_URL or the profile\'s base_url): it must be the service\'s own address.';
  if (req.method === 'POST') {
    return new OutcomeUnknownError(`${what}, and the request may or may not have been carried out`, [hint, checkHint(req)]);
  }
  return new CliError(what, ExitCode.refused, [hint]);
}

export function transientError(display: string, reason: string, hint?: string): TransientError {
  const [method, path] = splitDisplay(display);
  return new TransientError(`${method} ${path}: ${reason}`, { method, path }, hint ? [hint] : []);
}

export function outcomeUnknownError(display: string, reason: string, req: RequestSpec): OutcomeUnknownError {
  const hint = checkHint(req);
  return new OutcomeUnknownError(`${display}: ${reason}; the request may or may not have reached the service`, hint ? [hint] : []);
}

/** POST paths and the command that shows whether each took effect (`$1` is the path's id). */
const CHECK_COMMANDS: Array<[RegExp, string]> = [
  [/^\/jobs\/([^/]+)\/backups\/start$/, 'backupctl jobs backup list $1 --sort -created_at'],
  [/^\/jobs\/([^/]+)\/(?:encryption-key|proxy)$/, 'backupctl jobs get $1'],
  [/^\/jobs$/, 'backupctl jobs list --sort -created_at'],
  [/^\/servers$/, 'backupctl servers list --sort -created_at'],
  [/^\/ssh-keys$/, 'backupctl ssh-keys list --sort -created_at'],
  [/^\/storage$/, 'backupctl storage list --sort -id'],
  [/^\/snapshots\/accounts(?:\/[^/]+\/sync)?$/, 'backupctl accounts list --sort -updated_at'],
  [/^\/snapshots\/resources\/([^/]+)\/\w+$/, 'backupctl resources get $1'],
  [/^\/(?:cloud_i|digitalocean)\/(droplets|volumes)\/([^/]+)\/snapshots\/manual$/, 'backupctl $1 snapshot list $2 --sort -started_at'],
  [/^\/(?:cloud_i|digitalocean)\/(droplets|volumes)\/([^/]+)\/\w+$/, 'backupctl $1 get $2'],
];

export function checkHint(req: RequestSpec): string {
  for (const [pattern, command] of CHECK_COMMANDS) {
    const m = pattern.exec(req.path);
    if (m) return `Check before retrying: ${command.replace(/\$(\d)/g, (_, i: string) => decodeURIComponent(m[Number(i)] ?? ''))}`;
  }
  return 'Check the current state with the matching list command before retrying.';
}

function splitDisplay(display: string): [string, string] {
  const i = display.indexOf(' ');
  return [display.slice(0, i), display.slice(i + 1)];
}

export function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
