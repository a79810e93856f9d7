// Durations as people write them, shared by status, report and verify's views.

/** 26h, 2d, 1h30m: the shortest way to write a duration in whole units. */
export function durationText(ms: number): string {
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  // Whole days read better than hours only when the value is a whole number of days.
  if (ms % 86_400_000 !== 0) units.shift();
  let rest = Math.round(ms);
  let out = '';
  for (const [name, size] of units) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${name}`;
      rest %= size;
    }
  }
  return out || `${Math.round(ms)}ms`;
}
