import { codeWithoutStrings } from './asked-literals';

/**
 * A function asked to become async ("Make `load` async", "Convert `fetchUser` to an async
 * function"): after the step its definition must be async — not a doc comment saying `@async`,
 * not a body that returns a promise by its name only.
 */

const NAME = '`?([A-Za-z_$][\\w$]*(?:\\.[A-Za-z_$][\\w$]*)*)`?(?:\\(\\))?';
const ASYNC_ASK = new RegExp(
  `\\b(?:make|convert|turn|change|rewrite|refactor|port)\\s+(?:the\\s+)?(?:(?:function|method|helper)\\s+)?${NAME}(?:\\s+(?:function|method|helper))?(?:\\s+(?:in|from|of)\\s+\\S+)?\\s+(?:(?:in)?to\\s+)?(?:an?\\s+|be\\s+)?async(?:hronous)?\\b`,
  'gi',
);

/** The names of the functions a description asks to make async (the last part of `a.b`). */
export function asyncAsked(description: string): string[] {
  const names = new Set<string>();
  ASYNC_ASK.lastIndex = 0;
  for (const match of description.matchAll(ASYNC_ASK)) {
    const name = match[1]?.split('.').pop();
    if (name !== undefined && !/^(?:it|them|this|that|the|all|every|function|method|code)$/i.test(name))
      names.add(name);
  }
  return [...names];
}

const escapeName = (name: string) => name.replace(/\$/g, '\\$');

/**
 * How `text` (a JS/TS or Python file) defines `name`: `async`, `sync`, or `absent` when it does
 * not define it. Comments and strings do not count.
 */
export async function asyncDefinition(
  file: string,
  text: string,
  name: string,
): Promise<'async' | 'sync' | 'absent'> {
  if (!new RegExp(`(?<![\\w$])${escapeName(name)}(?![\\w$])`).test(text)) return 'absent';
  const code = await codeWithoutStrings(file, text);
  const n = escapeName(name);
  if (/\.py$/.test(file)) {
    if (new RegExp(`^\\s*async\\s+def\\s+${n}\\b`, 'm').test(code)) return 'async';
    return new RegExp(`^\\s*def\\s+${n}\\b`, 'm').test(code) ? 'sync' : 'absent';
  }
  if (!/\.[cm]?[jt]sx?$/.test(file)) return 'absent';
  const asyncForms = [
    `\\basync\\s+function\\s*\\*?\\s*${n}\\s*[<(]`,
    `(?<![\\w$.])${n}\\s*[:=]\\s*async\\b`,
    `^\\s*(?:(?:public|private|protected|static|override)\\s+)*async\\s+\\*?\\s*${n}\\s*[<(]`,
  ];
  if (asyncForms.some((form) => new RegExp(form, 'm').test(code))) return 'async';
  const syncForms = [
    `\\bfunction\\s*\\*?\\s*${n}\\s*[<(]`,
    `(?<![\\w$.])${n}\\s*[:=]\\s*(?:function\\b|\\([^)]*\\)\\s*(?::[^=]+)?=>|[A-Za-z_$][\\w$]*\\s*=>)`,
    `^\\s*(?:(?:public|private|protected|static|override)\\s+)*\\*?${n}\\s*\\([^)]*\\)\\s*(?::[^{]+)?\\{`,
  ];
  if (!syncForms.some((form) => new RegExp(form, 'm').test(code))) return 'absent';
  // A function that hands back a promise is asynchronous to its callers without the keyword.
  return /\breturn\s+(?:new\s+Promise\b|Promise\.\w+\(|[\w$.]+\([^;]*\)\s*\.then\()/.test(code)
    ? 'async'
    : 'sync';
}
