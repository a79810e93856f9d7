// The command registry against the interface: every endpoint of the spec and
// of the real extras in api-facts.md has a command, and docs/commands.md is current.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { commandsMarkdown, endpointsOf, normalizeEndpoint } from '../../src/cli/docs.js';
import type { Manifest } from '../../src/contract/spec.js';

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'manifest.json'), 'utf8')) as Manifest;

interface FixtureEndpoint { method: string; path: string; source: 'interface' | 'extra' }
/** The project's own copy of the interface's endpoints and the real extras (test/fixtures). */
const fixture = (JSON.parse(readFileSync(path.join(ROOT, 'test', 'fixtures', 'interface-endpoints.json'), 'utf8')) as { endpoints: FixtureEndpoint[] }).endpoints;
const specEndpoints = () => fixture.filter((e) => e.source === 'interface').map((e) => normalizeEndpoint(`${e.method} ${e.path}`));
const extraEndpoints = () => fixture.filter((e) => e.source === 'extra').map((e) => normalizeEndpoint(`${e.method} ${e.path}`));

describe('command registry', () => {
  it('holds 62 endpoints of the interface and 5 extras in its fixture', () => {
    expect(new Set(specEndpoints()).size).toBe(62);
    expect(new Set(extraEndpoints()).size).toBe(5);
  });

  it('has a command for every endpoint of the interface and the extras', () => {
    const covered = endpointsOf(manifest);
    const missing = [...new Set([...specEndpoints(), ...extraEndpoints()])].filter((e) => !covered.has(e));
    expect(missing).toEqual([]);
  });

  it('reaches no endpoint the interface does not have', () => {
    const known = new Set([...specEndpoints(), ...extraEndpoints()]);
    expect([...endpointsOf(manifest)].filter((e) => !known.has(e))).toEqual([]);
  });

  it('gives every command at least one example', () => {
    expect(manifest.commands.filter((c) => c.examples.length === 0).map((c) => c.path.join(' '))).toEqual([]);
  });

  it('docs/commands.md is current (npm run docs rewrites it)', () => {
    const onDisk = readFileSync(path.join(ROOT, 'docs', 'commands.md'), 'utf8');
    expect(onDisk).toBe(commandsMarkdown(manifest));
  });
});
