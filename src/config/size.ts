import { UsageError } from '../errors.js';

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3 };

export const SIZE_HINT = 'use a size such as 64MB, 512KB or 1GB (binary: 1 KB = 1024 bytes; a bare number is bytes)';

/**
 * `64MB`, `512KB`, `1GB`, `1.5M` (binary multiples, as humanBytes prints them), a bare
 * number is bytes -> bytes. Throws UsageError for anything else or 0; callers reading
 * the environment turn that into a ConfigError naming the variable.
 */
export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new UsageError(`invalid size ${JSON.stringify(text)}: ${SIZE_HINT}`);
  const bytes = Math.floor(Number(m[1]) * unit);
  if (bytes <= 0) throw new UsageError(`invalid size ${JSON.stringify(text)}: must be more than 0`);
  return bytes;
}
