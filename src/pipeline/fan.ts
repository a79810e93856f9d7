// One chunk to many sinks (the fan-out of read.ts and the content stage of
// content/stage.ts): every sink gets it at once and the slowest sets the pace
// (backpressure). A core sink's error propagates (a check); an extra sink
// whose write throws is recorded in `failed`, by its index, and is not written
// to again: it never stops the others.

interface Writes {
  write(chunk: Buffer): Promise<void>;
}

export async function writeAll(chunk: Buffer, core: readonly Writes[], extras: readonly Writes[], failed: Map<number, unknown>): Promise<void> {
  await Promise.all([
    ...core.map((s) => s.write(chunk)),
    ...extras.map(async (s, i) => {
      if (failed.has(i)) return;
      try {
        await s.write(chunk);
      } catch (err) {
        failed.set(i, err);
      }
    }),
  ]);
}
