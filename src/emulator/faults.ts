// Fault injection: rules (from options, --fault or POST /__emulator/faults)
// and the per-request X-Emulator-Fault header decide which requests fail, and
// how. Rates draw from seeded generators so a run can be repeated exactly.
import { jsonAnswer, type Answer } from './reply.js';
import { FAULT_KINDS, type FaultKind, type FaultRule } from './types.js';
import { createRng, type Rng } from './util.js';
import { isObject } from './validate.js';

export interface ActiveFault {
  kind: FaultKind;
  retryAfter?: number | string;
}

/** Faults that answer in place of the service: no route runs. */
export type ImmediateFault = Exclude<FaultKind, 'truncated' | 'slow-body' | 'reset' | 'timeout'>;

export class FaultSpecError extends Error {}

function isFaultKind(value: unknown): value is FaultKind {
  return typeof value === 'string' && (FAULT_KINDS as readonly string[]).includes(value);
}

/** Checks a rule from JSON or options; a string is read as a --fault spec. */
export function checkFaultRule(value: unknown): FaultRule {
  if (typeof value === 'string') return parseFaultSpec(value);
  if (!isObject(value)) throw new FaultSpecError('a fault rule must be an object or a spec string');
  const { fault, method, path, count, rate, retryAfter } = value;
  if (!isFaultKind(fault)) throw new FaultSpecError(`unknown fault ${JSON.stringify(fault)}; one of ${FAULT_KINDS.join(', ')}`);
  if (method !== undefined && typeof method !== 'string') throw new FaultSpecError('method must be a string');
  if (path !== undefined && typeof path !== 'string') throw new FaultSpecError('path must be a string');
  if (count !== undefined && !(Number.isInteger(count) && (count as number) >= 0))
    throw new FaultSpecError('count must be a whole number');
  if (rate !== undefined && !(typeof rate === 'number' && rate >= 0 && rate <= 1))
    throw new FaultSpecError('rate must be a number between 0 and 1');
  if (retryAfter !== undefined && typeof retryAfter !== 'number' && typeof retryAfter !== 'string')
    throw new FaultSpecError('retryAfter must be a number of seconds or a date');
  const rule: FaultRule = { fault };
  if (method !== undefined) rule.method = method;
  if (path !== undefined) rule.path = path;
  if (count !== undefined) rule.count = count as number;
  if (rate !== undefined) rule.rate = rate;
  if (retryAfter !== undefined) rule.retryAfter = retryAfter;
  return rule;
}

/**
 * `500:count=2:path=/v1/servers`, `429:rate=0.5:retryAfter=3`, `timeout:method=POST`.
 * A part without `=` continues the previous value, so paths and dates may hold colons.
 */
export function parseFaultSpec(spec: string): FaultRule {
  const [kind, ...parts] = spec.split(':');
  const options: Array<[string, string]> = [];
  for (const part of parts) {
    const eq = part.indexOf('=');
    const last = options[options.length - 1];
    if (eq < 0 && last) last[1] += `:${part}`;
    else if (eq < 0) throw new FaultSpecError(`fault option "${part}" is not key=value`);
    else options.push([part.slice(0, eq), part.slice(eq + 1)]);
  }
  const rule: Record<string, unknown> = { fault: kind };
  for (const [key, text] of options) {
    switch (key) {
      case 'count':
      case 'rate':
        if (text.trim() === '' || Number.isNaN(Number(text))) throw new FaultSpecError(`${key} must be a number`);
        rule[key] = Number(text);
        break;
      case 'retryAfter':
      case 'retry-after':
        rule.retryAfter = /^\d+$/.test(text) ? Number(text) : text;
        break;
      case 'method':
      case 'path':
        rule[key] = text;
        break;
      default:
        throw new FaultSpecError(`unknown fault option "${key}"; use count, rate, method, path or retryAfter`);
    }
  }
  return checkFaultRule(rule);
}

/** `X-Emulator-Fault: 500;count=2;retryAfter=3`. */
function parseFaultHeader(value: string): { kind: FaultKind; count?: number; retryAfter?: number | string } {
  const [kind, ...options] = value.split(';').map((s) => s.trim());
  if (!isFaultKind(kind)) throw new FaultSpecError(`unknown fault ${JSON.stringify(kind)} in X-Emulator-Fault`);
  const out: { kind: FaultKind; count?: number; retryAfter?: number | string } = { kind };
  for (const option of options) {
    const [key, text = ''] = option.split('=', 2);
    if (key === 'count' && /^\d+$/.test(text)) out.count = Number(text);
    else if (key === 'retryAfter' || key === 'retry-after') out.retryAfter = /^\d+$/.test(text) ? Number(text) : text;
    else throw new FaultSpecError(`unknown option "${option}" in X-Emulator-Fault`);
  }
  return out;
}

