// `backupctl schema <command>` and docs/openapi.json: what a script author
// reads to know the shape of --json output and of the interface.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, runCli } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { openapiDocument } from '../../src/build/schemas.js';
import type { Manifest } from '../../src/contract/spec.js';

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'manifest.json'), 'utf8')) as Manifest;

/** Whether a value fits a JSON Schema's `type`/`anyOf` (one level; nested objects by type only). */
function matches(schema: { type?: string | string[]; anyOf?: unknown[]; $ref?: string }, value: unknown): boolean {
  if (schema.anyOf) return schema.anyOf.some((s) => matches(s as typeof schema, value));
  if (schema.$ref || schema.type === undefined) return true;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.some((t) =>
    t === 'null' ? value === null
    : t === 'integer' ? Number.isInteger(value)
    : t === 'array' ? Array.isArray(value)
    : t === 'object' ? typeof value === 'object' && value !== null && !Array.isArray(value)
    : typeof value === t,
  );
}

describe('backupctl schema', () => {
  it('prints the JSON Schema of servers list: an array of servers whose id is an integer', async () => {
    const r = await runCli(['schema', 'servers', 'list']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const schema = JSON.parse(r.stdout);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.type).toBe('array');
    expect(schema.items.type).toBe('object');
    expect(schema.items.required).toContain('id');
    expect(schema.items.properties.id.type).toBe('integer');
    // Lenient like the CLI: unknown fields are allowed, nullable fields say so.
    expect(schema.items.additionalProperties).not.toBe(false);
    expect(schema.items.properties.name.type).toEqual(['string', 'null']);
  });

  it('prints a record command\'s schema as an object, the same as the list\'s items', async () => {
    const list = JSON.parse((await runCli(['schema', 'servers', 'list'])).stdout);
    const add = await runCli(['schema', 'servers', 'add']);
    expect(add.code).toBe(0);
    const schema = JSON.parse(add.stdout);
    expect(schema.type).toBe('object');
    expect(schema.properties).toEqual(list.items.properties);
  });

  it('describes what servers list --json really prints', async () => {
    const emu = await startTestEmulator();
    try {
      const schema = JSON.parse((await runCli(['schema', 'servers', 'list'])).stdout);
      const r = await runCli(['servers', 'list', '--all', '--json'], { env: { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token } });
      const records = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
      expect(records.length).toBeGreaterThan(0);
      for (const record of records) {
        for (const field of schema.items.required as string[]) expect(record).toHaveProperty(field);
        for (const [field, value] of Object.entries(record)) {
          const prop = schema.items.properties[field];
          if (prop) expect(matches(prop, value), `${field}: ${JSON.stringify(value)}`).toBe(true);
        }
      }
    } finally {
      await emu.close();
    }
  });

  it('exits 2 for an unknown command, naming close matches', async () => {
    const r = await runCli(['schema', 'servers', 'lst']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unknown command "servers lst"');
    expect(r.stderr).toContain('servers list');
    const group = await runCli(['schema', 'servers']);
    expect(group.code).toBe(2);
    expect(group.stderr).toContain('servers list, servers add');
  });

  it('exits 2 for a command without JSON output', async () => {
    const r = await runCli(['schema', 'ssh-keys', 'delete']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('ssh-keys delete has no JSON output schema');
  });
});

describe('docs/openapi.json', () => {
  it('is current (npm run docs rewrites it)', async () => {
    const onDisk = JSON.parse(readFileSync(path.join(ROOT, 'docs', 'openapi.json'), 'utf8'));
    expect(onDisk).toEqual(JSON.parse(JSON.stringify(await openapiDocument(manifest))));
  });

  it('is an OpenAPI 3.1 document with an operation for every command that has an endpoint', async () => {
    const doc = JSON.parse(readFileSync(path.join(ROOT, 'docs', 'openapi.json'), 'utf8'));
    expect(doc.openapi).toBe('3.1.0');
    for (const c of manifest.commands.filter((c) => c.endpoint && !c.hidden)) {
      const op = doc.paths[`/v1${c.endpoint}`]?.[c.method!.toLowerCase()];
      expect(op, `${c.method} /v1${c.endpoint}`).toBeDefined();
      expect(op['x-backupctl-commands']).toContain(`backupctl ${c.path.join(' ')}`);
    }
    for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, { parameters: Array<{ name: string; in: string }> }>>)) {
      const names = [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const op of Object.values(ops)) {
        expect(op.parameters.filter((x) => x.in === 'path').map((x) => x.name).sort(), p).toEqual(names.sort());
      }
    }
  });

  it('wraps lists and records as the service does, and nests dotted body fields', async () => {
    const doc = JSON.parse(readFileSync(path.join(ROOT, 'docs', 'openapi.json'), 'utf8'));
    const list = doc.paths['/v1/servers'].get;
    const listSchema = list.responses['200'].content['application/json'].schema;
    expect(listSchema.properties.data).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Server' } });
    expect(Object.keys(listSchema.properties)).toEqual(['data', 'links', 'meta']);
    expect(list.parameters.find((p: { name: string }) => p.name === 'sort').schema.enum).toContain('-last_used_at');
    const add = doc.paths['/v1/servers'].post;
    expect(add.requestBody.content['application/json'].schema.properties.ssh_port.type).toBe('string');
    expect(add.requestBody.content['application/json'].schema.required).toEqual(['name', 'ssh_host', 'ssh_user', 'ssh_key', 'ssh_port']);
    expect(Object.values(add.responses)[0]).toMatchObject({ content: { 'application/json': { schema: { properties: { data: { $ref: '#/components/schemas/Server' } } } } } });
    expect(doc.paths['/v1/ssh-keys/{key_id}'].delete.responses['204']).toEqual({ description: 'No content' });
    expect(doc.components.schemas.Server.properties.key.anyOf[0]).toEqual({ $ref: '#/components/schemas/SshKey' });
    const dotted = manifest.commands.find((c) => c.params.some((p) => p.in === 'body' && p.name.includes('.') && !p.name.includes('#')));
    if (dotted) {
      const p = dotted.params.find((q) => q.in === 'body' && q.name.includes('.'))!;
      const [outer, inner] = p.name.split('.');
      const body = doc.paths[`/v1${dotted.endpoint}`][dotted.method!.toLowerCase()].requestBody.content['application/json'].schema;
      expect(body.properties[outer!].properties).toHaveProperty(inner!);
    }
  });
});

