import xterm from '@xterm/headless';

/**
 * A terminal emulator in memory (xterm.js, headless) of a fixed size: what a user would see,
 * scrollback included, after a program wrote its output to a real terminal. `\n` is treated
 * like a pty does (carriage return + line feed).
 */
export interface VirtualTerminal {
  /** A stream-like sink for the code under test, reporting the terminal's size. */
  stream: { write(text: string): boolean; columns: number; rows: number; isTTY: true };
  /** Every line of the buffer (scrollback + screen), right-trimmed; wrapped rows are joined. */
  lines(): Promise<string[]>;
  dispose(): void;
}

export function createVirtualTerminal(options: { columns: number; rows: number }): VirtualTerminal {
  const terminal = new xterm.Terminal({
    cols: options.columns,
    rows: options.rows,
    scrollback: 100_000,
    convertEol: true,
    allowProposedApi: true,
  });
  let written = Promise.resolve();
  return {
    stream: {
      write(text) {
        written = written.then(() => new Promise<void>((resolve) => terminal.write(text, resolve)));
        return true;
      },
      columns: options.columns,
      rows: options.rows,
      isTTY: true,
    },
    async lines() {
      await written;
      const buffer = terminal.buffer.active;
      const lines: string[] = [];
      for (let index = 0; index < buffer.length; index++) {
        const line = buffer.getLine(index);
        if (!line) continue;
        const text = line.translateToString(true);
        if (line.isWrapped && lines.length) lines[lines.length - 1] += text;
        else lines.push(text);
      }
      while (lines.length && lines.at(-1) === '') lines.pop();
      return lines;
    },
    dispose() {
      terminal.dispose();
    },
  };
}
