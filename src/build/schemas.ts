// Build time only (src/scripts/build.mjs): the JSON Schema of every command's --json output,
// from the zod schemas its module parses answers with, and docs/openapi.json. The build writes
// the schemas to dist/startup/schemas.json.gz, which `backupctl schema` reads: the command reads
// the manifest, never the registry (issue 25 §18: registry -> schema -> registry was a circle).
import * as z from 'zod/mini';
import type { HttpMethod, Manifest, ManifestCommand, ParamSpec } from '../contract/spec.js';
import { moduleLoaders } from '../commands/registry.js';
import { UsageError } from '../errors.js';
import { apiName, effectiveParams, flagName } from '../cli/params.js';

const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
type JsonSchema = Record<string, unknown>;

function toJsonSchema(schema: unknown): JsonSchema {
  const out = z.toJSONSchema(schema as z.ZodMiniType, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  return out;
}

/** The JSON Schema of the command's --json output; a UsageError when it has none. */
export async function outputSchema(spec: ManifestCommand): Promise<JsonSchema> {
  const name = spec.path.join(' ');
  const none = () => new UsageError(`${name} has no JSON output schema`, [
    spec.output.kind === 'none'
      ? 'It prints nothing on stdout (a confirmation on stderr); -q prints the id acted on.'
      : 'Its --json output is not described by a schema.',
  ]);
  if (!spec.output.schema || spec.output.kind === 'none') throw none();
  const load = moduleLoaders[spec.module];
  const zodSchema = load ? (await load()).schemas?.[spec.output.schema] : undefined;
  if (!zodSchema) throw none();
  // A JSON Schema made elsewhere (the backups file of export, also \`schema file\`).
  if (typeof zodSchema === 'function') return (zodSchema as () => JsonSchema)();
  const record = toJsonSchema(zodSchema);
  const title = `backupctl ${name} --json`;
  if (spec.output.kind === 'list') return { $schema: JSON_SCHEMA_DIALECT, title, type: 'array', items: record };
  return { $schema: JSON_SCHEMA_DIALECT, title, ...record };
}

/** The schema of every command that has one, by its words ("jobs list"): dist/startup/schemas.json.gz. */
export async function outputSchemas(manifest: Manifest): Promise<Record<string, JsonSchema>> {
  const out: Record<string, JsonSchema> = {};
  for (const spec of manifest.commands) {
    if (!spec.output.schema || spec.output.kind === 'none') continue;
    try {
      out[spec.path.join(' ')] = await outputSchema(spec);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
    }
  }
  return out;
}

// docs/openapi.json

type Operation = Record<string, unknown> & { parameters: JsonSchema[]; 'x-backupctl-commands': string[] };

/** The wire schema of one parameter's value. */
function paramSchema(p: ParamSpec): JsonSchema {
  const base = ((): JsonSchema => {
    if (p.wire === 'string') return { type: 'string' };
    switch (p.type) {
      case 'integer':
        return { type: 'integer', ...(p.min !== undefined ? { minimum: p.min } : {}), ...(p.max !== undefined ? { maximum: p.max } : {}) };
      case 'number':
        return { type: 'number', ...(p.min !== undefined ? { minimum: p.min } : {}), ...(p.max !== undefined ? { maximum: p.max } : {}) };
      case 'boolean':
        return { type: 'boolean' };
      case 'enum':
        return { type: 'string', enum: [...(p.values ?? [])] };
      case 'sort':
        return { type: 'string', enum: (p.values ?? []).flatMap((f) => [f, `-${f}`]) };
      case 'datetime':
        return { type: 'string', format: 'date-time' };
      case 'uuid':
        return { type: 'string', format: 'uuid' };
      case 'tags': {
        const names = p.values ?? ['manual', 'hourly', 'daily', 'weekly', 'monthly'];
        return { type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'integer', enum: [0, 1] }])) };
      }
      case 'kv':
        return { type: 'object', additionalProperties: { type: ['string', 'number'] } };
      case 'storage':
        return {
          type: 'array',
          items: { type: 'object', properties: { storage_id: { type: 'integer' }, priority: { type: 'integer' } }, required: ['storage_id', 'priority'] },
        };
      case 'json-file':
        return { type: 'object' };
      default:
        return { type: 'string' };
    }
  })();
  const value = p.repeatable && p.type !== 'kv' && p.type !== 'storage' ? { type: 'array', items: base } : base;
  if (p.nullable) return { anyOf: [value, { type: 'null' }] };
  return value;
}

function describeParam(p: ParamSpec): string {
  return `${p.description} (backupctl: ${p.positional ? `<${flagName(p)}>` : `--${flagName(p)}`})`;
}

/** Merges two object schemas (flags `tags` and `tags#without` feed one field). */
function mergeObject(a: JsonSchema, b: JsonSchema): JsonSchema {
  if (a.type !== 'object' || b.type !== 'object') return a;
  const props = { ...(a.properties as object | undefined), ...(b.properties as object | undefined) };
  return { ...a, ...b, ...(Object.keys(props).length ? { properties: props } : {}) };
}