interface FixtureEndpoint {
  method: string;
  path: string;
  source: 'interface' | 'extra';
  success: number;
  path_params: string[];
  path_types: Record<string, 'integer' | 'uuid' | 'string'>;
  query: string[];
  body: string[];
  body_required: string[];
}
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The project's own record of the interface (test/fixtures), never ../shared. */
const interfaceEndpoints = (JSON.parse(readFileSync(path.join(ROOT, 'test', 'fixtures', 'interface-endpoints.json'), 'utf8')) as { endpoints: FixtureEndpoint[] }).endpoints;
const shape = (p: string) => p.replace(/\{[^}]+\}/g, '{}');

describe('docs/openapi.json against the interface (test/fixtures/interface-endpoints.json)', () => {
  const doc = JSON.parse(readFileSync(path.join(ROOT, 'docs', 'openapi.json'), 'utf8')) as Json;
  const deref = (node: Json): Json => {
    if (typeof node?.$ref !== 'string') return node;
    const target = (node.$ref as string).replace(/^#\//, '').split('/').reduce<Json>((n, k) => n[k], doc);
    return deref(target);
  };
  const operations = Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([p, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${shape(p)}`, path: p, op })),
  );
  const operationOf = (e: FixtureEndpoint) => operations.find((o) => o.key === `${e.method} ${shape(e.path)}`);

  it('has exactly the operations of the interface and its extras, each path once', () => {
    const expected = interfaceEndpoints.map((e) => `${e.method} ${shape(e.path)}`).sort();
    expect(operations.map((o) => o.key).sort()).toEqual(expected);
    const shapes = Object.keys(doc.paths).map(shape);
    expect(shapes.length).toBe(new Set(shapes).size);
  });

  it('answers with the exact success status of the interface, never a 2XX range', () => {
    const wrong = interfaceEndpoints
      .map((e) => ({ e, codes: Object.keys(operationOf(e)!.op.responses).filter((c) => /^2/.test(c)) }))
      .filter(({ e, codes }) => codes.join() !== String(e.success))
      .map(({ e, codes }) => `${e.method} ${e.path}: ${codes.join()} (interface: ${e.success})`);
    expect(wrong).toEqual([]);
  });

  it('types path parameters as the interface does, the same on every path', () => {
    const wrong: string[] = [];
    for (const e of interfaceEndpoints) {
      const { op, path: p } = operationOf(e)!;
      const params = (op.parameters as Json[]).filter((x) => x.in === 'path');
      expect(params.length, p).toBe(e.path_params.length);
      for (const [name, type] of Object.entries(e.path_types)) {
        // The fixture names the extras' ids {id}; the document names them after the record.
        const param = params[e.path_params.indexOf(name)]!;
        const schema = param.schema as Json;
        const ok = type === 'uuid' ? schema.type === 'string' && schema.format === 'uuid' : schema.type === type;
        if (!ok) wrong.push(`${e.method} ${p} ${param.name}: ${JSON.stringify(schema)} (interface: ${type})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('takes every query parameter and body field the interface names, and requires those it requires', () => {
    const missing: string[] = [];
    for (const e of interfaceEndpoints) {
      const { op } = operationOf(e)!;
      const query = (op.parameters as Json[]).filter((x) => x.in === 'query').map((x) => x.name);
      for (const q of e.query) if (!query.includes(q)) missing.push(`${e.method} ${e.path}: query ${q}`);
      const body = op.requestBody?.content['application/json'].schema as Json | undefined;
      for (const f of e.body) if (!body?.properties?.[f]) missing.push(`${e.method} ${e.path}: body ${f}`);
      for (const f of e.body_required) if (!(body?.required ?? []).includes(f)) missing.push(`${e.method} ${e.path}: required ${f}`);
      if (e.body_required.length) expect(op.requestBody.required, `${e.method} ${e.path}`).toBe(true);
    }
    expect(missing).toEqual([]);
  });

  it('describes the fields of the answers without a data wrapper (start backup, delete all backups, servers code)', () => {
    const fields = (method: string, p: string, status: string) =>
      Object.keys(deref(doc.paths[p][method].responses[status].content['application/json'].schema).properties ?? {});
    expect(fields('post', '/v1/jobs/{job_id}/backups/start', '202')).toEqual(expect.arrayContaining(['status', 'backup_id', 'url', 'config', 'tags']));
    // --wait adds the backup to what the CLI prints; the service does not send it.
    expect(fields('post', '/v1/jobs/{job_id}/backups/start', '202')).not.toContain('backup');
    expect(fields('delete', '/v1/jobs/{job_id}/backups', '200')).toEqual(['message']);
    expect(fields('get', '/v1/servers/code', '200')).toEqual(['code']);
  });

  it('documents the known error answers: 401 and 429 everywhere, 404 for a record, 422 where input goes', () => {
    for (const { key, path: p, op } of operations) {
      const codes = Object.keys(op.responses);
      expect(codes, key).toEqual(expect.arrayContaining(['401', '429']));
      if (p.includes('{')) expect(codes, key).toContain('404');
      if (op.requestBody) expect(codes, key).toContain('422');
    }
    expect(deref(deref(doc.paths['/v1/servers'].post.responses['422']).content['application/json'].schema).properties.errors.additionalProperties).toEqual({
      type: 'array',
      items: { type: 'string' },
    });
    expect(deref(doc.paths['/v1/servers'].get.responses['429']).headers).toHaveProperty('Retry-After');
  });

  it('lints clean with @redocly/cli (0 errors, 0 warnings), offline and without telemetry', async () => {
    const { execFile } = await import('node:child_process');
    const cli = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    // test/helpers/no-network.cjs makes any connection or DNS lookup end the run with exit 99.
    const args = ['--require', path.join(ROOT, 'test', 'helpers', 'no-network.cjs'), cli, 'lint', path.join(ROOT, 'docs', 'openapi.json'), '--format=json'];
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, args, { env, cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(r.stderr).not.toContain('no-network');
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; message: string }> };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 90_000);
});
