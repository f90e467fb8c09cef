import { findPaths } from './find-paths';

/**
 * A fact a step is asked to check ("Check that src/a.js exports `double`", "Verify src/cli.js
 * defines `main()`", "Confirm that README.md contains \"Installation\""): a step that reports
 * success has answered yes, and the verifier can test the answer itself.
 */
export type AskedFact =
  | { kind: 'symbol'; file: string; name: string; exported: boolean }
  | { kind: 'text'; file: string; text: string };

const CHECK =
  /\b(?:check|verify|confirm|ensure|make\s+sure|double-check|assert)\s+(?:that\s+)?(?!whether\b|if\b)/gi;
const CLAUSE =
  /^(?:the\s+file\s+)?[`'"]?(?<file>[^\s`'"]+)[`'"]?\s+(?:still\s+|now\s+|already\s+|really\s+|actually\s+)?(?<verb>exports|defines|declares|contains|has|includes)\s+(?:a\s+|an\s+|the\s+)?(?:(?:function|class|method|const(?:ant)?|variable|type|interface|helper|symbol)\s+)?(?:`(?<code>[^`\n]{1,80})`|"(?<prose>[^"\n]{1,80})"|(?<bare>[A-Za-z_$][\w$]*)\(\)|(?<named>[A-Za-z_$][\w$]*)\s+(?:function|class|method|helper|constant|type)\b)/i;

/** The facts the description asks to check, each about one named file. */
export function askedFacts(description: string): AskedFact[] {
  const facts: AskedFact[] = [];
  for (const match of description.matchAll(CHECK)) {
    const clause = CLAUSE.exec(description.slice((match.index ?? 0) + match[0].length));
    const groups = clause?.groups;
    if (groups === undefined) continue;
    const file = findPaths(` ${groups.file} `)[0]?.file;
    if (file === undefined) continue;
    const verb = (groups.verb ?? '').toLowerCase();
    const name = groups.code ?? groups.bare ?? groups.named;
    if (
      name !== undefined &&
      /^[A-Za-z_$][\w$]*(?:\(\))?$/.test(name) &&
      verb !== 'contains' &&
      verb !== 'includes'
    )
      facts.push({ kind: 'symbol', file, name: name.replace(/\(\)$/, ''), exported: verb === 'exports' });
    else if (name !== undefined || groups.prose !== undefined)
      facts.push({ kind: 'text', file, text: (groups.prose ?? name ?? '').trim() });
  }
  return facts;
}