function parametersOf(spec: ManifestCommand): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const p of effectiveParams(spec)) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    const name = apiName(p);
    const schema = paramSchema(p);
    const existing = out.find((q) => q.name === name && q.in === p.in);
    if (existing) {
      existing.schema = mergeObject(existing.schema as JsonSchema, schema);
      continue;
    }
    out.push({
      name,
      in: p.in,
      ...(p.in === 'path' || p.required ? { required: true } : {}),
      description: describeParam(p),
      // tags[manual]=1: Laravel's bracket form.
      ...(schema.type === 'object' ? { style: 'deepObject', explode: true } : {}),
      schema,
    });
  }
  return out;
}

/** The JSON body the command's body flags make: dotted names nest, `.` is the whole body from a file. */
function requestBodyOf(spec: ManifestCommand): JsonSchema | undefined {
  const params = spec.params.filter((p) => p.in === 'body');
  if (!params.length && !spec.body) return undefined;
  const root: JsonSchema = { type: 'object', properties: { ...spec.body?.fields } };
  for (const p of params) {
    const name = apiName(p);
    if (name === '.') continue;
    const parts = name.split('.');
    let cur = root;
    for (const part of parts.slice(0, -1)) {
      const props = cur.properties as Record<string, JsonSchema>;
      props[part] ??= { type: 'object', properties: {} };
      const next = props[part]!;
      next.properties ??= {};
      cur = next;
    }
    const last = parts[parts.length - 1]!;
    const props = cur.properties as Record<string, JsonSchema>;
    const schema = { ...paramSchema(p), description: describeParam(p) };
    props[last] = props[last] ? mergeObject(props[last]!, schema) : schema;
    if (p.required) {
      const required = (cur.required as string[] | undefined) ?? [];
      if (!required.includes(last)) cur.required = [...required, last];
    }
  }
  if (spec.body?.required?.length) root.required = [...new Set([...((root.required as string[] | undefined) ?? []), ...spec.body.required])];
  return root;
}

const pascal = (s: string): string => s.replace(/(^|[-_\s.])(\w)/g, (_, __, c: string) => c.toUpperCase());

function operationId(spec: ManifestCommand): string {
  const words = spec.path.join('-');
  return words.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
}

/** The status of a success, as the interface gives it (see CommandSpec.successStatus). */
export function successStatus(spec: ManifestCommand): number {
  if (spec.successStatus) return spec.successStatus;
  if (spec.output.kind === 'none') return 204;
  if (spec.method === 'POST' && spec.output.kind === 'record') return 201;
  return 200;
}

/**
 * The error answers whose shapes are known (docs/faults.md): 401 and 429 from any
 * endpoint, 404 where the path names a record, 422 where the request carries input.
 */
