// Sizes as the service writes them: `744 bytes`, `1.2 KB`, `255.89 MB`
// (1024-based, as api-facts.md shows), or a plain number of bytes.

const FACTORS: Record<string, number> = { b: 1, byte: 1, bytes: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4, pb: 1024 ** 5 };

/** Bytes the text states (rounded to a whole byte), or undefined when it is not a size. */
export function parseSizeText(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  if (!m) return undefined;
  const factor = FACTORS[(m[2] || 'bytes').toLowerCase()];
  return factor === undefined ? undefined : Math.round(Number(m[1]) * factor);
}
