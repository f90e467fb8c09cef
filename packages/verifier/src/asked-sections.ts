import { findPaths } from './find-paths';

/**
 * A document section a description asks to add ("Add a Usage section to README.md that explains
 * …") is there only when its heading has content: a heading alone, or one followed by nothing
 * but other headings, is an empty section.
 */

/** One section the description asks to add, in the markdown files named with it. */
export interface AskedSection {
  /** The section's title as written ("Usage"). */
  title: string;
  /** Markdown files named in the same sentence. */
  files: string[];
}

const TITLE = String.raw`(?:"(?<t1>[^"\n]{1,60})"|\x60(?<t2>[^\x60\n]{1,60})\x60|'(?<t3>[^'\n]{1,60})'|(?<t4>[A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,3}))`;
/** "add a Usage section", "add a new "Getting started" section", "write an Installation section". */
const SECTION = new RegExp(
  String.raw`\b(?:[Aa]dd|[Ww]rite|[Cc]reate|[Ii]nclude|[Dd]ocument)\w*\s+(?:a|an|the)\s+(?:new\s+)?${TITLE}\s+(?:section|heading|chapter)\b`,
  'g',
);
const MARKDOWN = /\.(?:md|mdx|markdown)$/i;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;

/** The sections the description asks to add to markdown files it names. */
export function askedSections(description: string): AskedSection[] {
  const found: AskedSection[] = [];
  for (const sentence of description.split(/[.;!?\n](?:\s|$)/)) {
    const files = findPaths(sentence)
      .map((path) => path.file)
      .filter((file) => MARKDOWN.test(file));
    if (files.length === 0) continue;
    for (const match of sentence.matchAll(SECTION)) {
      const groups = match.groups ?? {};
      const title = groups.t1 ?? groups.t2 ?? groups.t3 ?? groups.t4;
      if (title !== undefined) found.push({ title: title.trim(), files });
    }
  }
  return found;
}

const normal = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * How the section titled `title` reads in a markdown `text`: `'missing'` when no heading has that
 * title, `'empty'` when every heading of it holds nothing but blank lines and other headings up
 * to the next heading of its level or above, `'filled'` otherwise. Code fences count as content.
 */
export function sectionContent(text: string, title: string): 'missing' | 'empty' | 'filled' {
  const lines = text.split('\n');
  const wanted = normal(title);
  let seen = false;
  let fenced = false;
  const headings: { index: number; level: number; title: string }[] = [];
  for (const [index, line] of lines.entries()) {
    if (/^\s{0,3}(?:```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : HEADING.exec(line);
    if (heading !== null) headings.push({ index, level: heading[1]?.length ?? 1, title: heading[2] ?? '' });
  }
  for (const [n, heading] of headings.entries()) {
    if (normal(heading.title) !== wanted) continue;
    seen = true;
    const end = headings.slice(n + 1).find((next) => next.level <= heading.level)?.index ?? lines.length;
    const inner = new Set(headings.map((h) => h.index));
    const body = lines.slice(heading.index + 1, end).filter((_line, i) => !inner.has(heading.index + 1 + i));
    if (body.some((line) => line.trim() !== '')) return 'filled';
  }
  return seen ? 'empty' : 'missing';
}