const ERROR_RESPONSES: Record<string, JsonSchema> = {
  Unauthenticated: { description: 'Missing or invalid token (backupctl exits 4)', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorMessage' } } } },
  NotFound: { description: 'No such record or route (backupctl exits 5)', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorMessage' } } } },
  ValidationFailed: {
    description: "Laravel's validation answer: the first message, and every message by field (backupctl exits 1)",
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationErrors' } } },
  },
  TooManyRequests: {
    description: 'Rate limited; backupctl waits Retry-After (capped) and retries, then exits 6',
    headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', minimum: 0 } } },
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorMessage' } } },
  },
};
const ERROR_SCHEMAS: Record<string, JsonSchema> = {
  ErrorMessage: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  ValidationErrors: {
    type: 'object',
    properties: {
      message: { type: 'string' },
      errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    },
    required: ['message'],
  },
};

function responsesOf(spec: ManifestCommand, path: string, ref: JsonSchema | undefined, takesInput: boolean): Record<string, unknown> {
  const any: JsonSchema = ref ?? { type: 'object' };
  const json = (schema: JsonSchema, description: string) => ({ description, content: { 'application/json': { schema } } });
  const status = String(successStatus(spec));
  const success = ((): Record<string, unknown> => {
    switch (spec.output.kind) {
      case 'none':
        return { [status]: { description: 'No content' } };
      case 'list':
        return {
          [status]: json(
            { type: 'object', properties: { data: { type: 'array', items: any }, links: { type: 'object' }, meta: { type: 'object' } }, required: ['data'] },
            'One page of records',
          ),
        };
      case 'record':
        return { [status]: json({ type: 'object', properties: { data: any }, required: ['data'] }, 'The record') };
      case 'object':
        return { [status]: json(any, 'The answer, without a data wrapper') };
    }
  })();
  const error = (name: string) => ({ $ref: `#/components/responses/${name}` });
  return {
    ...success,
    '401': error('Unauthenticated'),
    ...(path.includes('{') ? { '404': error('NotFound') } : {}),
    ...(takesInput ? { '422': error('ValidationFailed') } : {}),
    '429': error('TooManyRequests'),
  };
}

/**
 * An OpenAPI 3.1 document of the interface as the command registry knows
 * it: every endpoint a command calls, its path and query parameters from the
 * flags, the request body from the body flags, and the answers from the zod
 * schemas, wrapped as the service sends them.
 */
export async function openapiDocument(manifest: Manifest): Promise<JsonSchema> {
  const registry = z.registry<{ id: string }>();
  const ids = new Map<unknown, string>();
  const refOf = async (spec: ManifestCommand): Promise<JsonSchema | undefined> => {
    const key = spec.output.wireSchema ?? spec.output.schema;
    if (!key) return undefined;
    const schema = (await moduleLoaders[spec.module]?.())?.schemas?.[key];
    if (!schema) return undefined;
    let id = ids.get(schema);
    if (!id) {
      const taken = new Set(ids.values());
      id = taken.has(pascal(key)) ? `${pascal(spec.module)}${pascal(key)}` : pascal(key);
      ids.set(schema, id);
      registry.add(schema as z.ZodMiniType, { id });
    }
    return { $ref: `#/components/schemas/${id}` };
  };

  const paths: Record<string, Record<string, Operation>> = {};
  const operation = (method: string, path: string): Operation | undefined => paths[path]?.[method.toLowerCase()];
  for (const spec of manifest.commands) {
    if (spec.hidden || !spec.method || !spec.endpoint) continue;
    const path = `/v1${spec.endpoint}`;
    const command = `backupctl ${spec.path.join(' ')}`;
    const existing = operation(spec.method, path);
    if (existing) {
      existing['x-backupctl-commands'].push(command);
      for (const p of parametersOf(spec)) if (!existing.parameters.some((q) => q.name === p.name && q.in === p.in)) existing.parameters.push(p);
      continue;
    }
    const body = requestBodyOf(spec);
    const parameters = parametersOf(spec);
    const op: Operation = {
      operationId: operationId(spec),
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: [spec.path[0]!],
      parameters,
      ...(body
        ? { requestBody: { required: Boolean((body.required as string[] | undefined)?.length), content: { 'application/json': { schema: body } } } }
        : {}),
      responses: responsesOf(spec, path, await refOf(spec), Boolean(body) || parameters.some((p) => p.in === 'query')),
      'x-backupctl-commands': [command],
    };
    (paths[path] ??= {})[spec.method.toLowerCase()] = op;
  }
  // Endpoints only custom handlers reach (a download, a lookup before acting): known by path alone.
  for (const spec of manifest.commands) {
    if (spec.hidden) continue;
    for (const call of spec.alsoCalls ?? []) {
      const m = /^(GET|POST|PUT|PATCH|DELETE)\s+(\S+)$/.exec(call.trim());
      if (!m) continue;
      const method = m[1] as HttpMethod;
      const path = m[2]!.startsWith('/v1') ? m[2]! : `/v1${m[2]}`;
      const command = `backupctl ${spec.path.join(' ')}`;
      const existing = operation(method, path);
      if (existing) {
        if (!existing['x-backupctl-commands'].includes(command)) existing['x-backupctl-commands'].push(command);
        continue;
      }
      // No command has it as its endpoint: it answers as the calling command does (droplets
      // snapshot delete --all), with that command's path parameters.
      if (spec.output.kind !== 'none') throw new Error(`${command}: ${call} is no command's endpoint; only a call answering 204 may be described from its caller`);
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((p) => p[1]);
      const parameters = parametersOf(spec).filter((p) => p.in === 'path' && names.includes(p.name as string));
      if (parameters.length !== names.length) throw new Error(`${command}: ${call} has path parameters the command does not declare`);
      (paths[path] ??= {})[method.toLowerCase()] = {
        operationId: `${method.toLowerCase()}${pascal(path.replace(/^\/v1/, '').replace(/[{}]/g, '').replace(/\//g, '-'))}`,
        summary: `Called by ${command}`,
        tags: [spec.path[0]!],
        parameters,
        responses: responsesOf(spec, path, undefined, false),
        'x-backupctl-commands': [command],
      };
    }
  }

  const generated = z.toJSONSchema(registry, {
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  const schemas: Record<string, JsonSchema> = {};
  for (const [id, s] of Object.entries(generated.schemas)) {
    const { $schema: _dialect, $id: _id, ...rest } = s;
    schemas[id] = rest;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Backup service interface (as used by backupctl)',
      version: manifest.version,
      description:
        'Generated from the backupctl command registry by `npm run docs`; do not edit by hand. ' +
        'Answers are described leniently, as the CLI reads them: fields may be null or missing and records may carry more fields.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'https://api.example.com', description: 'The service address (BACKUPCTL_BASE_URL)' } } }],
    security: [{ bearer: [] }],
    tags: Object.entries(manifest.groups)
      .filter(([k]) => !k.includes(' ') && Object.values(paths).some((ops) => Object.values(ops).some((o) => (o.tags as string[])[0] === k)))
      .map(([name, description]) => ({ name, description })),
    paths,
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, responses: ERROR_RESPONSES, schemas: { ...schemas, ...ERROR_SCHEMAS } },
  };
}
