// --output-file: the whole output or none of it. A reader (node_exporter's
// textfile collector, a dashboard) must never see a half-written file, so the
// text goes to a temporary file beside the target and is renamed over it.
import { randomBytes } from 'node:crypto';
import { access, constants, open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { Context, IO, OutputOptions, Result } from '../contract/context.js';
import { UsageError } from '../errors.js';

/** Checked before any request: a path that cannot be written is a usage error, not a wasted run. */
export async function checkOutputFile(file: string, flag = '--output-file'): Promise<void> {
  const dir = path.dirname(path.resolve(file));
  try {
    await access(dir, constants.W_OK);
  } catch (err) {
    throw new UsageError(`invalid value "${file}" for ${flag}: cannot write in ${dir} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`invalid value "${file}" for ${flag}: it is a directory`);
}

export interface AtomicWriteOptions {
  /** Mode of a new file (default 0644: metrics are read by another user). */
  mode?: number;
  /** The error for a failed write (default: a usage error about --output-file). */
  failure?: (err: Error) => Error;
}

export async function writeFileAtomic(file: string, text: string, options: AtomicWriteOptions = {}): Promise<void> {
  const target = path.resolve(file);
  // A leading dot and a .tmp ending: the textfile collector reads only *.prom, shells hide it.
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fh = await open(temp, 'wx', options.mode ?? 0o644);
    try {
      await fh.writeFile(text);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw options.failure ? options.failure(err as Error) : new UsageError(`cannot write --output-file ${file}: ${(err as Error).message}`);
  }
}

/**
 * Renders what `make` returns to stdout, or with --output-file to the file,
 * atomically. A file is read by programs: no colour, whole cells (no terminal
 * width), compact JSON.
 */
export async function renderToOutput(
  ctx: Context,
  outputFile: string | undefined,
  make: (out: OutputOptions, io: IO) => Promise<Result>,
): Promise<void> {
  const { render } = await import('../output/index.js');
  if (outputFile === undefined) {
    await render(await make(ctx.output, ctx.io), ctx.output, ctx.io);
    return;
  }
  const out: OutputOptions = { ...ctx.output, color: false, pretty: false };
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      done();
    },
  });
  const io: IO = { ...ctx.io, stdout: stream, stdoutIsTTY: false, columns: Infinity };
  await render(await make(out, io), out, io);
  await writeFileAtomic(outputFile, Buffer.concat(chunks).toString('utf8'));
}
