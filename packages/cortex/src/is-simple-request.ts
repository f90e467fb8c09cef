const sequencingWords =
  /\b(?:then|after|afterwards|before|next|finally|first|firstly|second|secondly|third|also|and|once|until|while|followed|steps?|plan)\b|然[後后]|接[著着]|之[後后]|最[後后]|首先|其次|再|並且|并且|同[時时]|以及|步[驟骤]/i;

/**
 * The cheap deterministic heuristic of `planning: 'auto'`: true when the request looks like one
 * obvious action, so it runs as a single step with no planner call. A request is simple when
 * all of these hold:
 *
 * - at most 160 characters and 24 words, on one line;
 * - at most one sentence (no `.`/`!`/`?`/`。` before its end), no `;`, at most one comma;
 * - no list markers (`1.`, `-`, `*`, `•`);
 * - no sequencing or joining words: then, after, before, next, finally, first…, also, and, once,
 *   until, while, followed, step(s), plan, and their Chinese counterparts (然後, 接著, 之後,
 *   最後, 首先, 其次, 再, 並且, 同時, 以及, 步驟).
 *
 * When in doubt it answers false (plan), which costs a planner call but never loses structure.
 *
 * @example
 * isSimpleRequest('Create hello.txt containing "hi"'); // true
 * isSimpleRequest('Write the parser, then add tests'); // false
 */
export function isSimpleRequest(request: string): boolean {
  const text = request.trim();
  if (text.length === 0 || text.length > 160 || /[\r\n]/.test(text)) return false;
  if (text.split(/\s+/).length > 24) return false;
  if (/[;；]/.test(text)) return false;
  if ((text.match(/[,，、]/g) ?? []).length > 1) return false;
  if (/^\s*(?:\d+[.)]|[-*•])\s/.test(text)) return false;
  // A sentence end followed by more text means more than one sentence.
  if (/[.!?。！？](?=\s+\S)/.test(text.replace(/\b\w+\.\w+\b/g, 'file'))) return false;
  return !sequencingWords.test(text);
}
