import { findPaths } from './find-paths';

/**
 * A file a description asks to hold exactly some text: "Create VERSION.txt containing exactly
 * `1.4.0`", "Write exactly \"ok\" to status.txt", ".nvmrc must contain exactly `20`", a fenced
 * block after "with exactly this content:". Afterwards the file must be that text byte for byte —
 * one final newline added or left off is the only freedom (editors and `echo` add one). A byte
 * order mark, CRLF line endings the text does not have, trailing spaces or extra blank lines are
 * not "exactly".
 */
export interface AskedExactContent {
  /** Workspace-relative path as the description writes it. */
  file: string;
  /** The text the file must hold. */
  text: string;
}

/** The words that ask for exact content. */
const EXACT =
  /\b(?:(?:contain(?:s|ing)?|with|hold(?:s|ing)?|reads?|reading|be|is|write|writes|writing|put|puts|set\s+to|consists?\s+of)\s+(?:only\s+)?exactly|exact(?:ly\s+the)?\s+(?:content|contents|text|bytes|line)|verbatim|byte[-\s]for[-\s]byte)\b/gi;
/** The literal right after the words: a fenced block, backticks or double quotes. */
const LITERAL_AFTER =
  /^[\s:]*(?:(?:the|this|these|following)\s+){0,2}(?:(?:text|content|contents|line|bytes|string)\s*)?[:\s]*(?:```[\w-]*\n([\s\S]*?)```|`([^`\n]+)`|"([^"\n]+)")/i;

/**
 * The files the description asks to hold exact text, each with one path in its sentence (a
 * sentence naming two files is not read: which one is meant is not clear from words alone).
 */
export function askedExactContents(description: string): AskedExactContent[] {
  const found = new Map<string, AskedExactContent>();
  EXACT.lastIndex = 0;
  for (let match = EXACT.exec(description); match !== null; match = EXACT.exec(description)) {
    const after = description.slice(match.index + match[0].length);
    const literal = LITERAL_AFTER.exec(after);
    if (literal === null) continue;
    const text = literal[1] ?? literal[2] ?? literal[3] ?? '';
    if (text === '') continue;
    // The sentence around the words, without the literal: its one path is the file.
    const start = Math.max(
      description.lastIndexOf('\n', match.index - 1),
      ...[...description.slice(0, match.index).matchAll(/[.;!?](?:\s|$)/g)].map((m) => (m.index ?? 0) + 1),
    );
    const literalEnd = match.index + match[0].length + literal[0].length;
    const tail = description.slice(literalEnd);
    const end = tail.search(/[.;!?](?:\s|$)|\n/);
    const sentence = `${description.slice(start + 1, match.index)} ${end === -1 ? tail : tail.slice(0, end)}`;
    const paths = [...new Set(findPaths(sentence).map((path) => path.file.replace(/^\.\//, '')))];
    const file = paths[0];
    if (paths.length !== 1 || file === undefined) continue;
    found.set(file, { file, text });
  }
  return [...found.values()];
}

/** Backslash escapes a description may write for the bytes (`a\nb`). */
function decodeEscapes(text: string): string {
  return text.replace(/\\([nrt\\])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t', '\\': '\\' })[c] ?? c);
}

/**
 * Why a file's content is not exactly the asked text (undefined when it is): names the first
 * difference a reader cannot see — a byte order mark, CRLF endings, trailing whitespace, extra
 * blank lines — or says that the text differs.
 */
export function exactContentProblem(content: string, asked: string): string | undefined {
  const wanted = [asked, decodeEscapes(asked)];
  const matches = (text: string) =>
    wanted.some((want) => {
      const bare = want.replace(/\n$/, '');
      return text === bare || text === `${bare}\n`;
    });
  if (matches(content)) return undefined;
  const problems: string[] = [];
  let rest = content;
  if (rest.startsWith('\uFEFF')) {
    problems.push('it starts with a byte order mark (U+FEFF)');
    rest = rest.slice(1);
  }
  if (/\r\n?/.test(rest) && !wanted.some((want) => want.includes('\r'))) {
    problems.push('its lines end in CRLF');
    rest = rest.replace(/\r\n?/g, '\n');
  }
  if (!matches(rest) && /[ \t]+$/m.test(rest) && matches(rest.replace(/[ \t]+$/gm, ''))) {
    problems.push('lines end in spaces or tabs the asked text does not have');
    rest = rest.replace(/[ \t]+$/gm, '');
  }
  if (!matches(rest) && matches(rest.replace(/\s+$/, '\n')) && /\n\s*\n$|\s$/.test(rest))
    problems.push('it ends in blank lines or whitespace after the text');
  else if (!matches(rest) && matches(rest.replace(/^\s+/, '')))
    problems.push('it starts with whitespace before the text');
  else if (!matches(rest)) problems.push('its text differs from the asked text');
  return problems.join(', ');
}
