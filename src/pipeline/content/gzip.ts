import { message } from './check.js';

/** zlib's words for what went wrong, as a reader of the report wants them. */
export function gzipReason(err: unknown): string {
  const text = message(err);
  if (text.startsWith('gzip: ')) return text;
  if (/unexpected end of file/i.test(text)) return 'gzip: truncated (the compressed stream ends early)';
  if (/incorrect data check/i.test(text)) return 'gzip: CRC-32 mismatch (incorrect data check): the data is damaged';
  if (/incorrect length check/i.test(text)) return 'gzip: length mismatch (incorrect length check): the data is damaged';
  if (/header crc mismatch/i.test(text)) return 'gzip: header CRC mismatch: the header is damaged';
  return `gzip: ${text}`;
}
