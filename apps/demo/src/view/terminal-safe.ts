import { bidiControls } from './bidi-controls';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/g;

function visible(character: string): string {
  if (character === '\u001b') return '␛';
  if (character === '\t' || character === '\n' || character === '\r') return ' ';
  if (character === '\u2028' || character === '\u2029') return ' ';
  return '\ufffd';
}

/**
 * `text` (a step title, a finding, a tool call: what a model or a command wrote) as one line that
 * a terminal shows and never obeys: line breaks and tabs become spaces, ESC a visible `␛`, the
 * other C0 and C1 controls and the bidirectional overrides, embeddings, isolates and marks `�`.
 * Otherwise an escape sequence in a step title would set the user's clipboard (OSC 52), clear the
 * screen or forge a line such as `✓ … verified`, and an override would show text reversed.
 */
export function terminalSafe(text: string): string {
  return text.replace(controlCharacters, visible).replace(bidiControls, visible);
}

/**
 * {@link terminalSafe} for text of several lines (a run's answer): its line breaks (`\n`, `\r\n`)
 * and tabs are kept; a carriage return alone (which would let the rest of a line overwrite its
 * start) becomes a space, and everything else is replaced as `terminalSafe` does.
 */
export function terminalSafeLines(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => line.split('\t').map(terminalSafe).join('\t'))
    .join('\n');
}
