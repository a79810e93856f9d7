// `backupctl schema <command>` and docs/openapi.json: what a script author
// reads to know the shape of --json output and of the interface.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, runCli } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { openapiDocument } from '../../src/commands/schema.js';
import type { Manifest } from '../../src/resources/types.js';

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
    expect(add.requestBody.content['application/json'].schema.required).toEqual(['name', 'ssh_host', 'ssh_user', 'ssh_key']);
    expect(Object.values(add.responses)[0]).toMatchObject({ content: { 'application/json': { schema: { properties: { data: { $ref: '#/components/schemas/Server' } } } } } });
    expect(doc.paths['/v1/ssh-keys/{key_id}'].delete.responses).toEqual({ '204': { description: 'No content' } });
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
