// Turns a command's checked values into the request its endpoint takes.
import type { CommandSpec, ParamSpec } from '../contract/spec.js';
import type { QueryValue, RequestSpec } from '../contract/context.js';
import { apiName, effectiveParams } from './params.js';

export function buildRequest(spec: CommandSpec, values: Record<string, unknown>): RequestSpec | undefined {
  if (!spec.method || !spec.endpoint) return undefined;
  const params = effectiveParams(spec);
  const path = spec.endpoint.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = values[name];
    return encodeURIComponent(String(v ?? `{${name}}`));
  });
  const query: Record<string, QueryValue> = {};
  let body: Record<string, unknown> | undefined;
  // Whole objects first (a --file, a --credentials-file), so single flags override their fields.
  const bodyParams = params
    .filter((p) => p.in === 'body' && values[p.name] !== undefined)
    .sort((a, b) => rank(a, values) - rank(b, values));
  for (const p of params) {
    const v = values[p.name];
    if (p.in !== 'query' || v === undefined) continue;
    const key = apiName(p);
    const prev = query[key];
    if (v && typeof v === 'object' && prev && typeof prev === 'object') query[key] = { ...prev, ...(v as object) };
    else query[key] = v as QueryValue;
  }
  for (const p of bodyParams) {
    body ??= {};
    const v = toWire(p, values[p.name]);
    const key = apiName(p);
    if (key === '.') Object.assign(body, structuredClone(v as object));
    else setPath(body, key, v);
  }
  return { method: spec.method, path, query: Object.keys(query).length ? query : undefined, body };
}

function rank(p: ParamSpec, values: Record<string, unknown>): number {
  if (apiName(p) === '.') return 0;
  const v = values[p.name];
  return v && typeof v === 'object' && !Array.isArray(v) && p.type === 'json-file' ? 1 : 2;
}

function toWire(p: ParamSpec, v: unknown): unknown {
  if (v === null || v === undefined) return v;
  if (p.wire === 'string') return String(v);
  if (p.wire === 'integer') return Number(v);
  return v;
}

/** Sets a dotted path, merging into objects already there. */
function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let cur = target;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (!next || typeof next !== 'object' || Array.isArray(next)) cur[part] = {};
    cur = cur[part] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1]!;
  const prev = cur[last];
  if (value && typeof value === 'object' && !Array.isArray(value) && prev && typeof prev === 'object' && !Array.isArray(prev)) {
    cur[last] = { ...(prev as object), ...(value as object) };
  } else cur[last] = value;
}

/** Fills {param} placeholders of a message from the values. */
export function fillTemplate(template: string, values: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ''));
}
