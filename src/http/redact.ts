// What --debug and --dry-run must never show. The token is replaced in the
// Authorization header; body fields that carry secrets are masked by name.

const SECRET_FIELD = /^(secret|password|token|key|api_key|access_key|secret_key|private_key|encryption_key|mysql_password|credentials)$/i;

export function redactHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    const text = Array.isArray(v) ? v.join(', ') : String(v);
    if (/^(authorization|proxy-authorization)$/i.test(k)) out[k] = credentialsShown(text);
    else if (/^(cookie|set-cookie)$/i.test(k)) out[k] = '****';
    else out[k] = text;
  }
  return out;
}

/**
 * An Authorization value as a trace may show it: the scheme, never what follows, whatever it
 * holds (the pattern before this one ended at a line break and then showed the value as it
 * was). A value without a scheme (a bare token) is masked whole.
 */
function credentialsShown(text: string): string {
  const scheme = /^(\w+)\s/.exec(text);
  return scheme ? `${scheme[1]} ****` : '****';
}

/** What stands for an object or list nested deeper than redactBody reads: never unmasked. */
export const TOO_DEEP = '[nested too deep]';

/**
 * A deep copy with secret-named fields masked (whole objects under `credentials`). Objects
 * and lists past 20 levels are replaced by TOO_DEEP: they were copied as they were, and a
 * secret-named field down there was shown.
 */
export function redactBody(body: unknown, depth = 0): unknown {
  if (body === null || typeof body !== 'object') return body;
  if (depth > 20) return TOO_DEEP;
  if (Array.isArray(body)) return body.map((b) => redactBody(b, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (SECRET_FIELD.test(k) && v !== null && v !== undefined && v !== '') {
      if (typeof v !== 'object') out[k] = '****';
      else out[k] = /^credentials$/i.test(k) ? redactObjectValues(v) : redactBody(v, depth + 1);
    } else if (k === 'config' && v && typeof v === 'object') {
      // job config: password-like keys (mysql_password, ...) are secret.
      out[k] = Object.fromEntries(
        Object.entries(v as Record<string, unknown>).map(([ck, cv]) => [ck, /pass|secret|token/i.test(ck) ? '****' : redactBody(cv, depth + 2)]),
      );
    } else out[k] = redactBody(v, depth + 1);
  }
  return out;
}

function redactObjectValues(v: object): unknown {
  if (Array.isArray(v)) return v.map(() => '****');
  return Object.fromEntries(Object.keys(v).map((k) => [k, '****']));
}
