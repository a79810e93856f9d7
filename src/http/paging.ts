import type { QueryValue } from '../contract/context.js';

const DEFAULT_PAGE_SIZE = 15;

/**
 * The query for the page after `raw`, or undefined at the end. As api-facts.md
 * says: follow links.next while it is a URL, else meta.current_page/last_page,
 * else stop on a short page. A links.next may drop the filters and page_size
 * of the first request, so the current query is kept and only the page moves.
 */
export function nextPageQuery(
  query: Record<string, QueryValue>,
  raw: unknown,
  received: number,
): Record<string, QueryValue> | undefined {
  const body = (raw ?? {}) as { links?: { next?: unknown }; meta?: { current_page?: unknown; last_page?: unknown } };
  const current = toInt(query.page) ?? toInt(body.meta?.current_page) ?? 1;
  const next = body.links?.next;
  if (typeof next === 'string' && next) {
    let page: number | undefined;
    try {
      page = toInt(new URL(next, 'http://x').searchParams.get('page'));
    } catch {
      page = undefined;
    }
    // A next link that does not move forward would loop forever.
    if (page !== undefined && page > current) return { ...query, page };
    if (page === undefined) return { ...query, page: current + 1 };
    return undefined;
  }
  if (next === null && body.links && 'next' in body.links) return undefined;
  const last = toInt(body.meta?.last_page);
  if (last !== undefined) return current < last ? { ...query, page: current + 1 } : undefined;
  const asked = toInt(query.page_size) ?? DEFAULT_PAGE_SIZE;
  // A page of exactly the default size when more were asked may come from a service that ignores
  // page_size: the next page is asked for, so the list is never cut silently (an empty page ends it,
  // a repeated one is caught by samePage).
  const full = received >= asked || (received === DEFAULT_PAGE_SIZE && asked > DEFAULT_PAGE_SIZE);
  return full && received > 0 ? { ...query, page: current + 1 } : undefined;
}

/** The last page number when the answer says it (for fetching the rest concurrently). */
export function lastPage(raw: unknown): number | undefined {
  return toInt((raw as { meta?: { last_page?: unknown } } | undefined)?.meta?.last_page);
}

// Safe integers only: 1e308 or "9007199254740993" plus one is itself, and a
// page number that does not move would walk the same page for ever.
/** A whole page number from a number or a digit string. */
export function toInt(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
  return undefined;
}

/**
 * Whether two pages hold the same records, told by their ids in order (the whole records where
 * they have none). Two consecutive pages that do mean the service ignored `page`. Compared id by
 * id, so the first that differs ends it: a walk pays next to nothing per page (serialising every
 * id of every page twice cost more).
 */
export function samePage(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = idOrRecord(a[i]);
    const y = idOrRecord(b[i]);
    if (x === y) continue;
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object' || JSON.stringify(x) !== JSON.stringify(y)) return false;
  }
  return true;
}

function idOrRecord(r: unknown): unknown {
  return r && typeof r === 'object' && 'id' in r ? (r as { id: unknown }).id : r;
}

/** Why a walk cannot go on: page `n` holds the same records as the page before it. */
export function repeatedPageReason(n: number, hasPageNumbers: boolean): string {
  return (
    `page ${n} repeats the records of page ${n - 1}: the service ignores the page parameter${hasPageNumbers ? '' : ' and gives no page numbers (links and meta are empty)'}, ` +
    'so reading on would loop; stopped'
  );
}
