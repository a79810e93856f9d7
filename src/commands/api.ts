// `backupctl api <path>`: any request to the service, for what the commands
// do not cover, in the manner of `gh api`. The answer is printed as JSON.
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Handler, QueryValue, RequestSpec } from '../contract/context.js';
import type { HttpMethod, ModuleSpec } from '../contract/spec.js';
import { UsageError } from '../errors.js';

const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export const module: ModuleSpec = {
  name: 'api',
  commands: [
    {
      path: ['api'],
      summary: 'Send any request to the service and print the answer as JSON',
      description:
        'The path is relative to /v1 (a leading /v1 is accepted). The method is GET, or POST when fields or ' +
        '--input are given (GET again with --paginate); -X chooses another. For GET the fields go in the query string, otherwise in a ' +
        'JSON body; with --input the file is the body and the fields go in the query string. ' +
        '`key[sub]=value` nests (tags[manual]=1), `key[]=value` appends to an array. ' +
        '-F turns true, false, null and numbers into JSON values and reads @file (@- for standard input). ' +
        'The answer is printed as JSON, pretty on a terminal and compact in a pipe; errors go to stderr ' +
        'with the usual exit codes.',
      examples: [
        'backupctl api /servers',
        'backupctl api /snapshots -X GET -f tags[manual]=1 -f sort=-started_at',
        'backupctl api /ssh-keys -f name=deploy',
        'backupctl api -X PATCH /jobs/<job>/schedules/<schedule> -f timezone=Europe/Berlin -F run_offset=2',
        'backupctl api -X POST /jobs --input job.json',
        'backupctl api /jobs --paginate -o ndjson',
      ],
      params: [
        {
          name: 'path',
          in: 'local',
          type: 'string',
          positional: true,
          required: true,
          description: 'Path under /v1, e.g. /servers or /v1/jobs/<id>; a ?query is kept',
        },
        {
          name: 'method',
          short: 'X',
          in: 'local',
          type: 'enum',
          values: METHODS,
          placeholder: 'method',
          description: 'HTTP method (default GET, or POST when fields or --input are given)',
        },
        {
          name: 'raw_field',
          flag: 'raw-field',
          short: 'f',
          in: 'local',
          type: 'string',
          repeatable: true,
          placeholder: 'key=value',
          description: 'Add a string field; key[sub]=value nests, key[]=value appends',
        },
        {
          name: 'field',
          short: 'F',
          in: 'local',
          type: 'string',
          repeatable: true,
          placeholder: 'key=value',
          description: 'Add a typed field: true, false, null and numbers are sent as such; @file reads a file, @- stdin',
        },
        {
          name: 'input',
          in: 'local',
          type: 'text-file',
          description: 'Send this file (or - for standard input) as the JSON body; fields then go in the query string',
        },
        {
          name: 'paginate',
          in: 'local',
          type: 'boolean',
          description: 'Follow every page of a list and print one JSON array of the records (ndjson with -o ndjson)',
        },
      ],
      output: { kind: 'object' },
      handler: 'api',
    },
  ],
};

/** A value a field can hold once typed and nested. */
type FieldValue = string | number | boolean | null | FieldValue[] | { [key: string]: FieldValue };
type FieldObject = { [key: string]: FieldValue };

interface Field {
  /** `tags[manual]` -> ['tags', 'manual']; '' stands for `[]` (append). */
  segments: string[];
  /** undefined for a bare `key[]`: an empty array. */
  value: FieldValue | undefined;
  /** As written, for messages. */
  raw: string;
}