const REGEX_CHARS = /[*+?()[\]{}|\\$]/;

function pathMatcher(path: string | undefined): (requestPath: string) => boolean {
  if (path === undefined) return (p) => !p.startsWith('/files/');
  if (path.startsWith('^') || REGEX_CHARS.test(path)) {
    const pattern = new RegExp(path);
    return (p) => pattern.test(p);
  }
  return (p) => p.startsWith(path);
}

interface ArmedRule {
  rule: FaultRule;
  matchesPath: (path: string) => boolean;
  remaining: number | undefined;
  rng: Rng;
}

export class FaultInjector {
  private armed: ArmedRule[] = [];
  /** How often each header fault with a count has fired, by method, path and header. */
  private readonly headerHits = new Map<string, number>();

  constructor(rules: readonly FaultRule[] = []) {
    this.setRules(rules);
  }

  setRules(rules: readonly FaultRule[]): void {
    this.armed = rules.map((rule, i) => ({
      rule,
      matchesPath: pathMatcher(rule.path),
      remaining: rule.count,
      rng: createRng(0xfa17 + i),
    }));
  }

  rules(): FaultRule[] {
    return this.armed.map((a) => a.rule);
  }

  /** The fault for this request, if any; throws FaultSpecError for a bad header. */
  pick(method: string, path: string, header: string | undefined): ActiveFault | undefined {
    if (header) {
      const wanted = parseFaultHeader(header);
      if (wanted.count !== undefined) {
        const key = `${method} ${path} ${header}`;
        const hits = this.headerHits.get(key) ?? 0;
        if (hits >= wanted.count) return undefined;
        this.headerHits.set(key, hits + 1);
      }
      return { kind: wanted.kind, retryAfter: wanted.retryAfter };
    }
    for (const armed of this.armed) {
      const { rule } = armed;
      if (rule.method && rule.method.toUpperCase() !== method) continue;
      if (!armed.matchesPath(path)) continue;
      if (armed.remaining === 0) continue;
      if (rule.rate !== undefined && armed.rng() >= rule.rate) continue;
      if (armed.remaining !== undefined) armed.remaining--;
      return { kind: rule.fault, retryAfter: rule.retryAfter };
    }
    return undefined;
  }
}

const BAD_GATEWAY_PAGE =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

function retryAfterSeconds(retryAfter: number | string): number {
  if (typeof retryAfter === 'number') return retryAfter;
  const at = Date.parse(retryAfter);
  return Number.isNaN(at) ? Number(retryAfter) || 0 : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** What a proxy or the rate limiter answers instead of the service. */
export function faultAnswer(fault: ActiveFault & { kind: ImmediateFault }): Answer {
  switch (fault.kind) {
    case '429': {
      const retryAfter = fault.retryAfter ?? 1;
      return jsonAnswer(
        429,
        { message: 'Too Many Attempts.' },
        {
          'Retry-After': String(retryAfter),
          'X-RateLimit-Limit': '60',
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + retryAfterSeconds(retryAfter)),
        },
      );
    }
    case '500':
      return jsonAnswer(500, { message: 'Server Error' });
    case '503':
      return jsonAnswer(
        503,
        { message: 'Service Unavailable' },
        fault.retryAfter === undefined ? {} : { 'Retry-After': String(fault.retryAfter) },
      );
    case '502-html':
      return { status: 502, headers: { 'Content-Type': 'text/html' }, body: Buffer.from(BAD_GATEWAY_PAGE) };
    case 'not-json':
      return { status: 200, headers: { 'Content-Type': 'text/html' }, body: Buffer.from('<html>ok</html>') };
    case 'expired':
      return {
        status: 403,
        headers: { 'Content-Type': 'application/xml' },
        body: Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>'),
      };
  }
}

export function isImmediateFault(fault: ActiveFault): fault is ActiveFault & { kind: ImmediateFault } {
  return fault.kind !== 'truncated' && fault.kind !== 'slow-body' && fault.kind !== 'reset' && fault.kind !== 'timeout';
}
