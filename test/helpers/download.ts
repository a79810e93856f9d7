// Options for downloadFiles in unit tests: quiet, one short timeout, fast retries.
import { PassThrough } from 'node:stream';
import type { DownloadOptions } from '../../src/jobs/download.js';

export function downloadOptions(dir: string, extra: Partial<DownloadOptions> = {}): DownloadOptions {
  return {
    dir,
    force: false,
    parallel: 2,
    signal: new AbortController().signal,
    timeoutMs: 5000,
    stderr: new PassThrough(),
    progress: false,
    debug: false,
    retryDelayMs: 5,
    ...extra,
  };
}
