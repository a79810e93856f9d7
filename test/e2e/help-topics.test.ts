// `backupctl help <topic>`: the texts a cron author or script writer reads,
// checked against what the code really does.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT, runCli } from '../helpers/cli.js';
import { ExitCode } from '../../src/errors.js';

/** Every .ts file under src/ except the emulator (which has its own settings). */
function sourceFiles(dir = path.join(ROOT, 'src')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'emulator' ? [] : sourceFiles(full);
    // .cjs: src/boot.cjs, which loads the bundle (and its code cache) before anything else.
    return full.endsWith('.ts') || full.endsWith('.cjs') ? [full] : [];
  });
}

/** An environment variable's name: upper case, digits and underscores. */
const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

/** `env`, `process.env`, `ctx.env`, `this.env`, `o.env`: an expression that is the environment. */
function isEnv(node: ts.Expression): boolean {
  if (ts.isIdentifier(node)) return node.text === 'env';
  return ts.isPropertyAccessExpression(node) && node.name.text === 'env';
}

/** The name a call goes to: `read(...)`, `envValue(...)`, `this.get(...)` give read, envValue, get. */
function calleeName(call: ts.CallExpression): string | undefined {
  const e = call.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return undefined;
}

/** The function a node is the body of, with its name and parameter names. */
function functionOf(node: ts.Node): { name: string; params: string[] } | undefined {
  let fn: ts.Node | undefined = node.parent;
  while (fn && !ts.isFunctionLike(fn)) fn = fn.parent;
  if (!fn) return undefined;
  const f = fn as ts.SignatureDeclaration;
  const params = f.parameters.map((p) => (ts.isIdentifier(p.name) ? p.name.text : ''));
  if (f.name && ts.isIdentifier(f.name)) return { name: f.name.text, params };
  // const read = (name) => ...; { read: (name) => ... }
  const holder = f.parent;
  if (holder && (ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder)) && ts.isIdentifier(holder.name)) return { name: holder.name.text, params };
  return undefined;
}

/**
 * Environment variables the CLI reads, from the syntax trees of src/: `env.NAME`,
 * `env['NAME']`, and every name passed to a helper that reads the variable its
 * parameter names: `envValue(env, 'NAME')`, or a local `read('NAME', ...)` built
 * on envValue or on `env[name]` (helpers of helpers too).
 */
function variablesRead(): string[] {
  const trees = sourceFiles().map((f) => ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true));
  const names = new Set<string>();
  /** Helper name -> the index of the argument that names the variable. */
  const helpers = new Map<string, number>();
  const visitAll = (visit: (node: ts.Node) => void) => {
    const walk = (node: ts.Node): void => {
      visit(node);
      ts.forEachChild(node, walk);
    };
    for (const tree of trees) walk(tree);
  };
  // The helpers, to a fixed point: a function whose parameter reaches env[...] or a helper's name argument.
  for (let grew = true; grew; ) {
    grew = false;
    visitAll((node) => {
      let arg: ts.Expression | undefined;
      if (ts.isElementAccessExpression(node) && isEnv(node.expression)) arg = node.argumentExpression;
      if (ts.isCallExpression(node)) {
        const at = helpers.get(calleeName(node) ?? '');
        if (at !== undefined) arg = node.arguments[at];
      }
      if (!arg || !ts.isIdentifier(arg)) return;
      const fn = functionOf(node);
      const index = fn?.params.indexOf(arg.text) ?? -1;
      if (fn && index >= 0 && helpers.get(fn.name) !== index) {
        helpers.set(fn.name, index);
        grew = true;
      }
    });
  }
  visitAll((node) => {
    if (ts.isPropertyAccessExpression(node) && isEnv(node.expression) && ENV_NAME.test(node.name.text)) names.add(node.name.text);
    if (ts.isElementAccessExpression(node) && isEnv(node.expression) && ts.isStringLiteralLike(node.argumentExpression)) names.add(node.argumentExpression.text);
    if (ts.isCallExpression(node)) {
      const at = helpers.get(calleeName(node) ?? '');
      const arg = at === undefined ? undefined : node.arguments[at];
      if (arg && ts.isStringLiteralLike(arg) && ENV_NAME.test(arg.text)) names.add(arg.text);
    }
  });
  return [...names].sort();
}

describe('backupctl help exit-codes', () => {
  it('gives every exit code the CLI uses one line', async () => {
    const r = await runCli(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    for (const code of new Set(Object.values(ExitCode))) {
      const lines = r.stdout.split('\n').filter((l) => new RegExp(`^\\s+${code}\\s+\\S`).test(l));
      expect(lines, `exit code ${code}`).toHaveLength(1);
    }
    expect(r.stdout).toMatch(/^\s+5\s+not found: 404$/m);
    expect(r.stdout).toMatch(/^\s+10\s+another run holds the lock \(--lock\)$/m);
  });
});

describe('backupctl help environment', () => {
  it('names every environment variable the CLI reads', async () => {
    const r = await runCli(['help', 'environment']);
    expect(r.code).toBe(0);
    const read = variablesRead();
    // Read directly, through envValue, and through a helper built on envValue (context.ts's retry waits).
    expect(read).toEqual(expect.arrayContaining(['BACKUPCTL_BASE_URL', 'BACKUPCTL_TOKEN', 'BACKUPCTL_CONFIG_DIR', 'NO_COLOR', 'BACKUPCTL_RETRY_BASE', 'BACKUPCTL_RETRY_MAX_WAIT']));
    for (const name of [
      ...read,
      'BACKUPCTL_PROFILE',
      'BACKUPCTL_OUTPUT',
      'BACKUPCTL_TIMEOUT',
      'BACKUPCTL_DEBUG',
      'XDG_CONFIG_HOME',
      'FORCE_COLOR',
      'HTTPS_PROXY',
      'HTTP_PROXY',
      'NO_PROXY',
      'NODE_EXTRA_CA_CERTS',
    ]) {
      expect(r.stdout, name).toMatch(new RegExp(`\\b${name}\\b`));
    }
  });
});

describe('backupctl help cron', () => {
  it('gives a ready crontab line, what each exit code means there, and how to check last night\'s backup', async () => {
    const r = await runCli(['help', 'cron']);
    expect(r.code).toBe(0);
    const crontab = r.stdout.split('\n').find((l) => /^\s*15 2 \* \* \* /.test(l));
    expect(crontab).toBeDefined();
    for (const part of ['BACKUPCTL_PROFILE=', 'jobs backup start <job>', '--wait', '--wait-timeout', '--jitter', '--lock', '--healthcheck-url', '2>&1']) {
      expect(crontab).toContain(part);
    }
    for (const code of [0, 3, 4, 6, 7, 8, 10]) expect(r.stdout).toMatch(new RegExp(`^\\s+${code}\\s+\\S`, 'm'));
    expect(r.stdout).toContain('jobs backup latest <job>');
    expect(r.stdout).toContain('--max-age 26h');
    const restore = r.stdout.split('\n').find((l) => l.includes('backupctl restore-test <job>'));
    for (const part of ['--check', '--lock', '--healthcheck-url', '2>&1']) expect(restore).toContain(part);
  });
});

describe('help topics', () => {
  it('lists the topics when one is unknown, exit 2', async () => {
    const r = await runCli(['help', 'cronjobs']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('exit-codes, environment, cron');
  });
});
