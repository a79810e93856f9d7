// --jq <expr>: the JSON a command prints, filtered by jq itself (jq 1.8 built
// to WebAssembly: the jq-wasm package), printed as `jq -r` prints it: strings
// raw, everything else as jq formats JSON. Loaded only when --jq is given: the
// engine's JavaScript is bundled, its jq.wasm sits gzipped beside the bundle (a
// blob asset in the single executable), inflated and compiled on first use (~0.15 s).
import { existsSync } from 'node:fs';
// A static import: this module loads only on --jq (runner.ts), and the bundle runs from
// a code cache, where import() of a built-in fails (src/boot.cjs).
import { gunzipSync } from 'node:zlib';
import { UsageError } from '../errors.js';
import { sanitizeMultiline } from './sanitize.js';
import { readBuiltBinary } from '../util/built-files.js';

interface JqEngine {
  raw(input: unknown, query: string, flags?: string[]): { stdout: string; stderr: string; exitCode: number };
}

let engine: Promise<JqEngine> | undefined;

/** dist/jq.wasm.gz beside the bundle, or the build's copy when running from the sources (tests). */
function locateWasm(): URL {
  const candidates = ['./jq.wasm.gz', '../../dist/jq.wasm.gz'].map((p) => new URL(p, import.meta.url));
  return candidates.find((u) => existsSync(u)) ?? candidates[0]!;
}

function load(): Promise<JqEngine> {
  engine ??= (async () => {
    const { loadJq } = await import('jq-wasm');
    return loadJq({ wasmBinary: gunzipSync(readBuiltBinary('jq.wasm.gz', locateWasm)) });
  })();
  return engine;
}

/** jq's message as a usage error: its first line is the message, the rest (the caret under the column) details. */
function jqError(stderr: string): UsageError {
  const lines = stderr.replace(/\s+$/, '').split('\n');
  const first = (lines.shift() ?? 'jq failed').replace(/^jq: error:?\s*/, '');
  return new UsageError(`--jq: ${first}`, lines.filter((l) => !/^jq: \d+ compile errors?$/.test(l)).map((l) => `  ${l}`));
}

/** Checks that `expr` compiles (jq's exit code 3), before anything is sent: a bad expression exits 2 with jq's message. */
export async function checkJqExpression(expr: string): Promise<void> {
  if (expr.trim() === '') throw new UsageError('--jq needs an expression, such as .[].name');
  const jq = await load();
  const r = jq.raw(null, expr, ['-r']);
  if (r.exitCode === 3) throw jqError(r.stderr);
}

/**
 * What jq prints for `value` (each result on its own line) and, when it
 * failed part way, its message as a usage error: what it printed before
 * failing is kept, as jq keeps it. On a terminal the text is made safe as
 * every other output is (escape sequences and control characters removed:
 * a job name cannot set the clipboard or clear the screen); into a pipe or
 * a file it stays jq -r's raw text, for the script that reads it.
 */
export async function applyJq(value: unknown, expr: string, terminal = false): Promise<{ text: string; error?: UsageError }> {
  const jq = await load();
  const r = jq.raw(value === undefined ? null : (value as object), expr, ['-r']);
  const out = terminal ? sanitizeMultiline(r.stdout) : r.stdout;
  const text = out === '' ? '' : `${out}\n`;
  return r.exitCode === 0 ? { text } : { text, error: jqError(r.stderr) };
}
