// Property: whatever a user types after a real command, the argument layer
// either accepts it and builds a request that can be sent, or stops with a
// usage error (exit 2) before anything is sent. Never an uncaught exception,
// never another exit code. 10,000 generated command lines, in-process: the
// same commander program, flag checks and request builder the CLI runs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { collectManifest } from '../../src/build/manifest-build.js';
import { effectiveParams, flagName } from '../../src/cli/params.js';
import { buildRequest } from '../../src/cli/request.js';
import { parseValues } from '../../src/cli/values.js';
import { resolveOutputOptions } from '../../src/output/options.js';
import { CliError, ExitCode } from '../../src/errors.js';
import { manifestSource } from '../../src/cli/manifest.js';
import type { Manifest, ManifestCommand, ParamSpec } from '../../src/contract/spec.js';
import { hostileString, memoryIO, stdinOf } from '../helpers/fuzz.js';

const RUNS = 10_000;
const DEFAULT_TAGS = ['manual', 'hourly', 'daily', 'weekly', 'monthly'];

let manifest: Manifest;
let dir: string;
/** Files that json-file and text-file flags may name: good, bad, empty, huge, binary. */
let files: string[];

beforeAll(async () => {
  manifest = await collectManifest('fuzz');
  dir = mkdtempSync(path.join(tmpdir(), 'backupctl-fuzz-argv-'));
  const contents: Record<string, string | Buffer> = {
    'object.json': JSON.stringify({ name: 'x', credentials: { key: 'k', secret: 's' }, retention: { daily: 3 } }),
    'array.json': '[1,2,3]',
    'null.json': 'null',
    'string.json': '"text"',
    'broken.json': '{"name": ',
    'empty.txt': '',
    'blank.txt': '  \n\t\n',
    'pem.txt': '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----\n',
    'huge.json': JSON.stringify({ name: 'x'.repeat(200_000), nested: Array.from({ length: 2000 }, (_, i) => ({ i })) }),
    'binary.bin': Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 37) % 256)),
    'bom.json': '\ufeff{"name":"bom"}',
    'deep.json': `${'['.repeat(5000)}${']'.repeat(5000)}`,
  };
  files = Object.entries(contents).map(([name, text]) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  });
  files.push(path.join(dir, 'missing.json'), dir);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A value that should pass the flag's check (it may still fail on purpose elsewhere). */
function validValue(p: ParamSpec): fc.Arbitrary<string> {
  const lo = p.min ?? -5;
  const hi = p.max ?? 100_000;
  switch (p.type) {
    case 'string':
      return fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== '');
    case 'integer':
      return fc.integer({ min: lo, max: hi }).map(String);
    case 'number':
      return fc.double({ min: lo, max: hi, noNaN: true }).map((n) => n.toFixed(2));
    case 'enum':
      return fc.constantFrom(...(p.values ?? ['x']));
    case 'sort':
      return fc.tuple(fc.boolean(), fc.constantFrom(...(p.values ?? ['id']))).map(([desc, f]) => (desc ? `-${f}` : f));
    case 'uuid':
      return fc.uuid();
    case 'datetime':
      return fc.oneof(
        fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
        fc.tuple(fc.integer({ min: 1, max: 999 }), fc.constantFrom('m', 'h', 'd', 'w')).map(([n, u]) => `${n}${u}`),
      );
    case 'duration':
      return fc.tuple(fc.integer({ min: 1, max: 999 }), fc.constantFrom('ms', 's', 'm', 'h')).map(([n, u]) => `${n}${u}`);
    case 'cron':
      return fc.constantFrom('0 2 * * *', '*/15 * * * *', '30 3 * * 1-5', '0 0 29 2 *');
    case 'timezone':
      return fc.constantFrom('UTC', 'Europe/Paris', 'Asia/Tokyo', 'america/new_york');
    case 'url':
      return fc.constantFrom('https://minio.example.com:9000', 'http://127.0.0.1:9000/s3');
    case 'tags':
      return fc.subarray(p.values ? [...p.values] : DEFAULT_TAGS, { minLength: 1 }).map((t) => t.join(','));
    case 'kv':
      return fc
        .tuple(fc.stringMatching(/^[a-z_]{1,12}$/), fc.oneof(fc.string({ maxLength: 12 }), fc.integer().map(String)))
        .map(([k, v]) => `${k}=${v}`);
    case 'storage':
      return fc
        .tuple(fc.integer({ min: 1, max: 99 }), fc.option(fc.integer({ min: 1, max: 9 })))
        .map(([id, prio]) => (prio === null ? String(id) : `${id}:${prio}`));
    case 'json-file':
    case 'text-file':
      return fc.constantFrom('-', ...files);
    case 'boolean':
      return fc.constant('');
  }
}

/** Mostly valid values, often hostile ones, sometimes a valid value with junk around it. */
function anyValue(p: ParamSpec): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: validValue(p) },
    { weight: 3, arbitrary: hostileString },
    { weight: 1, arbitrary: fc.tuple(validValue(p), hostileString).map(([v, junk]) => v + junk) },
  );
}

interface Case {
  spec: ManifestCommand;
  argv: string[];
  stdin: string;
}

