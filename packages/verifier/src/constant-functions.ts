/**
 * Functions that return a constant whatever their arguments, read from the text of languages the
 * verifier has no parser for (Go, Rust, Java, C#, Kotlin, Swift, C/C++, PHP, Scala, Dart, Ruby):
 * `func Fibonacci(n int) int { return 55 }`, `fn factorial(n: u64) -> u64 { 120 }`,
 * `fun area(r: Double) = 3.14`, `def total(items)\n  0\nend`. The JS/TS and Python syntax trees
 * are read by `hollow-code` instead.
 */
import { escapeRegExp } from './escape-reg-exp';

/** Source files read here (the ones without a parser). */
export const TEXT_ONLY_CODE = /\.(?:go|rs|java|cs|kt|kts|swift|c|cc|cpp|cxx|h|hpp|php|scala|dart|rb)$/i;

/** A literal: a number, a string or char, a boolean, a null. */
const LITERAL =
  /^(?:-?(?:0[xob][\da-f_]+|\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?)(?:[a-z]\w*)?|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`|true|false|nil|null|None|NULL|nullptr|String::new\(\)|Vec::new\(\)|vec!\[\]|\[\]|\{\}|""\.to_string\(\)|"[^"\n]*"\.to_string\(\)|"[^"\n]*"\.into\(\))$/i;

/** Returns that are a no-op's, not an answer. */
const NO_OP = /^(?:nil|null|None|NULL|nullptr)$/;

/** A function that returns a constant whatever its arguments. */
export interface ConstantFunction {
  name: string;
  /** 1-based line of the declaration. */
  line: number;
  /** The constant returned. */
  value: string;
}

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:"'])\/\/[^\n]*/g, '$1');
}

/** The index after the bracket that closes the one at `open`, skipping strings; -1 if none. */
function closing(text: string, open: number): number {
  const pair: Record<string, string> = { '(': ')', '{': '}', '[': ']' };
  const opener = text[open] ?? '';
  const closer = pair[opener];
  if (closer === undefined) return -1;
  let depth = 0;
  for (let at = open; at < text.length; at++) {
    const char = text[at];
    if (char === '"' || (char === '`' && opener !== '`')) {
      const end = text.indexOf(char, at + 1);
      if (end === -1) return -1;
      at = end;
      continue;
    }
    if (char === opener) depth++;
    else if (char === closer && --depth === 0) return at + 1;
  }
  return -1;
}

/** Parameters that name at least one argument (not `()`, `(void)`, `(&self)` alone). */
function takesArguments(params: string): boolean {
  const inner = params.slice(1, -1).trim();
  return inner !== '' && !/^(?:void|&?\s*(?:mut\s+)?self|this)$/.test(inner);
}

/** The body's one statement when it returns (or is) a literal: `return 55;`, `120`, `55`. */
function constantOf(body: string): string | undefined {
  const statement = body.trim().replace(/;\s*$/, '').trim();
  const value = /^return\s+([\s\S]+)$/.exec(statement)?.[1]?.trim() ?? statement;
  if (/[;\n]/.test(value) && !/^(?:"[^"]*"|'[^']*')$/.test(value)) return undefined;
  return LITERAL.test(value) ? value : undefined;
}

/**
 * The functions named `names` in `text` whose body only returns a literal although they take
 * arguments. Names are matched as declarations (`func X(`, `fn X(`, `def X(`, `int X(`…), not calls.
 *
 * @example
 * constantFunctions('fib.go', 'func Fib(n int) int {\n\treturn 55\n}\n', ['Fib']);
 * // [{ name: 'Fib', line: 1, value: '55' }]
 */
export function constantFunctions(
  fileName: string,
  text: string,
  names: readonly string[],
): ConstantFunction[] {
  if (!TEXT_ONLY_CODE.test(fileName)) return [];
  const ruby = /\.rb$/i.test(fileName);
  const source = ruby ? text.replace(/(^|\s)#[^\n]*/g, '$1') : stripComments(text);
  const found: ConstantFunction[] = [];
  for (const name of new Set(names)) {
    if (!/^[A-Za-z_][\w]*$/.test(name)) continue;
    const declaration = new RegExp(
      `(?:\\b(?:func|fn|fun|function|def)\\s+(?:\\([^)]*\\)\\s*)?|\\b[\\w<>\\[\\],.?*&:]+\\s+[*&]?)${name}\\s*(?:<[^>()]*>)?\\s*(?=\\()`,
      'g',
    );
    for (let match = declaration.exec(source); match !== null; match = declaration.exec(source)) {
      if (/^(?:return|new|else|throw|await|yield)\s/.test(match[0])) continue;
      const open = match.index + match[0].length;
      const paramsEnd = closing(source, open);
      if (paramsEnd === -1) continue;
      const params = source.slice(open, paramsEnd);
      if (!takesArguments(params)) continue;
      const line = source.slice(0, match.index).split('\n').length;
      const rest = source.slice(paramsEnd);
      let body: string | undefined;
      if (ruby) {
        const lines = rest.split('\n').slice(1);
        const end = lines.findIndex((item) => /^\s*end\b/.test(item));
        body = end === -1 ? undefined : lines.slice(0, end).join('\n');
      } else {
        // `fun area(r: Double) = 3.14`, `=> 0` (C#, Dart, Scala): an expression body.
        const expression = /^\s*(?::\s*[^={;\n]+)?\s*(?:=>?|->\s*[^={;\n]+=)\s*([^;\n{]+);?\s*(?:\n|$)/.exec(
          rest,
        );
        if (expression?.[1] !== undefined && !/^\s*(?:->|:)\s*[^=]*\{/.test(rest)) body = expression[1];
        else {
          const brace = rest.search(/[{;]/);
          if (brace === -1 || rest[brace] !== '{') continue;
          const end = closing(rest, brace);
          if (end === -1) continue;
          body = rest.slice(brace + 1, end - 1);
        }
      }
      if (body === undefined) continue;
      const value = constantOf(body);
      // `return nil` / `null`: the no-op of an interface method (`Close() error`), not a computation.
      if (value !== undefined && !NO_OP.test(value)) found.push({ name, line, value });
    }
  }
  return found;
}

/**
 * Whether the request itself asks for that constant ("returns 8080", "always returns true",
 * "should be 0"), not only shows it as an example's result ("Fib(10) is 55").
 */
export function constantAsked(value: string, description: string): boolean {
  const words = value.replace(/^(['"`])([\s\S]*)\1$/, '$2').replace(/\.to_string\(\)|\.into\(\)$/, '');
  if (words.trim() === '') return false;
  const escaped = escapeRegExp(words);
  return new RegExp(
    `\\b(?:returns?|returning|always|be|equals?|constant|fixed)\\s+(?:the\\s+)?(?:value\\s+|constant\\s+)?[\`'"]?${escaped}(?![\\w.])`,
    'i',
  ).test(description);
}