/** What -F turns into JSON values; anything else stays a string. Leading zeros stay strings (zip codes, ids). */
function typedValue(text: string): FieldValue {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (/^-?(0|[1-9]\d*)$/.test(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : text;
  }
  if (/^-?(0|[1-9]\d*)\.\d+$/.test(text)) return Number(text);
  return text;
}

function parseKey(key: string, raw: string, flag: string): string[] {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) throw new UsageError(`invalid field ${JSON.stringify(raw)} for ${flag}: the key must be name, name[sub] or name[]`);
  const rest = [...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((s) => s[1]!);
  return [m[1]!, ...rest];
}

async function readAll(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
  return Buffer.concat(chunks).toString('utf8');
}

async function parseFields(
  raw: readonly string[],
  typed: readonly string[],
  stdin: Readable,
): Promise<Field[]> {
  const out: Field[] = [];
  const one = async (item: string, isTyped: boolean): Promise<Field> => {
    const flag = isTyped ? '-F/--field' : '-f/--raw-field';
    const eq = item.indexOf('=');
    if (eq < 0) {
      // gh's convention: a bare `key[]` is an empty array.
      if (item.endsWith('[]')) return { segments: parseKey(item, item, flag), value: undefined, raw: item };
      throw new UsageError(`invalid field ${JSON.stringify(item)} for ${flag}: must be key=value`);
    }
    const segments = parseKey(item.slice(0, eq), item, flag);
    const text = item.slice(eq + 1);
    if (!isTyped) return { segments, value: text, raw: item };
    if (text.startsWith('@')) {
      const source = text.slice(1);
      if (source === '-') {
        // --input - or an earlier @- has read it to the end already.
        if (stdin.readableEnded) throw new UsageError(`standard input is read once: ${JSON.stringify(item)} cannot read it again`);
        return { segments, value: await readAll(stdin), raw: item };
      }
      try {
        return { segments, value: await readFile(source, 'utf8'), raw: item };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        throw new UsageError(`cannot read ${JSON.stringify(source)} for ${JSON.stringify(item)}: ${code === 'ENOENT' ? 'no such file' : code ?? 'error'}`);
      }
    }
    return { segments, value: typedValue(text), raw: item };
  };
  for (const item of raw) out.push(await one(item, false));
  for (const item of typed) out.push(await one(item, true));
  return out;
}

function isObject(v: unknown): v is FieldObject {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/**
 * An object without a prototype: a key such as `__proto__` or `constructor` from
 * `-f '__proto__[x]=1'` is then a field like any other, sent as written, and cannot
 * reach Object.prototype (JSON.stringify writes these objects like any other).
 */
function bare(): FieldObject {
  return Object.create(null) as FieldObject;
}

/** Places one field into the body being built, nesting by its segments. */
function place(target: FieldObject | FieldValue[], segments: readonly string[], value: FieldValue | undefined, raw: string): void {
  const [seg, ...rest] = segments as [string, ...string[]];
  const clash = () => new UsageError(`field ${JSON.stringify(raw)} clashes with an earlier field of another shape`);
  if (seg === '') {
    if (!Array.isArray(target)) throw clash();
    if (!rest.length) {
      if (value !== undefined) target.push(value);
      return;
    }
    // `items[][name]=a -F items[][size]=1`: fill the last object until a key repeats, then start a new one.
    const last = target[target.length - 1];
    const element = isObject(last) && !has(last, rest) ? last : bare();
    if (element !== last) target.push(element);
    place(element, rest, value, raw);
    return;
  }
  if (Array.isArray(target)) throw clash();
  if (!rest.length) {
    target[seg] = value === undefined ? [] : value;
    return;
  }
  const wantArray = rest[0] === '';
  let next = target[seg];
  if (!Object.hasOwn(target, seg)) {
    next = wantArray ? [] : bare();
    target[seg] = next;
  } else if (next === null || typeof next !== 'object' || Array.isArray(next) !== wantArray) {
    throw clash();
  }
  place(next, rest, value, raw);
}

/** Whether the object already holds a value at these segments (then a `key[][...]` field starts a new element). */
function has(obj: FieldObject, segments: readonly string[]): boolean {
  let cur: FieldValue | undefined = obj;
  for (const s of segments) {
    // Appending to an array never repeats a key.
    if (s === '' || !isObject(cur) || !(s in cur)) return false;
    cur = cur[s];
  }
  return true;
}

function nest(fields: readonly Field[]): FieldObject {
  const body = bare();
  for (const f of fields) place(body, f.segments, f.value, f.raw);
  return body;
}

/** Bracket keys as Laravel reads them: tags[manual]=1, ids[0]=a. */
function flatten(value: FieldValue, prefix: string, out: Record<string, QueryValue>): void {
  if (Array.isArray(value)) value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out));
  else if (isObject(value)) for (const [k, v] of Object.entries(value)) flatten(v, `${prefix}[${k}]`, out);
  else out[prefix] = value === null ? '' : String(value);
}

function toQuery(fields: readonly Field[]): Record<string, QueryValue> {
  const out: Record<string, QueryValue> = {};
  for (const [k, v] of Object.entries(nest(fields))) {
    if (isObject(v) || Array.isArray(v)) flatten(v, k, out);
    else out[k] = v === null ? '' : String(v);
  }
  return out;
}

