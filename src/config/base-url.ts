import { ConfigError } from '../errors.js';

/** Loopback hosts may use plain http: the traffic never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host === '[::1]') return true;
  // WHATWG URL parsing has already normalised IPv4 forms (127.1, 0x7f.1) to dotted quads.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The URL as it may appear in a message: any user:password@ part is hidden. */
function shownUrl(text: string): string {
  return JSON.stringify(text.replace(/\/\/[^/?#]*@/, '//***@'));
}

/**
 * Checks a base URL and returns it normalised: no trailing slash, and no
 * trailing `/v1` (the client adds it). `source` names where the URL came from
 * (`--base-url`, `BACKUPCTL_BASE_URL`, `profile "work" in /path/config.json`)
 * so the user knows what to fix. Every failure is a ConfigError (exit 3).
 */
export function validateBaseUrl(text: string, source: string): string {
  const bad = (why: string) => new ConfigError(`invalid base URL ${shownUrl(text)} from ${source}: ${why}`);
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw bad('not a URL (expected e.g. https://api.example.com)');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw bad('must start with https://');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw bad('must use https:// (plain http is allowed only for localhost, 127.0.0.0/8 and ::1)');
  }
  // The token must never travel in a URL, and a query or fragment would be mangled by path joining.
  if (url.username || url.password) throw bad('must not contain a user name or password');
  if (url.search || url.hash) throw bad('must not contain a query string or fragment');
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/i, '').replace(/\/+$/, '');
  return url.origin + path;
}
