// A Transfer (src/pipeline) that serves one file's bytes from memory, 16 KiB a write, with
// ranges: the read pipeline's tests run without a files server.
import { Readable } from 'node:stream';
import type { Transfer } from '../../src/pipeline/index.js';

export function memoryTransfer(bytes: Buffer): Transfer {
  return {
    async read(_file, sink) {
      for (let i = 0; i < bytes.length; i += 16 * 1024) await sink.write(bytes.subarray(i, i + 16 * 1024));
      return { bytes: bytes.length, resumed: false };
    },
    range: (_url, start, end) => Readable.from([bytes.subarray(start, end + 1)]),
  };
}
