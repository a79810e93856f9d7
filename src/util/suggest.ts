// Near misses: how many single-character edits turn one word into another.

/** Levenshtein distance of two strings. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j]! + 1, row[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = row[j]!;
      row[j] = next;
    }
  }
  return row[b.length]!;
}

/**
 * What a user may have meant by `typed` among `candidates`: those that start
 * with it, then those that contain it (case-insensitive), then the nearest by
 * edit distance (at most a third of the longer word, and 3). At most `max`,
 * each once, in that order.
 */
export function suggestNames(typed: string, candidates: Iterable<string>, max = 5): string[] {
  const t = typed.trim().toLowerCase();
  if (t === '') return [];
  const all = [...new Set(candidates)].filter((c) => c !== '');
  const starts = all.filter((c) => c.toLowerCase().startsWith(t));
  const contains = all.filter((c) => !c.toLowerCase().startsWith(t) && c.toLowerCase().includes(t));
  const near = all
    .map((c) => ({ c, d: editDistance(t, c.toLowerCase()) }))
    .filter(({ c, d }) => d <= Math.min(3, Math.ceil(Math.max(t.length, c.length) / 3)) && !starts.includes(c) && !contains.includes(c))
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
    .map(({ c }) => c);
  return [...starts, ...contains, ...near].slice(0, max);
}

/** The hint line for suggestNames' answer: `  Did you mean "web-01 files"?`, or none. */
export function didYouMean(suggestions: readonly string[], quote = true): string[] {
  if (!suggestions.length) return [];
  const shown = suggestions.map((s) => (quote ? `"${s}"` : s));
  return [shown.length === 1 ? `  Did you mean ${shown[0]}?` : `  Did you mean one of ${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1]}?`];
}
