// Prose lines wrapped at a terminal's width (src/util/wrap.ts): the summary
// lines of report and verify, the help text and the status legend.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wrapHanging } from '../../src/util/wrap.js';

describe('wrapHanging', () => {
  it('keeps the words and their order, fits every line that can fit, and indents the lines after the first', () => {
    const word = fc.stringMatching(/^[a-z0-9%;:,.()-]{1,14}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 40 }), fc.integer({ min: 20, max: 200 }), fc.constantFrom('', '  '), (words, width, lead) => {
        const text = lead + words.join(' ');
        const lines = wrapHanging(text, width);
        expect(lines.join(' ').split(/ +/).filter(Boolean)).toEqual(words);
        expect(lines[0]!.startsWith(lead)).toBe(true);
        for (const line of lines.slice(1)) expect(line.startsWith(`${lead}  `) && line[lead.length + 2] !== ' ').toBe(true);
        // A line runs past the width only when it holds one word that alone is too wide.
        for (const line of lines) if (line.length > width) expect(line.trim().split(' ')).toHaveLength(1);
        if (text.length <= width) expect(lines).toEqual([text]);
      }),
    );
  });

  it('leaves piped text (an infinite width) as it is', () => {
    const text = 'Jobs: 8 jobs, 330 expected runs, 310 completed, 3 with errors, 7 failed, 10 missed; success 93.9%';
    expect(wrapHanging(text, Infinity)).toEqual([text]);
    expect(wrapHanging(text, 60)).toEqual(['Jobs: 8 jobs, 330 expected runs, 310 completed, 3 with', '  errors, 7 failed, 10 missed; success 93.9%']);
  });
});
