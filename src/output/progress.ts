// A progress bar on stderr (a terminal only): share done, files, bytes,
// throughput and time left (until every stated byte is in). Redrawn at most
// ten times a second, the first time 100 ms after it starts. Used by
// `jobs backup download` and `verify`.
import type { Writable } from 'node:stream';
import { humanBytes } from './format.js';

export class ProgressBar {
  private done = 0;
  private files = 0;
  private last = 0;
  private readonly started: number;
  constructor(
    private readonly out: Writable,
    private readonly total: number,
    private readonly fileCount: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.started = clock();
    // The first redraw waits like the others: at the first chunk there is no rate to speak of.
    this.last = this.started;
  }

  add(n: number): void {
    this.done += n;
    const now = this.clock();
    if (now - this.last > 100) {
      this.last = now;
      this.draw();
    }
  }

  fileDone(): void {
    this.files++;
    this.draw();
  }

  /** The line as drawn: bar, percent, files, bytes, throughput, time left. */
  line(): string {
    const frac = this.total > 0 ? Math.min(1, this.done / this.total) : this.files / Math.max(1, this.fileCount);
    const seconds = (this.clock() - this.started) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    const left = rate > 0 ? (this.total - this.done) / rate : 0;
    const eta = this.total > this.done && rate > 0 ? `  ETA ${left < 1 ? '<1s' : formatSeconds(left)}` : '';
    const figures = `${Math.round(frac * 100)}%  ${this.files}/${this.fileCount} files  ${humanBytes(this.done)}  ${humanBytes(rate)}/s${eta}`;
    // A line as wide as the terminal wraps, and '\r' then redraws only its last part, a new
    // line each time: on a narrow terminal the bar shrinks, then goes, then the figures are cut.
    const columns = (this.out as { columns?: number }).columns;
    const room = columns ? columns - 1 : Infinity;
    const width = Math.min(30, room - figures.length - 3);
    if (width < 10) return figures.length <= room ? figures : `${figures.slice(0, Math.max(0, room - 1))}…`;
    const filled = Math.round(frac * width);
    return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${figures}`;
  }

  private draw(): void {
    this.out.write(`\r${this.line()}\u001b[K`);
  }

  end(): void {
    this.draw();
    this.out.write('\n');
  }
}

function formatSeconds(s: number): string {
  const whole = Math.ceil(s);
  if (whole < 60) return `${whole}s`;
  const m = Math.floor(whole / 60);
  if (m < 60) return `${m}m${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