function argvFor(spec: ManifestCommand): fc.Arbitrary<Case> {
  const params = effectiveParams(spec);
  const positionals = params.filter((p) => p.positional);
  const options = params.filter((p) => !p.positional);
  const positionalArb = fc.tuple(...positionals.map((p) => fc.option(anyValue(p), { freq: 8, nil: undefined })));
  const optionArb = fc.tuple(
    ...options.map((p) => {
      const flag = `--${flagName(p)}`;
      if (p.type === 'boolean') return fc.constantFrom<string[]>([], [], [flag]);
      const occurrences = p.repeatable || p.type === 'kv' || p.type === 'storage' ? 3 : 1;
      const withValue = fc.array(anyValue(p), { minLength: 1, maxLength: occurrences }).map((vs) => vs.flatMap((v) => [flag, v]));
      const choices: fc.Arbitrary<string[]>[] = [fc.constant([]), withValue];
      if (p.nullable) choices.push(fc.constant([`--no-${flagName(p)}`]));
      // Required flags are usually given, so the checks after the first one are reached too.
      return p.required ? fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 6, arbitrary: withValue }) : fc.oneof(...choices);
    }),
  );
  const globalArb = fc.array(
    fc.oneof(
      fc.tuple(fc.constantFrom('-o', '--output'), fc.oneof(fc.constantFrom('json', 'tsv', 'ndjson', 'table', 'JSON'), hostileString)),
      fc.tuple(fc.constant('--timeout'), fc.oneof(fc.constantFrom('30s', '500ms', '0', '-1s'), hostileString)),
      fc.tuple(fc.constant('--columns'), fc.oneof(fc.constant('id,name'), hostileString)),
      fc.constantFrom(['--json'], ['-q'], ['--no-headers'], ['--no-color'], ['--yes'], ['--debug'], ['--dry-run']),
      fc.tuple(fc.constantFrom('--profile', '--base-url', '--config-dir'), hostileString),
    ).map((words): string[] => [...words]),
    { maxLength: 3 },
  );
  // Stray words and unknown flags, anywhere on the line.
  const junkArb = fc.array(
    fc.tuple(fc.nat(), fc.oneof(hostileString, fc.constantFrom('--token', '--nope', '-Z', '--', '--help=x', '-'))),
    { maxLength: 2 },
  );
  const stdinArb = fc.oneof(fc.constant(''), fc.constant('{"name":"from-stdin"}'), hostileString);
  return fc.tuple(positionalArb, optionArb, globalArb, junkArb, stdinArb).map(([pos, opts, globals, junk, stdin]) => {
    const argv = [...spec.path];
    // A missing positional ends the list: later ones would shift into its place.
    for (const v of pos) {
      if (v === undefined) break;
      argv.push(v);
    }
    for (const o of opts) argv.push(...(o as string[]));
    for (const g of globals) argv.push(...g);
    for (const [at, word] of junk) argv.splice(spec.path.length + (at % (argv.length - spec.path.length + 1)), 0, word);
    return { spec, argv, stdin };
  });
}

const DOCUMENTED = new Set<number>(Object.values(ExitCode));

describe('argv fuzzing', () => {
  it(`${RUNS} generated command lines end in success or a usage error`, async () => {
    const counts = { ran: 0, usage: 0, help: 0 };
    let stdinText = '';
    let ranValues: Record<string, unknown> | undefined;
    const io = memoryIO();
    const program = buildProgram(manifestSource(manifest), io, async (spec, positionals, options, globals) => {
      resolveOutputOptions({ globals, env: {}, io });
      const values = await parseValues(spec, { positionals, options }, stdinOf(stdinText));
      const request = buildRequest(spec, values);
      // What would be sent must be sendable: a JSON body and a path without unfilled placeholders.
      if (request) {
        JSON.stringify(request.body);
        expect(request.path).not.toMatch(/\{\w+\}/);
      }
      ranValues = values;
    });

    const arbitrary = fc.constantFrom(...manifest.commands).chain(argvFor);
    await fc.assert(
      fc.asyncProperty(arbitrary, async ({ argv, stdin }) => {
        stdinText = stdin;
        ranValues = undefined;
        try {
          await program.parseAsync(argv, { from: 'user' });
          if (ranValues) counts.ran++;
          else counts.help++;
        } catch (err) {
          const e = err as { code?: unknown; exitCode?: unknown };
          if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
            // commander's own usage errors exit 2; help and version exit 0.
            if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || (e.code === 'commander.help' && e.exitCode === 0)) counts.help++;
            else counts.usage++;
            return;
          }
          if (!(err instanceof CliError)) throw err;
          expect(DOCUMENTED.has(err.exitCode)).toBe(true);
          expect(err.exitCode).toBe(ExitCode.usage);
          expect(typeof err.message).toBe('string');
          counts.usage++;
        }
      }),
      { numRuns: RUNS },
    );
    expect(counts.ran + counts.usage + counts.help).toBe(RUNS);
    console.info(`fuzz-argv: ${RUNS} command lines over ${manifest.commands.length} commands: ${counts.ran} built a request, ${counts.usage} usage errors (exit 2), ${counts.help} help`);
    // The generator must reach the request builder often, not only the error paths.
    expect(counts.ran).toBeGreaterThan(RUNS * 0.05);
    expect(counts.usage).toBeGreaterThan(RUNS * 0.05);
  }, 240_000);

  it('no command takes the token as a flag', () => {
    for (const spec of manifest.commands) {
      // `emulator --token` sets the token the local emulator accepts: its own, never an API token.
      if (spec.module === 'emulator') continue;
      for (const p of effectiveParams(spec)) expect(flagName(p), spec.path.join(' ')).not.toMatch(/^(token|api-token|bearer)$/);
    }
  });
});
