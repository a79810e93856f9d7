import type { QueryValue } from '../contract/context.js';

/**
 * Encodes a query string. Objects become bracket keys as Laravel reads them
 * (`tags[manual]=1`); brackets are left readable; undefined/null are dropped.
 */
export function encodeQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'object') {
      for (const [sub, v] of Object.entries(value)) parts.push(`${enc(key)}[${enc(sub)}]=${enc(scalar(v))}`);
    } else {
      parts.push(`${enc(key)}=${enc(scalar(value))}`);
    }
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

function scalar(v: string | number | boolean): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  return String(v);
}

function enc(s: string): string {
  return encodeURIComponent(s).replace(/%5B/gi, '[').replace(/%5D/gi, ']').replace(/%3A/gi, ':');
}
