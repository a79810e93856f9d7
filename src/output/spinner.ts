// A progress spinner on stderr, shown only to a person at a terminal.
import type { IO, Spinner } from '../contract/context.js';
import { sanitize } from './sanitize.js';

const noop: Spinner = { update() {}, stop() {} };

/**
 * Returns at once; ora loads in the background and the spinner appears when
 * it has. `update` and `stop` work at any moment: text set before ora loads
 * is the text it starts with, and after `stop` it never starts. A no-op when
 * stderr is not a terminal, so pipes and CI logs get no spinner frames, or a
 * terminal of zero columns.
 */
export function createSpinner(text: string, io: IO, style: { color: boolean } = { color: false }): Spinner {
  if (!io.stderrIsTTY) return noop;
  // A terminal that reports no width (a pty nobody sized: `script`, some CI runners):
  // ora divides the text's width by 0 columns and clears lines for ever (a 1 GB
  // stream of cursor-up codes was seen). Such a terminal gets no spinner.
  const width = (io.stderr as { columns?: unknown }).columns;
  if (typeof width === 'number' && !(width > 0)) return noop;
  let currentText = sanitize(text);
  let stopped = false;
  let spinner: { text: string; stop(): unknown } | undefined;

  import('ora')
    .then(({ default: ora }) => {
      if (stopped) return;
      spinner = ora({
        text: currentText,
        stream: io.stderr,
        // NO_COLOR, --no-color, FORCE_COLOR=0 (src/output/options.ts): ora's cyan otherwise.
        color: style.color ? 'cyan' : false,
        // The caller decided stderr is a terminal (io may be injected).
        isEnabled: true,
        // ora would put stdin in raw mode, which breaks `--file -` and prompts.
        discardStdin: false,
      }).start();
    })
    .catch(() => {
      // Without a spinner the command still works; nothing to report.
    });

  return {
    update(next: string) {
      currentText = sanitize(next);
      if (spinner) spinner.text = currentText;
    },
    stop() {
      stopped = true;
      if (spinner) {
        spinner.stop();
        spinner = undefined;
      }
    },
  };
}