/**
 * `/servers`, `servers`, `/v1/servers` and `v1/servers?page=2` all name
 * /v1/servers. A full URL is refused: the token goes to the configured
 * service only.
 */
export function apiPath(raw: string): { path: string; query: Record<string, QueryValue> } {
  const text = raw.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) || text.startsWith('//')) {
    throw new UsageError(`the path must be relative to /v1, not a URL: ${raw}`, [
      'The request goes to the configured base URL (see backupctl auth status), e.g. backupctl api /servers',
    ]);
  }
  const hash = text.indexOf('#');
  const withoutHash = hash < 0 ? text : text.slice(0, hash);
  const q = withoutHash.indexOf('?');
  let path = `/${(q < 0 ? withoutHash : withoutHash.slice(0, q)).replace(/^\/+/, '')}`;
  if (path === '/v1' || path.startsWith('/v1/')) path = path.slice(3) || '/';
  const query: Record<string, QueryValue> = {};
  if (q >= 0) for (const [k, v] of new URLSearchParams(withoutHash.slice(q + 1))) query[k] = v;
  return { path, query };
}

export interface ApiOptions {
  path: string;
  method?: HttpMethod;
  rawFields: readonly string[];
  typedFields: readonly string[];
  /** The text of --input, already read. */
  input?: string;
  paginate: boolean;
}

/** The request `backupctl api` sends for these options. */
export async function apiRequest(o: ApiOptions, stdin: Readable): Promise<RequestSpec> {
  const fields = await parseFields(o.rawFields, o.typedFields, stdin);
  // --paginate walks a list, which is read with GET: fields then filter it rather than make a POST.
  const method: HttpMethod = o.method ?? (o.paginate ? 'GET' : fields.length || o.input !== undefined ? 'POST' : 'GET');
  if (o.paginate && method !== 'GET') {
    throw new UsageError(`--paginate follows the pages of a list, which is read with GET, not ${method}`);
  }
  const { path, query } = apiPath(o.path);
  let body: unknown;
  if (o.input !== undefined) {
    try {
      body = JSON.parse(o.input);
    } catch (err) {
      throw new UsageError(`--input is not valid JSON (${(err as Error).message})`);
    }
    Object.assign(query, toQuery(fields));
  } else if (method === 'GET') {
    Object.assign(query, toQuery(fields));
  } else if (fields.length) {
    body = nest(fields);
  }
  return { method, path, query: Object.keys(query).length ? query : undefined, body };
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)]);

const api: Handler = async (input, ctx) => {
  const v = input.values;
  const asked = await apiRequest(
    {
      path: String(v.path),
      method: v.method as HttpMethod | undefined,
      rawFields: strings(v.raw_field),
      typedFields: strings(v.field),
      input: v.input as string | undefined,
      paginate: v.paginate === true,
    },
    ctx.io.stdin,
  );
  // The path and fields as the user wrote them: no provider names spelt for the profile (issue 30 §1).
  const req = { ...asked, asWritten: true };
  if (ctx.globals.dryRun) return (await import('../cli/dry-run.js')).printDryRun(ctx, req);
  const client = await ctx.client();
  if (v.paginate === true) {
    const pages = client.pages(req, { all: true, signal: ctx.signal });
    async function* records(): AsyncIterable<unknown[]> {
      for await (const page of pages) yield page.records;
    }
    // Always JSON: one array, or one record per line with -o ndjson; never a table of unknown records.
    const { render } = await import('../output/index.js');
    const format = ctx.output.format === 'ndjson' ? 'ndjson' : 'json';
    await render({ kind: 'list', pages: records(), columns: [], idField: 'id' }, { ...ctx.output, format, quiet: false }, ctx.io);
    return { kind: 'empty' };
  }
  const spinner = ctx.spinner(`${req.method} /v1${req.path}`);
  const res = await client.request(req, { signal: ctx.signal }).finally(() => spinner.stop());
  if (res.body === undefined) return { kind: 'empty' };
  // A body that is not JSON (an HTML page behind a proxy) is printed as it came.
  if (typeof res.body === 'string') return { kind: 'text', text: res.body };
  const pretty = ctx.output.pretty && ctx.output.format !== 'ndjson';
  return { kind: 'text', text: JSON.stringify(res.body, null, pretty ? 2 : undefined), value: res.body };
};

export const handlers: Record<string, Handler> = { api };
