import { findPaths } from './find-paths';

/**
 * Constants a description asks for with their values ("Add MAX_RETRIES = 5 and TIMEOUT_MS = 3000
 * to src/config.ts", "`PAGE_SIZE = 50` in app/settings.py") hold those values only when their
 * definitions do: `MAX_RETRIES = 3` is another constant, and `PAGE_SIZE = '50'` is the text, not
 * the number.
 */

/** One constant the description asks to define with a value. */
export interface AskedConstantValue {
  name: string;
  /** The value as written (`5`, `'info'`, `true`). */
  value: string;
  /** Code files named in the same sentence (none: whichever the step changed). */
  files: string[];
}

/** `NAME = VALUE` with an upper-case name and a literal value. */
const CONSTANT =
  /(?<![\w.])(?<name>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{3,})\s*(?::\s*[\w<>[\]| ]+?\s*)?=\s*(?<value>-?\d[\d_]*(?:\.\d+)?|"[^"\n]*"|'[^'\n]*'|true|false|True|False)(?![\w.])/g;
export const CONSTANT_FILE = /\.(?:[cm]?[jt]sx?|py)$/i;

/** The constants the description asks to define with a value. */
export function askedConstantValues(description: string): AskedConstantValue[] {
  const found: AskedConstantValue[] = [];
  for (const sentence of description.split(/[;!?\n](?:\s|$)|\.(?:\s|$)/)) {
    const files = findPaths(sentence)
      .map((path) => path.file)
      .filter((file) => CONSTANT_FILE.test(file));
    for (const match of sentence.matchAll(CONSTANT)) {
      const { name, value } = match.groups ?? {};
      if (name !== undefined && value !== undefined) found.push({ name, value, files });
    }
  }
  return found;
}

/** The value `name` is defined with in a JS/TS or Python `text`, as written; undefined when not defined there. */
export function constantDefinition(
  file: string,
  text: string,
  name: string,
): { value: string; line: number } | undefined {
  const definition = /\.py$/i.test(file)
    ? new RegExp(String.raw`^[ \t]*${name}\s*(?::[^=\n]+)?=\s*(?<value>[^#\n]+)`, 'm')
    : new RegExp(String.raw`\b(?:const|let|var)\s+${name}\s*(?::[^=\n]+)?=\s*(?<value>[^;\n]+)`);
  const match = definition.exec(text);
  const value = match?.groups?.value;
  if (match === null || value === undefined) return undefined;
  return {
    value: value
      .replace(/\s+as\s+const\s*$/, '')
      .replace(/\s*\/\/.*$/, '')
      .trim(),
    line: text.slice(0, match.index + match[0].indexOf(name)).split('\n').length,
  };
}

const literal = (text: string): { kind: 'number' | 'text' | 'boolean' | 'other'; value: string } => {
  if (/^-?\d[\d_]*(?:\.\d+)?$/.test(text))
    return { kind: 'number', value: String(Number(text.replaceAll('_', ''))) };
  const quoted = /^(["'`])(.*)\1$/.exec(text);
  if (quoted !== null) return { kind: 'text', value: quoted[2] ?? '' };
  if (/^(?:true|false)$/i.test(text)) return { kind: 'boolean', value: text.toLowerCase() };
  return { kind: 'other', value: text };
};

/**
 * Why a definition's value is not the asked one (`'3'`, `the text '50'`), or undefined when it is
 * (or is an expression that may compute it: `60 * 1000`).
 */
export function constantMismatch(actual: string, asked: string): string | undefined {
  const have = literal(actual);
  const want = literal(asked);
  if (have.kind === 'other') return undefined;
  if (have.kind === want.kind && have.value === want.value) return undefined;
  if (have.value === want.value) return `the ${have.kind} ${actual}, not the ${want.kind} ${asked}`;
  return actual;
}
