import { codeOnly, codeWithoutStrings } from './asked-literals';
import { addedText, type ChangedText, SCRIPT_FILE } from './changed-text';

/**
 * A throw asked for ("make parse throw a ParseError when the input is empty", "raise ValueError
 * on an empty list"): the step's code must throw, not hand back `null`, `None`, `undefined` or an
 * error object; and an exact message asked for ("an Error with the message 'name is required'")
 * must be the text thrown.
 */

/** A throw a description asks for: the error type named, if any, and the exact message, if any. */
export interface AskedThrow {
  /** The error class named (`ParseError`, `ValueError`), or none for "an error". */
  type?: string;
  message?: string;
}

const ERROR_WORD = '(?:[A-Z][\\w.]*?(?:Error|Exception)|Error|Exception|(?:an?\\s+)?(?:error|exception))';
const THROW_ASK = new RegExp(
  `\\b(?:[Tt]hrows?|[Rr]aises?)\\s+(?:an?\\s+|the\\s+)?(?:new\\s+)?(${ERROR_WORD})(?:\\s*\\(\\s*(["'\`])((?:(?!\\2).){1,200})\\2\\s*\\))?`,
  'g',
);
const MESSAGE_ASK =
  /\b(?:with\s+(?:the\s+)?(?:error\s+)?message|saying|that\s+says|reading)\s*:?\s*(["'`“])((?:(?!["'`”]).){1,200})["'`”]/i;
/** "instead of throwing", "no longer raise", "should not throw": no throw asked there. */
const NOT_ASKED =
  /\b(?:not|never|no\s+longer|instead\s+of|rather\s+than|without|stop(?:s|ped)?|avoid\w*|n't|catch(?:es)?|handle[sd]?)\s+(?:\w+\s+){0,2}?(?:throw|rais)/i;

/** A description that asks for a return of nothing: the throw it mentions is not what it wants. */
const RETURN_ASKED =
  /\breturns?\s+(?:`?(?:null|None|undefined|nil|false)\b|an?\s+(?:empty|error\s+object|result))/i;
/** "so that parse throws…": the third-person form asks only after such words (else it tells what the code does now). */
const ASKS_THIRD_PERSON =
  /\b(?:so\s+(?:that\s+)?|such\s+that|ensure|make\s+sure|verify|check|now|instead)\b/i;

/** The throws a description asks for (one per clause that asks for one). */
export function askedThrows(description: string): AskedThrow[] {
  const asked: AskedThrow[] = [];
  if (RETURN_ASKED.test(description)) return [];
  for (const clause of description.split(/(?<=[.;])\s+|\n/)) {
    if (NOT_ASKED.test(clause)) continue;
    for (const match of clause.matchAll(THROW_ASK)) {
      if (/^\w+s\b/i.test(match[0]) && !ASKS_THIRD_PERSON.test(clause.slice(0, match.index))) continue;
      const word = match[1] ?? '';
      const type = /^[A-Z]/.test(word) ? word.split('.').pop() : undefined;
      const message = match[3] ?? MESSAGE_ASK.exec(clause.slice(match.index ?? 0))?.[2];
      asked.push({ ...(type ? { type } : {}), ...(message !== undefined ? { message } : {}) });
    }
  }
  return asked;
}

const THROW_STATEMENT = /(?<![\w$.])(?:throw|raise)(?![\w$])/;
/** A return that hands a failure back instead of throwing it. */
const FAILURE_RETURN =
  /(?<![\w$.])return\s*(?:;|$|(?:null|None|undefined|void\s+0|nil)\b|\{\s*['"]?(?:error|err)['"]?\s*:|new\s+\w*Error\b|\w*(?:Error|Exception)\s*\(|Err\s*\()/m;

/** What a throw asked for found instead: the file and the `return …` line added in its place. */
export interface ThrowAnsweredByReturn {
  file: string;
  line: string;
}

/**
 * Where a throw was asked and the step's changes add no `throw` / `raise` anywhere in its JS/TS
 * or Python code but do add a `return null` / `return None` / `return undefined` / a returned
 * error object: the first such added return, or none.
 */
export async function throwAnsweredByReturn(
  changed: readonly ChangedText[],
): Promise<ThrowAnsweredByReturn | undefined> {
  let found: ThrowAnsweredByReturn | undefined;
  for (const { file, before, after } of changed) {
    if (!SCRIPT_FILE.test(file)) continue;
    const added = await codeWithoutStrings(file, addedText(before, after));
    if (THROW_STATEMENT.test(added)) return undefined;
    const addedCode = (await codeOnly(file, addedText(before, after))).split('\n');
    const index = added.split('\n').findIndex((line) => FAILURE_RETURN.test(line));
    const line = index >= 0 ? addedCode[index]?.trim() : undefined;
    if (found === undefined && line !== undefined) found = { file, line };
  }
  return found;
}

/** The messages of the `throw` / `raise` statements in a code text (string arguments only). */
export function thrownMessages(code: string): string[] {
  return [
    ...code.matchAll(
      /(?<![\w$.])(?:throw|raise)\s+(?:new\s+)?[\w$.]*\s*\(\s*(?:[fr]?(["'`])((?:\\.|(?!\1)[^\\\n])*)\1)/g,
    ),
  ].map((match) => match[2] ?? '');
}

const trimmed = (message: string) => message.trim().replace(/[.!]$/, '');

/**
 * Where an exact message was asked and none of the step's changed code carries it, while the
 * step added throws with other messages: those messages (none when the message is there, or the
 * step threw nothing with a literal message).
 */
export async function otherMessagesThrown(
  changed: readonly ChangedText[],
  message: string,
): Promise<string[]> {
  const others: string[] = [];
  for (const { file, before, after } of changed) {
    if (!SCRIPT_FILE.test(file)) continue;
    const code = await codeOnly(file, after);
    if (code.includes(trimmed(message))) return [];
    others.push(...thrownMessages(await codeOnly(file, addedText(before, after))));
  }
  return others.filter((other) => trimmed(other) !== trimmed(message));
}
