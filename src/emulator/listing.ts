// List endpoints: query validation, filters, sorting and Laravel's length-aware
// pagination envelope ({data, links, meta}).
import type { RouteContext } from './routing.js';
import type { Reply } from './reply.js';
import { validationError } from './reply.js';
import { TAG_NAMES, type Table, type Tags } from './store.js';
import { Validation, parseIsoDate } from './validate.js';

export const DEFAULT_PAGE_SIZE = 15;
const MIN_PAGE_SIZE = 15;
const MAX_PAGE_SIZE = 100;

export type Filter<T> =
  /** Case-insensitive substring ("similar name"). */
  | { param: string; kind: 'similar'; get: (row: T) => string | null }
  /** Case-insensitive equality. */
  | { param: string; kind: 'exact'; get: (row: T) => string | null }
  /** One of `values` (else 422); `matches` decides whether a row has it. */
  | { param: string; kind: 'enum'; values: readonly string[]; matches: (row: T, value: string) => boolean }
  /** An ISO datetime; rows whose time is at or after it. */
  | { param: string; kind: 'since'; get: (row: T) => number | null }
  /** `tags[name]=1|0|true|false`: the tag must be set, or unset. */
  | { param: 'tags'; kind: 'tags'; get: (row: T) => Tags };

export type SortKey = string | number | null;

export interface ListDef<T> {
  filters: readonly Filter<T>[];
  /** The sort fields the endpoint documents, and the value each orders by. */
  sort: Readonly<Record<string, (row: T) => SortKey>>;
}

