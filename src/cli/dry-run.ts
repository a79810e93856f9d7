// --dry-run: the request as a curl command line, sent nowhere. The token is
// written as $BACKUPCTL_TOKEN and secret body fields are masked, so the line
// is safe to paste into a ticket.
import type { RequestSpec } from './types.js';
import { encodeQuery } from '../http/query.js';
import { redactBody } from '../http/redact.js';

export function curlFor(req: RequestSpec, baseUrl: string | undefined): string {
  const base = baseUrl ? baseUrl.replace(/\/+$/, '') : '$BACKUPCTL_BASE_URL';
  const url = `${base}/v1${req.path}${encodeQuery(req.query)}`;
  const parts = [`curl -X ${req.method} ${baseUrl ? shq(url) : `"${url}"`}`];
  if (!req.noAuth) parts.push(`-H "Authorization: Bearer $BACKUPCTL_TOKEN"`);
  parts.push(`-H 'Accept: application/json'`);
  if (req.body !== undefined) {
    parts.push(`-H 'Content-Type: application/json'`);
    parts.push(`--data ${shq(JSON.stringify(redactBody(req.body)))}`);
  }
  return parts.join(' \\\n  ');
}

function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
