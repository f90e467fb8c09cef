import { describe, expect, it } from 'vitest';
import { parseShownJson, revealBidiControls } from './bidi-controls';
import { terminalSafe } from './terminal-safe';

describe('bidirectional controls in what the page shows', () => {
  it('are made visible in every string of a server answer, nested ones too', () => {
    const event = {
      type: 'approval-requested',
      seq: 7,
      approved: false,
      question: {
        title: 'Run \u202E~ fr- mr',
        call: { tool: 'run_command', args: { argv: ['echo', 'a\u2066b\u2069'] } },
      },
      lines: ['ok', 'txt.exe\u202Bx', null],
    };
    expect(parseShownJson(JSON.stringify(event))).toEqual({
      type: 'approval-requested',
      seq: 7,
      approved: false,
      question: {
        title: 'Run \ufffd~ fr- mr',
        call: { tool: 'run_command', args: { argv: ['echo', 'a\ufffdb\ufffd'] } },
      },
      lines: ['ok', 'txt.exe\ufffdx', null],
    });
  });

  it('leaves other text as it is (line breaks, tabs, other scripts, emoji)', () => {
    const text = 'line 1\nline\t2 — שלום مرحبا 日本 ✓ 🚀';
    expect(revealBidiControls(text)).toBe(text);
    expect(parseShownJson(JSON.stringify({ text }))).toEqual({ text });
  });

  it('are what the terminal replaces too (one list for both views)', () => {
    for (const control of ['\u061c', '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069']) {
      expect(revealBidiControls(`a${control}b`)).toBe('a\ufffdb');
      expect(terminalSafe(`a${control}b`)).toBe('a\ufffdb');
    }
  });
});
