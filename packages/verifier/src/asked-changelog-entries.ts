import { findPaths } from './find-paths';

/**
 * A changelog entry asked under one version ("Add an entry under 1.2.0 in CHANGELOG.md", "add …
 * to the 1.1.0 section") belongs under that version's heading: lines added under another
 * version's heading tell readers of that release about a change it does not have.
 */

/** One changelog entry the description asks for under a version. */
export interface AskedChangelogEntry {
  /** The version as written, without a leading `v` ("1.2.0"). */
  version: string;
  /** Changelog files named in the same sentence (none: any changelog the step changed). */
  files: string[];
}

const VERSION = String.raw`v?(?<version>\d+\.\d+(?:\.\d+)?(?:-[\w.]+)?)`;
/** "under 1.2.0", "to the 1.1.0 section", "for version 2.0.0", "in the [1.2.0] heading". */
const UNDER_VERSION = new RegExp(
  String.raw`\b(?:under|to|in|into|for)\s+(?:the\s+)?(?:version\s+|release\s+)?\[?${VERSION}\]?(?:\s+(?:section|heading|release|entry|notes))?\b`,
  'i',
);
/** Files (or words) that say the sentence is about a changelog. */
export const CHANGELOG_FILE =
  /(?:^|\/)(?:CHANGELOG|CHANGES|HISTORY|NEWS|RELEASES?)(?:\.(?:md|markdown|txt|rst))?$/i;
const ABOUT_CHANGELOG = /\b(?:changelog|change\s+log|release\s+notes)\b/i;
const ENTRY = /\b(?:add|write|record|note|list|put|insert|document)\w*\b/i;
/** A heading that opens a release's section: `## 1.2.0`, `## [1.2.0] - 2026-01-01`, `## v1.2.0`, `## Unreleased`. */
const RELEASE_HEADING = /^\s{0,3}#{1,6}\s+.*?(?:\bv?(\d+\.\d+(?:\.\d+)?(?:-[\w.]+)?)\b|\b(unreleased)\b)/i;

/** The changelog entries the description asks for under a named version. */
export function askedChangelogEntries(description: string): AskedChangelogEntry[] {
  const found: AskedChangelogEntry[] = [];
  for (const sentence of description.split(/[;!?\n](?:\s|$)|\.(?:\s|$)/)) {
    const files = findPaths(sentence)
      .map((path) => path.file)
      .filter((file) => CHANGELOG_FILE.test(file));
    if (files.length === 0 && !ABOUT_CHANGELOG.test(sentence)) continue;
    if (!ENTRY.test(sentence)) continue;
    const version = UNDER_VERSION.exec(sentence)?.groups?.version;
    if (version !== undefined) found.push({ version, files });
  }
  return found;
}

/**
 * The lines `after` adds to a changelog (`before` absent: every line), each with the release
 * heading it lies under (`''` above any), headings and blank lines left out.
 */
export function addedChangelogLines(
  before: string | undefined,
  after: string,
): { line: number; text: string; release: string }[] {
  const old = new Map<string, number>();
  for (const line of before?.split('\n') ?? []) old.set(line, (old.get(line) ?? 0) + 1);
  const added: { line: number; text: string; release: string }[] = [];
  let release = '';
  for (const [index, line] of after.split('\n').entries()) {
    const heading = RELEASE_HEADING.exec(line);
    if (heading !== null) release = (heading[1] ?? heading[2] ?? '').toLowerCase();
    const left = old.get(line) ?? 0;
    if (left > 0) {
      old.set(line, left - 1);
      continue;
    }
    if (line.trim() === '' || /^\s{0,3}#/.test(line)) continue;
    added.push({ line: index + 1, text: line.trim(), release });
  }
  return added;
}
