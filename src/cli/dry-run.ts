// --dry-run: the request as a curl command line, sent nowhere. The token is
// written as $BACKUPCTL_TOKEN and secret body fields are masked, so the line
// is safe to paste into a ticket.
import { spellRequest } from '../util/providers.js';
import type { Context, RequestSpec, Result } from '../contract/context.js';
import { encodeQuery } from '../http/query.js';
import { redactBody } from '../http/redact.js';

export function curlFor(req: RequestSpec, baseUrl: string | undefined): string {
  const base = baseUrl ? baseUrl.replace(/\/+$/, '') : '$BACKUPCTL_BASE_URL';
  const rest = `/v1${req.path}${encodeQuery(req.query)}`;
  // Without a base URL the variable is expanded by the shell and the rest is quoted as it is.
  const parts = [`curl -X ${req.method} ${baseUrl ? shq(base + rest) : `"${base}"${shq(rest)}`}`];
  // curl reads [] and {} in a URL as its own globbing ranges (tags[daily]=1 is "bad range in URL").
  if (/[[\]{}]/.test(base + rest)) parts.push('--globoff');
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

/**
 * --dry-run from the runner or a handler that builds its own request: each
 * request as curl on stdout (base URL from the settings, or
 * $BACKUPCTL_BASE_URL when there is none), and nothing sent.
 */
export async function printDryRun(ctx: Context, ...requests: RequestSpec[]): Promise<Result> {
  const settings = await ctx.settings().then((s) => s, () => undefined);
  // Spelt as the profile's service takes it (provider names, the droplet/volume path: issue 30 §1).
  const mode = settings?.providerNames ?? 'neutral';
  ctx.io.stdout.write(requests.map((r) => `${curlFor(spellRequest(r, mode), settings?.baseUrl)}\n`).join(''));
  return { kind: 'empty' };
}
