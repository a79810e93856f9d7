// An AbortSignal that is already aborted fires no 'abort' event for a listener added afterwards. Code that
// only listened let work started after Ctrl-C run on (a whole restore-test ran, printed "restored" and
// exited 130). Every listener that stops work goes through here.

/** Calls `fn` once when `signal` aborts, or now when it already has. */
export function whenAborted(signal: AbortSignal | undefined, fn: () => void): void {
  if (!signal) return;
  if (signal.aborted) fn();
  else signal.addEventListener('abort', fn, { once: true });
}
