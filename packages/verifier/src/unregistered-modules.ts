import { readdirSync } from 'node:fs';
import path from 'node:path';
import { codeOnly } from './asked-literals';
import { escapeRegExp } from './escape-reg-exp';
import { TEST_FILE } from './workspace-snapshot';

/**
 * A module of a kind that only runs once registered — a migration, a route, a plugin, a command —
 * added next to siblings that one file lists by name (`migrations/index.js` importing each
 * migration, `PLUGINS = ["csv", "json"]`, `app.use(users)`), and left out of that list: nothing
 * loads it, so the feature the step reports does not exist at run time. Folders whose modules are
 * loaded by a glob or by file-system convention have no such list and are not judged.
 */

/** The kinds of module a program loads from a list. */
const REGISTERED_KIND =
  /\b(?:migrations?|routes?|routers?|endpoints?|handlers?|plugins?|(?:sub-?)?commands?|jobs?|middlewares?|extensions?|controllers?|resolvers?|listeners?|subscribers?|seeders?|lint\s+rules?|rules?|providers?|reducers?|blueprints?|cogs?|workers?)\b/i;
/** The registration is not asked (yet). */
const REGISTRATION_NOT_ASKED =
  /\b(?:without|do\s+not|don't|not\s+yet|no\s+need\s+to|never)\s+(?:\w+\s+){0,2}(?:register|wir|hook|load|list|import)\w*|\bregist(?:er|ering|ration)\s+(?:it\s+|them\s+)?(?:comes\s+)?(?:later|in\s+a\s+later\s+step|separately|is\s+a\s+later\s+step)|\b(?:file|stub)\s+only\b|\bonly\s+the\s+(?:\w+\s+)?file\b|\bunregistered\b/i;
/** Code files a program loads (by extension). */
const MODULE_FILE = /\.(?:[cm]?[jt]sx?|py|rb|php)$/i;
/** Files that gather a folder rather than being one of its modules. */
const GATHERING = /^(?:index|__init__|mod|main|registry|register|all)\.\w+$/i;

/** Whether the description asks for a module of a kind a program registers (and not to leave it unregistered). */
export function registrationAsked(description: string): boolean {
  return REGISTERED_KIND.test(description) && !REGISTRATION_NOT_ASKED.test(description);
}

const stemOf = (file: string) => path.posix.basename(file).replace(/\.[^.]+$/, '');
const named = (stem: string) => new RegExp(`(?<![\\w$-])${escapeRegExp(stem)}(?![\\w$-])`);

/** Code files directly in a workspace folder (relative paths), or none when it cannot be listed. */
function filesIn(root: string, folder: string): string[] {
  try {
    return readdirSync(path.join(root, folder), { withFileTypes: true })
      .filter((entry) => entry.isFile() && MODULE_FILE.test(entry.name))
      .map((entry) => (folder === '' ? entry.name : `${folder}/${entry.name}`));
  } catch {
    return [];
  }
}

/** One module the step added that its folder's registry leaves out. */
export interface UnregisteredModule {
  file: string;
  /** The file that lists its siblings. */
  registry: string;
  /** Siblings the registry lists. */
  listed: string[];
}

/**
 * The modules the step created (`created`, workspace-relative) that a registry leaves out: a code
 * file in the module's folder, its parent or the root (or one the step changed) names every
 * earlier sibling module (at least two) in its code, and no program file but the module itself
 * names the new one.
 */
export async function unregisteredModules(options: {
  root: string;
  created: readonly string[];
  changed: readonly string[];
  read: (file: string) => string | undefined;
}): Promise<UnregisteredModule[]> {
  const { root, created, read } = options;
  const code = new Map<string, Promise<string | undefined>>();
  const codeOf = (file: string) => {
    let text = code.get(file);
    if (text === undefined) {
      const raw = read(file);
      text = raw === undefined ? Promise.resolve(undefined) : codeOnly(file, raw);
      code.set(file, text);
    }
    return text;
  };
  const found: UnregisteredModule[] = [];
  for (const file of created) {
    const base = path.posix.basename(file);
    if (!MODULE_FILE.test(file) || TEST_FILE.test(file) || GATHERING.test(base)) continue;
    const folder = path.posix.dirname(file) === '.' ? '' : path.posix.dirname(file);
    if (folder === '') continue;
    const siblings = filesIn(root, folder).filter(
      (other) =>
        other !== file &&
        !created.includes(other) &&
        !GATHERING.test(path.posix.basename(other)) &&
        !TEST_FILE.test(other),
    );
    if (siblings.length < 2) continue;
    const parent = path.posix.dirname(folder) === '.' ? '' : path.posix.dirname(folder);
    const candidates = [
      ...new Set([
        ...filesIn(root, folder),
        ...filesIn(root, parent),
        ...(parent === '' ? [] : filesIn(root, '')),
        ...options.changed.filter((other) => MODULE_FILE.test(other)),
      ]),
    ].filter((other) => other !== file && !TEST_FILE.test(other) && !siblings.includes(other));
    let registry: UnregisteredModule | undefined;
    let mentioned = false;
    for (const candidate of candidates.slice(0, 80)) {
      const text = await codeOf(candidate);
      if (text === undefined) continue;
      if (named(stemOf(file)).test(text)) {
        mentioned = true;
        break;
      }
      const listed = siblings.filter((sibling) => named(stemOf(sibling)).test(text));
      if (registry === undefined && listed.length === siblings.length)
        registry = { file, registry: candidate, listed: listed.map(stemOf) };
    }
    // A sibling that uses the new module (a helper) counts as its registration too.
    if (!mentioned)
      for (const sibling of siblings) {
        const text = await codeOf(sibling);
        if (text !== undefined && named(stemOf(file)).test(text)) {
          mentioned = true;
          break;
        }
      }
    if (registry !== undefined && !mentioned) found.push(registry);
  }
  return found;
}
