import { codeWithoutStrings } from './asked-literals';
import { findPaths } from './find-paths';

/**
 * A name a description asks to be used in a named file: "Add `sanitize(text)` to src/util.js and
 * use it in src/server.js", "call `audit()` from app/views.py", "wire `rateLimit` into
 * src/app.js". Afterwards that file's code must refer to the name beyond importing it — a helper
 * written and imported but never called is not wired in. Packages ("install `left-pad` and use it
 * in …") are not read: their name is a module string, not a reference.
 */
export interface AskedUse {
  /** The name (last segment of a dotted one). */
  name: string;
  /** The file it must be used in, as the description writes it. */
  file: string;
}

const NAME = '`([A-Za-z_$][\\w$.]*)(?:\\([^`]*\\))?`';
const USE_VERB = '(?:use|call|invoke|apply|wire(?:\\s+up)?|hook(?:\\s+up)?|plug)';
const INTO = '\\s+(?:in|into|from|inside|within|to)\\s+(?:the\\s+)?(?:file\\s+)?';
/** "`X` … and use it in", "use `X` in", "wire `X` into". */
const ASKED_USES = [
  new RegExp(`${NAME}[^;\\n\`]*?\\b(?:and|then)\\s+${USE_VERB}\\s+it${INTO}`, 'gi'),
  new RegExp(`\\b${USE_VERB}\\s+${NAME}${INTO}`, 'gi'),
];
/** A sentence about a package: its name is a module string, not a reference. */
const PACKAGE_WORDS = /\b(?:install|package|dependency|library|module|npm|pnpm|yarn|pip|crate|gem)\b/i;

/** The names the description asks to be used in a named file. */
export function askedUses(description: string): AskedUse[] {
  const found = new Map<string, AskedUse>();
  for (const sentence of description.split(/[.;!?](?:\s|$)|\n/)) {
    if (PACKAGE_WORDS.test(sentence)) continue;
    for (const pattern of ASKED_USES) {
      pattern.lastIndex = 0;
      for (let match = pattern.exec(sentence); match !== null; match = pattern.exec(sentence)) {
        const rest = sentence.slice(match.index + match[0].length);
        const path = findPaths(rest)[0];
        if (path === undefined || path.index > 2) continue;
        const name = (match[1] ?? '').split('.').pop() ?? '';
        if (name === '' || /^(?:it|this|that)$/i.test(name)) continue;
        found.set(`${name}\u0000${path.file}`, { name, file: path.file.replace(/^\.\//, '') });
      }
    }
  }
  return [...found.values()];
}

/** Import statements: JS `import … from …;` / `import …;`, `require(…)` bindings, Python imports. */
const IMPORTS =
  /^[ \t]*import\s[^;]*?\bfrom\b[^;\n]*;?[ \t]*$|^[ \t]*import[ \t]*;?[ \t]*$|^[ \t]*(?:const|let|var)\s[^;=]*=\s*require\s*\([^)]*\)[ \t]*;?[ \t]*$|^[ \t]*from\s+\S+\s+import\s+(?:\([^)]*\)|[^\n]*)$|^[ \t]*import\s+[\w., \t]+$/gm;

/**
 * Whether the file's code refers to `name` beyond importing it (comments and strings do not
 * count), or defines nothing but an import of it.
 */
export async function usesName(file: string, text: string, name: string): Promise<boolean> {
  const code = (await codeWithoutStrings(file, text)).replace(IMPORTS, '');
  const escaped = name.replace(/[$]/g, '\\$');
  return new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`).test(code);
}
