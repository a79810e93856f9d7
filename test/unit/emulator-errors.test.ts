// The emulator reports a failure of its own as the CLI reports errors (issue 25 §12):
// "error: ..." in lower case, then indented lines, never Node's "Error: ...".
import { describe, expect, it } from 'vitest';
import { reportInternalError } from '../../src/emulator/reply.js';

describe('the emulator internal error report', () => {
  it('starts with "error:" and indents the stack by two spaces', () => {
    let text = '';
    reportInternalError(new TypeError('boom'), (t) => (text += t));
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('error: emulator: internal error: boom');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines.slice(1)) expect(line).toMatch(/^ {2}at /);
    expect(text).not.toMatch(/^Error/m);
    expect(text).not.toContain('TypeError');
  });

  it('reports a thrown non-Error on one line', () => {
    let text = '';
    reportInternalError('plain', (t) => (text += t));
    expect(text).toBe('error: emulator: internal error: plain\n');
  });
});
