/**
 * Rows a description asks to take out of a data file — "Remove the row for Bob from
 * data/people.csv", "Delete the line with `DEBUG=1` from config/dev.env" — must be gone from that file
 * afterwards: a step that removed another row, or none, and says it removed this one did not.
 */
import { escapeRegExp } from './escape-reg-exp';

/** A row to remove: the value that marks it, and the file it is to leave. */
export interface AskedRowRemoval {
  /** The text that marks the row (`Bob`, `DEBUG=1`). */
  value: string;
  file: string;
}

const ROW_REMOVAL =
  /\b(?:remove|delete|drop|strip)\s+(?:the\s+)?(?:row|line|record|entry)\s+(?:for|of|with|containing|about|that\s+(?:has|holds|contains))\s+(?:`([^`\n]{1,80})`|"([^"\n]{1,80})"|'([^'\n]{1,80})'|([\p{L}\d][\p{L}\d_.@-]{0,60}))\s+(?:from|in|out\s+of)\s+(?:the\s+)?`?([\w./-]+\.(?:csv|tsv|txt|env|list|lst|dat|psv|ya?ml|ini|properties))`?/iu;

/** The rows the description asks to remove from a named data file. */
export function askedRowRemovals(description: string): AskedRowRemoval[] {
  const found: AskedRowRemoval[] = [];
  for (const sentence of description.split(/[.;!?\n](?:\s|$)/)) {
    const match = ROW_REMOVAL.exec(sentence);
    const value = match?.[1] ?? match?.[2] ?? match?.[3] ?? match?.[4];
    const file = match?.[5];
    if (value !== undefined && file !== undefined) found.push({ value, file });
  }
  return found;
}

/**
 * The lines of `text` that still hold the row's value as a whole field or word (not inside a
 * longer word: removing `Bob` keeps `Bobby`), 1-based.
 */
export function rowsLeft(text: string, value: string): number[] {
  const word = new RegExp(`(?<![\\p{L}\\d_])${escapeRegExp(value)}(?![\\p{L}\\d_])`, 'iu');
  return text
    .split('\n')
    .flatMap((line, index) => (word.test(line) && !/^\s*#/.test(line) ? [index + 1] : []));
}
