/** The status tag a step's notes start with. */
export type StepNotesStatus = 'success' | 'fail' | 'none';

/** The result of {@link parseStepNotes}. */
export interface ParsedStepNotes {
  /** `fail` for `[FAIL]…`, `success` for `[SUCCESS]…`, `none` without a tag. */
  status: StepNotesStatus;
  /** The text after the tag (and its `:` and spaces), or the whole trimmed notes without a tag. */
  message: string;
}

const FAIL_TAG = '[FAIL]';
const SUCCESS_TAG = '[SUCCESS]';

function afterTag(text: string, tag: string): string {
  return text
    .slice(tag.length)
    .replace(/^\s*:?\s*/, '')
    .trim();
}

/**
 * Reads the status tag of a step's notes with `startswith` leniency: leading
 * whitespace is ignored, and `[FAIL]:`, `[FAIL] ` and `[FAIL]` followed by anything all count as
 * a failure (same for `[SUCCESS]`). Tags are case-sensitive: `[fail]` is not a tag.
 *
 * @example
 * parseStepNotes('  [FAIL]: no credentials'); // { status: 'fail', message: 'no credentials' }
 * parseStepNotes('done');                    // { status: 'none', message: 'done' }
 */
export function parseStepNotes(notes: string | undefined | null): ParsedStepNotes {
  const text = (notes ?? '').trim();
  if (text.startsWith(FAIL_TAG)) return { status: 'fail', message: afterTag(text, FAIL_TAG) };
  if (text.startsWith(SUCCESS_TAG)) return { status: 'success', message: afterTag(text, SUCCESS_TAG) };
  return { status: 'none', message: text };
}

/**
 * Writes notes in the tagged format `parseStepNotes` reads: `[SUCCESS]: message`,
 * `[FAIL]: message`, or the bare message for `none`.
 */
export function formatStepNotes(status: StepNotesStatus, message: string): string {
  const text = message.trim();
  if (status === 'none') return text;
  const tag = status === 'fail' ? FAIL_TAG : SUCCESS_TAG;
  return text === '' ? `${tag}:` : `${tag}: ${text}`;
}
