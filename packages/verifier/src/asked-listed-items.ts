import { escapeRegExp } from './escape-reg-exp';
import { findPaths } from './find-paths';

/**
 * Lists of names a request asks to put in one file ("Document the environment variables PORT,
 * HOST and LOG_LEVEL in README.md", "Add node_modules/ and dist/ to .gitignore") of which the
 * step wrote only some. Only lists whose every item reads as code or a path (backticks,
 * `ALL_CAPS`, `snake_case`, `camelCase`, `a.b`, `dir/`, `--flag`) are read: a list of plain words
 * ("error handling, logging and retries") names features, not text the file must hold.
 */

/** A list of names the request asks to write into `file`. */
export interface AskedList {
  file: string;
  items: string[];
}

const ITEM = String.raw`(?:\x60[^\x60\n]{1,60}\x60|--?[A-Za-z][\w-]*|[A-Za-z_$.][\w$.\/*-]*)`;
const VERBS = 'document|add|list|mention|describe|include|explain|declare|define|register|export';
const LIST = new RegExp(
  String.raw`\b(?:${VERBS})\s+(?:(?:the|all|every|each|these|new|missing|following)\s+)?(?:[A-Za-z-]+\s+){0,3}?(${ITEM}(?:\s*,\s*${ITEM})*\s*,?\s+and\s+${ITEM})(?:\s+(?:flags?|options?|variables?|keys?|entries|settings?|fields?|patterns?|folders?|directories|commands?|scripts?|targets?|sections?|rules?))?\s+(?:in|to|into|inside|within)\s+(?:the\s+)?(?:file\s+)?`,
  'gi',
);

/** Reads as code or a path, not as an English word. */
function codeLike(item: string): boolean {
  return (
    /^`.+`$/.test(item) ||
    /^--?[A-Za-z]/.test(item) ||
    (/^[A-Z][A-Z\d]*(?:_[A-Z\d]+)*$/.test(item) && item.length > 1) ||
    /_|[a-z\d][A-Z]|[./]/.test(item)
  );
}

/** The lists of code-like names `description` asks to write into a named file. */
export function askedLists(description: string): AskedList[] {
  const found: AskedList[] = [];
  for (const match of description.matchAll(LIST)) {
    const after = description.slice((match.index ?? 0) + match[0].length);
    const file = findPaths(after)[0];
    if (file === undefined || !/^[`'"]?$/.test(after.slice(0, file.index).trim())) continue;
    const items = (match[1] ?? '')
      .split(/\s*,\s*(?:and\s+)?|\s+and\s+/)
      .map((item) => item.trim())
      .filter((item) => item !== '');
    if (items.length >= 2 && items.every(codeLike)) found.push({ file: file.file, items });
  }
  return found;
}

/** How an item is written in a file: without backticks, and a folder with or without its slash. */
function presentIn(text: string, item: string): boolean {
  const bare = item.replace(/^`|`$/g, '').replace(/\/+$/, '');
  if (bare === '') return true;
  const escaped = escapeRegExp(bare);
  return new RegExp(`(?<![\\w$-])${escaped}(?![\\w$-])`).test(text);
}

/** The items of each asked list that `read(file)` does not hold (files that do not exist are skipped). */
export function missingListedItems(
  description: string,
  read: (file: string) => string | undefined,
): { file: string; missing: string[] }[] {
  const found: { file: string; missing: string[] }[] = [];
  for (const { file, items } of askedLists(description)) {
    const text = read(file);
    if (text === undefined) continue;
    const missing = items.filter((item) => !presentIn(text, item));
    if (missing.length > 0) found.push({ file, missing });
  }
  return found;
}
