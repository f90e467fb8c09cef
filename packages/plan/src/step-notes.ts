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

/**
 * Whether `text` starts with `tag`, read the way a person reads it: full-width look-alikes
 * (`［FAIL］`, `ＦＡＩＬ`) count as the ASCII tag (NFKC maps each to one ASCII character).
 */
function startsWithTag(text: string, tag: string): boolean {
  return text.slice(0, tag.length).normalize('NFKC') === tag;
}

function afterTag(text: string, tag: string): string {
  return text
    .slice(tag.length)
    .replace(/^\s*[:：]?\s*/, '')
    .trim();
}

/**
 * Reads the status tag of a step's notes with `startswith` leniency: leading
 * whitespace is ignored, and `[FAIL]:`, `[FAIL] ` and `[FAIL]` followed by anything all count as
 * a failure (same for `[SUCCESS]`). Invisible format characters before the tag (a zero-width space,
 * a byte order mark) are ignored too, and full-width brackets or letters (`［FAIL］`) read as the
 * tag: notes must not hide a `[FAIL]` from the parser that a reader sees. Tags are case-sensitive:
 * `[fail]` is not a tag.
 *
 * @example
 * parseStepNotes('  [FAIL]: no credentials'); // { status: 'fail', message: 'no credentials' }
 * parseStepNotes('done');                    // { status: 'none', message: 'done' }
 */
export function parseStepNotes(notes: string | undefined | null): ParsedStepNotes {
  const text = (notes ?? '').replace(/^[\s\p{Cf}]+/u, '').trim();
  if (startsWithTag(text, FAIL_TAG)) return { status: 'fail', message: afterTag(text, FAIL_TAG) };
  if (startsWithTag(text, SUCCESS_TAG)) return { status: 'success', message: afterTag(text, SUCCESS_TAG) };
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
