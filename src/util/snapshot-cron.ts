// How the service schedules a droplet's or volume's snapshots, as a cron expression: read by
// `report` (what was expected) and by the emulator's demo seed (what it made), so that the two
// agree, without the emulator importing report (issue 25 §18).

/**
 * A droplet's or volume's schedule as a cron expression: `frequency` hours
 * between snapshots counted from `run_offset` hours after 00:00 of its time
 * zone, each day anew (`0 3-23/6 * * *`); minutes for resources' m30-style
 * frequencies. Returns why not when the record does not say enough.
 */
export function snapshotScheduleCron(frequency: unknown, runOffset: unknown): { cron: string; text: string } | { unreadable: string; text: string } {
  let hours: number | undefined;
  let minutes: number | undefined;
  if (typeof frequency === 'number') hours = frequency;
  else if (typeof frequency === 'string') {
    const m = /^([hm])(\d+)$/i.exec(frequency.trim());
    if (m) (m[1]!.toLowerCase() === 'h' ? (hours = Number(m[2])) : (minutes = Number(m[2])));
    else if (/^\d+$/.test(frequency.trim())) hours = Number(frequency);
  }
  const offset = typeof runOffset === 'number' && Number.isInteger(runOffset) ? runOffset : typeof runOffset === 'string' && /^\d+$/.test(runOffset) ? Number(runOffset) : 0;
  const clock = (h: number) => `${String(h).padStart(2, '0')}:00`;
  if (minutes !== undefined) {
    if (minutes < 1 || minutes > 60 || 60 % minutes !== 0) return { unreadable: `a frequency of ${minutes} minutes does not divide an hour`, text: `every ${minutes}m` };
    return { cron: minutes === 60 ? '0 * * * *' : `*/${minutes} * * * *`, text: `every ${minutes}m` };
  }
  if (hours === undefined || !Number.isInteger(hours) || hours < 1) {
    return { unreadable: frequency == null ? 'the record has no frequency' : `the frequency "${String(frequency)}" is not a number of hours`, text: `frequency ${String(frequency ?? 'none')}` };
  }
  if (offset < 0 || offset > 23) return { unreadable: `run_offset ${offset} is not an hour of the day`, text: `every ${hours}h` };
  if (hours >= 24) {
    if (hours === 24) return { cron: `0 ${offset} * * *`, text: `every 24h from ${clock(offset)}` };
    return { unreadable: `every ${hours}h has no stated first day to count from`, text: `every ${hours}h` };
  }
  return { cron: `0 ${offset}-23/${hours} * * *`, text: `every ${hours}h from ${clock(offset)}` };
}
