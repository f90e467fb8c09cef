import { codeOnly, codeWithoutStrings } from './asked-literals';
import { addedText, type ChangedText } from './changed-text';
import { escapeRegExp } from './escape-reg-exp';

/**
 * A test asked for an edge case ("add a test that sum([]) returns 0", "a test for an empty
 * string", "test that factorial(0) is 1"): the tests the step added must pass that value — an
 * empty list, an empty string, zero, null — not some other input under the edge case's name.
 */

/** The edge values a test can be asked about. */
export type EdgeKind = 'empty list' | 'empty string' | 'zero' | 'null' | 'empty object';

/** An edge case a description asks a test for: the value's kind and the function called with it, if named. */
export interface AskedEdgeCase {
  kind: EdgeKind;
  /** The call as the description wrote it (`sum([])`), or the prose (`an empty string`). */
  asked: string;
  name?: string;
}

const TEST_ASK =
  /\b(?:add|write|create|include|cover)\w*\s+(?:\w+\s+){0,3}?(?:unit\s+|regression\s+)?tests?\b|\btest\s+(?:that|for|case)\b/i;
const EDGE_CALL =
  /(?<![\w$.])([A-Za-z_$][\w$]*)\(\s*(\[\s*\]|\(\s*\)|''|""|``|0(?:\.0+)?|null|None|undefined|nil|\{\s*\})\s*\)/g;
const EDGE_PROSE =
  /\b(?:for|with|given|on|when\s+(?:passed|given))\s+(?:an?\s+|the\s+)?(empty\s+(?:list|array|string|object|dict(?:ionary)?|map)|zero|null|None|undefined)\b/gi;

function kindOf(value: string): EdgeKind | undefined {
  const v = value.replace(/\s+/g, ' ').toLowerCase();
  if (/^(?:\[ ?\]|\( ?\)|empty (?:list|array))$/.test(v)) return 'empty list';
  if (/^(?:''|""|``|empty string)$/.test(v)) return 'empty string';
  if (/^(?:0(?:\.0+)?|zero)$/.test(v)) return 'zero';
  if (/^(?:null|none|undefined|nil)$/.test(v)) return 'null';
  if (/^(?:\{ ?\}|empty (?:object|dict(?:ionary)?|map))$/.test(v)) return 'empty object';
  return undefined;
}

/** The edge cases a description asks tests for (none when it asks for no test). */
export function askedEdgeCases(description: string): AskedEdgeCase[] {
  if (!TEST_ASK.test(description)) return [];
  const cases: AskedEdgeCase[] = [];
  for (const match of description.matchAll(EDGE_CALL)) {
    const kind = kindOf(match[2] ?? '');
    if (kind !== undefined) cases.push({ kind, asked: match[0], name: match[1] ?? '' });
  }
  if (cases.length > 0) return cases;
  for (const match of description.matchAll(EDGE_PROSE)) {
    const kind = kindOf(match[1] ?? '');
    if (kind !== undefined)
      cases.push({ kind, asked: (match[1] ?? '').replace(/^/, /^empty/i.test(match[1] ?? '') ? 'an ' : '') });
  }
  return cases;
}

const VALUE: Record<EdgeKind, string> = {
  'empty list': '\\[\\s*\\]|\\b(?:list|tuple|Array)\\(\\s*\\)|new\\s+Array\\(\\s*\\)',
  'empty string': '\'\'|""|``|\\b(?:str|String)\\(\\s*\\)',
  zero: '(?<![\\w.])0(?:\\.0+)?(?![\\w.])',
  null: '\\b(?:null|None|undefined|nil)\\b',
  'empty object': '\\{\\s*\\}|\\b(?:dict|Map|Object)\\(\\s*\\)|new\\s+Map\\(\\s*\\)',
};

/**
 * Whether code passes the edge value: an empty list, string, object or a null anywhere in it (an
 * argument, a variable, a row of parameters); zero only as an argument of the named function
 * (`factorial(0)`) or first in a parameter row (`(0, 1)`).
 */
export function passesEdgeValue(code: string, edge: AskedEdgeCase): boolean {
  const value = VALUE[edge.kind];
  if (edge.kind !== 'zero') return new RegExp(value).test(code);
  // `0` is as often the expected result: only as an argument, or first in a parameter row.
  const call =
    edge.name !== undefined && edge.name !== ''
      ? new RegExp(`(?<![\\w$])${escapeRegExp(edge.name)}\\s*\\(\\s*(?:[^()]*,\\s*)?(?:${value})\\s*[,)]`)
      : new RegExp(`[(,]\\s*(?:${value})\\s*[,)]`);
  return call.test(code) || new RegExp(`[([]\\s*(?:${value})\\s*,`).test(code);
}

/** What an edge-case test asked for found instead: the test files the step changed that miss it. */
export async function edgeCaseMissed(
  changedTests: readonly ChangedText[],
  edge: AskedEdgeCase,
): Promise<string[] | undefined> {
  if (changedTests.length === 0) return undefined;
  for (const { file, before, after } of changedTests) {
    const added = addedText(before, after);
    // Strings count only for an empty string: a test named 'sum of null' passes no null.
    const code =
      edge.kind === 'empty string' ? await codeOnly(file, added) : await codeWithoutStrings(file, added);
    if (passesEdgeValue(code, edge)) return undefined;
  }
  return changedTests.map((test) => test.file);
}