/** Rows of a table that belong to one parent (a job's backups), cached under `key`. */
export interface Scope<T> {
  key: string;
  test: (row: T) => boolean;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

function compareKeys(a: SortKey, b: SortKey): number {
  // MySQL puts NULL first in ascending order.
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

interface ParsedTagFilter {
  name: keyof Tags;
  wanted: boolean;
}

function parseTagFilters(c: RouteContext, v: Validation): ParsedTagFilter[] {
  const out: ParsedTagFilter[] = [];
  if (c.query.tags !== undefined) {
    v.fail('tags', 'The tags field must be an array.');
    return out;
  }
  for (const [key, raw] of Object.entries(c.query)) {
    const m = /^tags\[([^\]]*)\]$/.exec(key);
    if (!m) continue;
    const name = m[1]!;
    const field = `tags.${name}`;
    if (!(TAG_NAMES as readonly string[]).includes(name)) {
      v.fail('tags', `The tags field must only contain the keys: ${TAG_NAMES.join(', ')}.`);
      continue;
    }
    const value = single(raw)?.toLowerCase();
    if (value === '1' || value === 'true') out.push({ name: name as keyof Tags, wanted: true });
    else if (value === '0' || value === 'false') out.push({ name: name as keyof Tags, wanted: false });
    else v.fail(field, `The ${field} field must be true or false.`);
  }
  return out;
}

/**
 * Answers a list request: checks page, page_size, sort and the endpoint's
 * filters (unknown query parameters are ignored, as Laravel does), then
 * serves one page of the filtered and sorted rows.
 */
export function listPage<T extends { id: number | string }>(
  c: RouteContext,
  table: Table<T>,
  def: ListDef<T>,
  render: (row: T) => unknown,
  scope?: Scope<T>,
): Reply {
  const v = new Validation(c.query);
  const perPage = v.integer('page_size', { min: MIN_PAGE_SIZE, max: MAX_PAGE_SIZE }) ?? DEFAULT_PAGE_SIZE;
  const pageText = single(c.query.page);
  // Laravel reads a page that is not a positive integer as page 1.
  const page = pageText && /^\d+$/.test(pageText) && Number(pageText) >= 1 ? Number(pageText) : 1;

  const sortText = single(c.query.sort);
  let sortField: string | undefined;
  let descending = false;
  if (sortText !== undefined && sortText !== '') {
    descending = sortText.startsWith('-');
    sortField = descending ? sortText.slice(1) : sortText;
    if (!Object.hasOwn(def.sort, sortField)) v.fail('sort', 'The selected sort is invalid.');
  }

  const tests: Array<(row: T) => boolean> = [];
  const keyParts: string[] = [];
  for (const filter of def.filters) {
    if (filter.kind === 'tags') {
      const tags = parseTagFilters(c, v);
      for (const t of tags) tests.push((row) => filter.get(row)[t.name] === t.wanted);
      if (tags.length) keyParts.push(`tags=${tags.map((t) => `${t.name}:${t.wanted}`).sort().join(',')}`);
      continue;
    }
    const raw = single(c.query[filter.param]);
    if (raw === undefined || raw === '') continue;
    keyParts.push(`${filter.param}=${raw}`);
    switch (filter.kind) {
      case 'similar': {
        const needle = raw.toLowerCase();
        tests.push((row) => (filter.get(row) ?? '').toLowerCase().includes(needle));
        break;
      }
      case 'exact': {
        const wanted = raw.toLowerCase();
        tests.push((row) => (filter.get(row) ?? '').toLowerCase() === wanted);
        break;
      }
      case 'enum':
        if (!filter.values.includes(raw)) v.fail(filter.param, `The selected ${filter.param.replace(/_/g, ' ')} is invalid.`);
        else tests.push((row) => filter.matches(row, raw));
        break;
      case 'since': {
        const since = parseIsoDate(raw);
        if (Number.isNaN(since)) v.fail(filter.param, `The ${filter.param.replace(/_/g, ' ')} field must be a valid date.`);
        else
          tests.push((row) => {
            const at = filter.get(row);
            return at !== null && at >= since;
          });
        break;
      }
    }
  }
  if (Object.keys(v.errors).length) throw validationError(v.errors);

  const viewKey = [scope?.key ?? '*', sortText ?? '', ...keyParts].join('\u0000');
  const rows = table.view(viewKey, (all) => {
    let selected: readonly T[] = all;
    if (scope) selected = selected.filter(scope.test);
    if (tests.length) selected = selected.filter((row) => tests.every((test) => test(row)));
    if (sortField !== undefined) {
      const get = def.sort[sortField]!;
      const keyed = selected.map((row) => ({ row, key: get(row) }));
      keyed.sort((a, b) => compareKeys(a.key, b.key));
      const sorted = keyed.map((k) => k.row);
      // Reversing the stable ascending order puts NULLs last, as MySQL does, and the
      // newest of two backups started in the same second first.
      if (descending) sorted.reverse();
      selected = sorted;
    }
    return selected;
  });

  const start = (page - 1) * perPage;
  const pageRows = rows.slice(start, start + perPage);
  const data = pageRows.map((row) => c.rt.store.listJson(row, render)).join(',');
  const linksAndMeta = JSON.stringify(paginationLinks(c.rt.baseUrl + c.path, page, perPage, rows.length, pageRows.length));
  return { status: 200, json: `{"data":[${data}],${linksAndMeta.slice(1)}` };
}

/**
 * `links` and `meta` of Laravel's `LengthAwarePaginator::toArray()` for a page holding
 * `count` records. Page URLs carry only `page`, like paginate() without withQueryString().
 */
export function paginationLinks(pathUrl: string, page: number, perPage: number, total: number, count: number) {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const pageUrl = (n: number) => `${pathUrl}?page=${n}`;
  const prev = page > 1 ? pageUrl(page - 1) : null;
  const next = page < lastPage ? pageUrl(page + 1) : null;
  const from = count ? (page - 1) * perPage + 1 : null;
  return {
    links: { first: pageUrl(1), last: pageUrl(lastPage), prev, next },
    meta: {
      current_page: page,
      from,
      last_page: lastPage,
      links: [
        { url: prev, label: '&laquo; Previous', active: false },
        ...pageWindow(page, lastPage).map((n) =>
          n === null
            ? { url: null, label: '...', active: false }
            : { url: pageUrl(n), label: String(n), active: n === page },
        ),
        { url: next, label: 'Next &raquo;', active: false },
      ],
      path: pathUrl,
      per_page: perPage,
      to: from === null ? null : from + count - 1,
      total,
    },
  };
}

/** Laravel's UrlWindow with onEachSide = 3: page numbers, `null` for the "..." gaps. */
export function pageWindow(current: number, last: number): Array<number | null> {
  const onEachSide = 3;
  const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);
  if (last < onEachSide * 2 + 8) return range(1, last);
  const window = onEachSide + 4;
  if (current <= window) return [...range(1, window + onEachSide), null, last - 1, last];
  if (current > last - window) return [1, 2, null, ...range(last - (window + (onEachSide - 1)), last)];
  return [1, 2, null, ...range(current - onEachSide, current + onEachSide), null, last - 1, last];
}
