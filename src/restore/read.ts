// THE SEAM: "read this backup's file into these sinks". Today it is built on
// what exists: download's `transfer` (signed URL, no Authorization, resume,
// the size cap) and verify's content checks (inspect: gzip CRC, tar headers),
// with the bytes fanned out to verify's check and to the restore sink. When
// verify's read pipeline is split into stages with one sink interface, this
// file is what gets swapped for it; the rest of restore-test only calls
// readFileInto.
import type { ByteSink } from '../pipeline/types.js';
import type { ContentVerdict } from '../verify/inspect.js';

export interface FileToRead {
  name: string;
  url: string;
  /** The size the backup record states ("744 bytes", "12.5 MB"). */
  size: unknown;
}

/** Streams the file into `sink`, resuming a broken transfer; throws when it cannot be read. */
export type ReadFn = (file: { name: string; url: string; size?: number; maxSize?: number }, sink: ByteSink, signal: AbortSignal) => Promise<{ bytes: number; resumed: boolean }>;

export interface ReadOutcome {
  bytes: number;
  resumed: boolean;
  read_seconds: number;
  /** verify's checks on the way. */
  check: { verdict: ContentVerdict; format: string; reason: string | null };
}

const BATCH = 512 * 1024;

/**
 * Reads one file through `read` into verify's content check and every sink
 * (a restore sink among them). A transfer or size failure is a failed check,
 * not an exception; an abort (Ctrl-C, a fatal sink error) throws.
 */
export async function readFileInto(
  file: FileToRead,
  sinks: ByteSink[],
  o: { read: ReadFn; signal: AbortSignal; encrypted: boolean; readRange?: (start: number, end: number) => import('node:stream').Readable },
): Promise<ReadOutcome> {
  const [{ inspect }, { parseStatedSize }] = await Promise.all([import('../verify/inspect.js'), import('../verify/size.js')]);
  const started = performance.now();
  const stated = parseStatedSize(file.size);
  let check = inspect({ encrypted: o.encrypted, readRange: o.readRange });
  let bytes = 0;
  let batch: Buffer[] = [];
  let batched = 0;
  const flush = async () => {
    if (!batched) return;
    const chunk = batch.length === 1 ? batch[0]! : Buffer.concat(batch, batched);
    batch = [];
    batched = 0;
    await Promise.all([check.write(chunk), ...sinks.map((s) => s.write(chunk))]);
  };
  let resumed = false;
  let failure: string | undefined;
  try {
    const got = await o.read(
      { name: file.name, url: file.url, size: stated && stated.min === stated.max ? stated.bytes : undefined, maxSize: stated?.max },
      {
        async write(chunk) {
          bytes += chunk.length;
          batch.push(chunk);
          batched += chunk.length;
          if (batched >= BATCH) await flush();
        },
        restart() {
          batch = [];
          batched = 0;
          bytes = 0;
          check = inspect({ encrypted: o.encrypted, readRange: o.readRange });
          for (const s of sinks) s.restart();
        },
      },
      o.signal,
    );
    resumed = got.resumed;
    await flush();
  } catch (err) {
    if (o.signal.aborted) throw o.signal.reason ?? err;
    failure = `download: ${err instanceof Error ? err.message : String(err)}`;
  }
  const read_seconds = (performance.now() - started) / 1000;
  if (failure) return { bytes, resumed, read_seconds, check: { verdict: 'failed', format: 'unknown', reason: failure } };
  const finding = await check.end();
  let reason = finding.verdict === 'failed' ? (finding.reason ?? `${finding.format}: damaged`) : null;
  if (!reason && stated && (bytes < stated.min || bytes > stated.max)) reason = `size: read ${bytes} bytes, the record states ${stated.text}`;
  return { bytes, resumed, read_seconds, check: { verdict: reason ? 'failed' : finding.verdict, format: finding.format, reason } };
}
