// The command registry against the interface: every endpoint of the spec and
// of the real extras in api-facts.md has a command, and docs/commands.md is current.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { commandsMarkdown, endpointsOf, normalizeEndpoint } from '../../src/cli/docs.js';
import type { Manifest } from '../../src/resources/types.js';

const SHARED = path.resolve(ROOT, '..', 'shared');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'manifest.json'), 'utf8')) as Manifest;

/** Rows `| METHOD | /v1/... |` of the interface's endpoint tables. */
function specEndpoints(): string[] {
  const text = readFileSync(path.join(SHARED, 'spec', 'backup-service-interface.md'), 'utf8');
  return [...text.matchAll(/^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(\/v1\/[^\s|]*)\s*\|/gm)].map((m) => normalizeEndpoint(`${m[1]} ${m[2]}`));
}

/** The extra endpoints listed in api-facts.md's last section (`METHOD /v1/...` in backticks). */
function extraEndpoints(): string[] {
  const text = readFileSync(path.join(SHARED, 'api-facts.md'), 'utf8');
  const section = text.slice(text.indexOf('## Endpoints the real service has'));
  return [...section.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/v1\/[^\s`]*)/g)].map((m) => normalizeEndpoint(`${m[1]} ${m[2]}`));
}

describe('command registry', () => {
  it('finds the contract documents', () => {
    expect(existsSync(SHARED), `expected the shared contract at ${SHARED}`).toBe(true);
  });

  it('reads 62 endpoints from the interface and 5 extras', () => {
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
