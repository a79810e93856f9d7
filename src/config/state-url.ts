// Where the state is kept (docs/assurance.md, "State backends"): the state folder by default, or a
// PostgreSQL database the team shares, named by $BACKUPCTL_STATE_URL or the profile's `state_url`
// (`postgres://user:password@host:5432/db`, or `postgres://user@/db?host=/run/postgresql` for a socket).
// A state URL is never printed with its password: redactStateUrl is what messages show.
import { ConfigError } from '../errors.js';

export const STATE_URL_ENV = 'BACKUPCTL_STATE_URL';

/** The password in a state URL (`scheme://user:password@...`), as written; undefined when it has none. */
function passwordOf(url: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/@?#:]*:([^@/?#]*)@/i.exec(url);
  return m?.[1] || undefined;
}

/** A state URL as messages show it: the password replaced by `***`. */
export function redactStateUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@?#:]*:)[^@/?#]*@/i, '$1***@').replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/** A text with the URL's password (raw and URL-decoded) replaced by `***`: a driver's message may quote it. */
export function withoutPassword(text: string, url: string): string {
  let out = text.split(url).join(redactStateUrl(url));
  const pw = passwordOf(url);
  if (pw) {
    let decoded = pw;
    try {
      decoded = decodeURIComponent(pw);
    } catch {
      /* kept as written */
    }
    for (const p of new Set([pw, decoded])) if (p.length >= 3) out = out.split(p).join('***');
  }
  return out;
}

/** A state URL checked: postgres:// or postgresql://; a ConfigError (exit 3) naming where it came from otherwise. */
export function checkStateUrl(raw: string, source: string): string {
  const value = raw.trim();
  if (!/^postgres(ql)?:\/\/\S*$/i.test(value)) {
    throw new ConfigError(
      `invalid state URL ${JSON.stringify(redactStateUrl(value))} (from ${source}): expected postgres://user:password@host/database (the default, without one, is the state folder)`,
    );
  }
  return value;
}
