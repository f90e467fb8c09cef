import { parseSource } from './code-parser';
import { escapeRegExp } from './escape-reg-exp';
import { findPaths } from './find-paths';
import { TEST_FILE } from './workspace-snapshot';

/**
 * Text a description asks a step to put into files, quoted: "Add a `--verbose` flag to
 * src/cli.js", "Add a `version` field to package.json", "Add an \"Installation\" section to
 * README.md", "Rename `foo` to `bar`". After the step, some file it changed must contain each
 * (compared without whitespace or quotes; quoted prose case-insensitively) — a step that
 * edited the file around it and claimed the addition did not do what was asked.
 */

/** Verbs whose quoted objects must be in the files afterwards. */
const ADDING =
  /\b(?:add|insert|append|include|introduce|put|set|define|declare|document|mention|export|rename|implement|support)\b/i;
/** Verbs that ask for words about a thing, not the thing. */
const DOCUMENTING = /^(?:document|mention)$/i;
/** Nouns of a program's behaviour: a literal named as one of them is asked of the code. */
const CODE_NOUN =
  /^\s*(?:(?:cli|command[- ]line|boolean|config(?:uration)?|environment|env|query|request|http|optional|new|global)\s+)?(?:flags?|options?|switch(?:es)?|parameters?|params?|arguments?|args?|settings?|env(?:ironment)?\s+var(?:iable)?s?|endpoints?|routes?|sub-?commands?|modes?|headers?|events?)\b/i;
/** Where docs go: a prose file or a docs word. */
const DOCS_PLACE =
  /\.(?:md|mdx|markdown|txt|rst|adoc)\b|\b(?:readme|changelog|docs?|documentation|guide|manual|wiki|help\s+text)\b/i;
/** Quoted text: backticks (code) or double quotes (prose). */
const QUOTED = /`([^`\n]{1,80})`|"([^"\n]{1,80})"/g;
/** A program at the head of a quoted command (`npm run build`): a command, not content. */
const COMMAND_HEAD =
  /^(?:npm|npx|pnpm|yarn|node|deno|bun|git|python3?|pip3?|pytest|make|cargo|go|tsc|vitest|jest|bash|sh)\s/;

/** One literal the step was asked to add. */
export interface AskedLiteral {
  text: string;
  /** Backticked code (exact case) rather than quoted prose. */
  code: boolean;
  /** A parameter or argument by name ("a `limit` parameter"): an identifier in code, not only in a string. */
  identifier?: true;
  /**
   * Asked of the code — "Add a `--dry-run` flag (and document it)", "Support a `maxRetries`
   * option" — not of docs: docs that name it do not count, only code does.
   */
  implemented?: true;
}

/**
 * The quoted literals the description asks to add: those after an adding verb in the same clause
 * (for a rename, only the new name after "to"), not paths, commands, placeholders or text the
 * description asks to remove.
 */
export function askedLiterals(
  description: string,
  commands: readonly (readonly string[])[] = [],
): AskedLiteral[] {
  const named = new Set(commands.map((argv) => argv.join(' ')));
  const found = new Map<string, AskedLiteral>();
  for (const clause of description.split(/[.;\n](?:\s|$)|\bthen\b/i)) {
    // The verb of the clause, not a word inside its quotes (`add` in "with `add` and `mul`").
    const verb = ADDING.exec(clause.replace(QUOTED, (quoted) => ' '.repeat(quoted.length)));
    if (verb === null) continue;
    let rest = clause.slice(verb.index + verb[0].length);
    if (/^rename$/i.test(verb[0])) {
      const to = /\bto\b/i.exec(rest);
      if (to === null) continue;
      rest = rest.slice(to.index + to[0].length);
    }
    // Clauses that also take something away or swap it ("instead of `x`", "without `y`") are not
    // read: which literal stays is not clear from words alone.
    if (/\b(?:instead\s+of|without|remove|delete|drop|replace|rather\s+than|not)\b/i.test(clause)) continue;
    for (const match of rest.matchAll(QUOTED)) {
      const code = match[1] !== undefined;
      const text = (match[1] ?? match[2] ?? '').trim();
      if (text.length < 2 || /[<>…*]|\.\.\.|\{\{|\$\{/.test(text)) continue;
      if (named.has(text) || COMMAND_HEAD.test(text)) continue;
      const paths = findPaths(` ${text} `);
      if (paths.length > 0 && paths[0]?.file.length === text.replace(/^\.\//, '').length) continue;
      const parameter =
        code &&
        /^[A-Za-z_$][\w$]*$/.test(text) &&
        /^\s*(?:parameters?|params?|arguments?|args?)\b/i.test(
          rest.slice((match.index ?? 0) + match[0].length),
        );
      const after = rest.slice((match.index ?? 0) + match[0].length);
      const implemented =
        code && implementedAt(clause.slice(0, verb.index), verb[0], rest.slice(0, match.index), after);
      // "Implement `f`", "support `x`" name the code to write; only a flag or option so named is text to add.
      if (/^(?:implement|support)$/i.test(verb[0]) && !implemented) continue;
      found.set(text, {
        text,
        code,
        ...(parameter ? { identifier: true as const } : {}),
        ...(implemented ? { implemented: true as const } : {}),
      });
    }
    // An unquoted name of a part to add ("Add an Installation section to README.md", "a timeout
    // setting to config.json"), or an entry for a list file ("Add dist/ to .gitignore").
    for (const literal of unquotedNames(
      verb[0],
      rest.replace(QUOTED, (quoted) => ' '.repeat(quoted.length)),
    ))
      if (!found.has(literal.text)) found.set(literal.text, literal);
    // An unquoted flag named as one ("Add a --dry-run flag"): asked of the code too; an unquoted
    // flag to document ("Document the --verbose flag in README.md"): asked of the docs.
    const unquoted = rest.replace(QUOTED, (quoted) => ' '.repeat(quoted.length));
    for (const match of unquoted.matchAll(/(?<![\w-])--[a-z][\w-]*[a-z\d]/gi)) {
      if (found.has(match[0])) continue;
      const after = unquoted.slice((match.index ?? 0) + match[0].length);
      if (implementedAt(clause.slice(0, verb.index), verb[0], unquoted.slice(0, match.index), after))
        found.set(match[0], { text: match[0], code: true, implemented: true });
      else if (DOCUMENTING.test(verb[0]) || DOCS_PLACE.test(clause))
        found.set(match[0], { text: match[0], code: true });
    }
  }
  return [...found.values()];
}

/** The parts of a file a name can be asked for, written after the name ("an Installation section"). */
const PART_NOUN =
  /^(?:sections?|headings?|chapters?|settings?|keys?|fields?|entr(?:y|ies)|propert(?:y|ies)|columns?|env(?:ironment)?\s+var(?:iable)?s?)\b/i;
/** Words before a part noun that describe it rather than name it. */
const NOT_A_NAME =
  /^(?:a|an|the|new|short|brief|small|simple|separate|dedicated|proper|basic|default|custom|extra|additional|optional|required|single|second|first|final|top-level|global|local|config|configuration|more|some|few|its|their|our|your|this|that|one|two|three|each|every|missing|empty|dummy|placeholder|example|sample|appropriate|relevant|corresponding|matching|short|long)$/i;
/** Files that are lists of entries (ignore files, requirements, owners). */
const LIST_FILE =
  /(?:^|\/)(?:\.(?:git|docker|npm|prettier|eslint|stylelint|vercel|gcloud)ignore|requirements(?:-\w+)?\.txt|CODEOWNERS|\.nvmrc|\.tool-versions)$/;

/**
 * Unquoted names a clause asks to add: "Add an Installation section to README.md" → Installation,
 * "Add a timeout setting to config.json" → timeout (compared as prose, case-insensitively), and
 * "Add dist/ to .gitignore" → dist/ (a single token added to a list file, or a path or glob).
 */
function unquotedNames(verb: string, rest: string): AskedLiteral[] {
  if (!/^(?:add|insert|append|include|introduce|put|define|declare)$/i.test(verb)) return [];
  const found: AskedLiteral[] = [];
  const words = rest.trim().split(/\s+/).slice(0, 7);
  const at = words.findIndex((_word, index) => index > 0 && PART_NOUN.test(words.slice(index).join(' ')));
  if (at > 0) {
    const named = words.slice(0, at);
    while (named.length > 0 && NOT_A_NAME.test(named[0] ?? '')) named.shift();
    const name = named.join(' ');
    if (
      named.length >= 1 &&
      named.length <= 3 &&
      name.length >= 2 &&
      named.every((word) => /^[\w@.-]+$/.test(word) && !/^(?:and|or|to|in|for|of|with)$/i.test(word)) &&
      !/^\d+$/.test(name) &&
      findPaths(` ${name} `).length === 0
    )
      found.push({ text: name, code: false });
  }
  const entry =
    /^\s*(?:(?:an?|the)\s+)?(?:entry\s+(?:for\s+)?)?([^\s,;]+)\s+(?:to|into|in)\s+(?:the\s+)?[`'"]?([\w./@-]+)/i.exec(
      rest,
    );
  if (entry?.[1] !== undefined && entry[2] !== undefined) {
    const token = entry[1];
    const listFile = LIST_FILE.test(entry[2]);
    if (
      (listFile || /[/*]/.test(token)) &&
      token.length >= 2 &&
      !/^(?:a|an|the|it|them|this|that)$/i.test(token)
    )
      found.push({ text: token, code: true });
  }
  return found;
}

/**
 * Whether a literal is asked of the code: its verb is not "document"/"mention", it is named as a
 * flag, option, setting… (the noun right after it), and no docs place (README.md, "the docs") is
 * named before it in its clause or after it up to the next conjunction.
 */
function implementedAt(lead: string, verb: string, between: string, after: string): boolean {
  if (DOCUMENTING.test(verb) || !CODE_NOUN.test(after)) return false;
  const tail = after.slice(0, /,|\b(?:and|then|also|plus|so)\b/i.exec(after)?.index);
  return !DOCS_PLACE.test(lead) && !DOCS_PLACE.test(between) && !DOCS_PLACE.test(tail);
}

const squash = (text: string) => text.replace(/[\s"'`]+/g, '');

/** Whether `text` (a file's content) contains the literal, as {@link askedLiterals} compares. */
export function containsLiteral(text: string, literal: AskedLiteral): boolean {
  const wanted = squash(literal.text);
  const have = squash(text);
  if (literal.code ? have.includes(wanted) : have.toLowerCase().includes(wanted.toLowerCase())) return true;
  // A flag is often declared by its name (`option('verbose')`), a key by its bare name.
  const bare = wanted.replace(/^(?:--?|\.|@|\$|#)/, '');
  return bare !== wanted && bare.length >= 2 && have.includes(bare);
}

/** Words that ask for a comment, so a literal in one is what was asked. */
const COMMENT_ASKED =
  /\b(?:comments?|docstrings?|jsdoc|tsdoc|javadoc|doc\s+comments?|headers?|shebang|pragmas?|directives?|annotat\w*|licen[cs]e|copyright|todo|fixme)\b/i;
/** A literal that is itself a comment, a directive or a doc tag. */
const COMMENT_LITERAL = /^(?:\/\/|\/\*|#|@|<!--|eslint|prettier|biome|ts-)/i;
/** Prose files: docs, not code. */
const PROSE_FILE = /\.(?:md|mdx|markdown|txt|rst|adoc)$/i;

/** Files that serve tests: mocks, fixtures, snapshots, stories. */
const TEST_SUPPORT =
  /(?:^|\/)(?:__mocks__|__fixtures__|fixtures?|__snapshots__|testdata|test-data)\/|\.snap$|\.stories\.[cm]?[jt]sx?$|(?:^|\/)conftest\.py$/;
/** Words that ask for tests (so a literal in a test file can be what was asked). */
const TESTS_ASKED = /\b(?:tests?|specs?|test\s+cases?|fixtures?|assert\w*)\b/i;

/** Files whose comments are `<!-- … -->`. */
const MARKUP_FILE = /\.(?:md|mdx|markdown|html?|xml|svg|vue|svelte)$/i;

/** Files whose whole-line comments start with `#`: shell, ignore lists, YAML, TOML, INI, .env, Makefile, Dockerfile. */
const HASH_COMMENT_FILE =
  /\.(?:sh|bash|zsh|ksh|fish|ya?ml|toml|ini|cfg|conf|properties|env|r|rb|pl|tf|hcl|nix|cmake)$|(?:^|\/)(?:\.[\w-]*ignore|\.env(?:\.[\w-]+)?|\.editorconfig|\.gitattributes|Makefile|GNUmakefile|Dockerfile(?:\.[\w-]+)?|Containerfile|CODEOWNERS|requirements[\w-]*\.txt|Procfile|Gemfile|Brewfile)$/i;
/** Files whose comments are `-- …` and `/* … *\/`: SQL, Lua, Haskell. */
const DASH_COMMENT_FILE = /\.(?:sql|psql|lua|hs)$/i;

const blank = (comment: string) => ` ${comment.replace(/[^\n]/g, '')}`;

/**
 * A file's text with each comment blanked to a space (its line breaks kept) for a parsed language,
 * `<!-- … -->` in Markdown and HTML, whole-line `#` comments in shell scripts, ignore lists and
 * settings files, `--` and `/* … *\/` comments in SQL; else as it is.
 */
export async function codeOnly(file: string, text: string): Promise<string> {
  const source = await parseSource(file, text).catch(() => undefined);
  if (source === undefined) {
    // Markdown and HTML without a parser: `<!-- … -->` is a comment no reader sees.
    if (MARKUP_FILE.test(file)) return text.replace(/<!--[\s\S]*?(?:-->|$)/g, blank);
    // A shebang (`#!/bin/sh`) is read by the kernel: it stays.
    if (HASH_COMMENT_FILE.test(file)) return text.replace(/^[ \t]*#(?!!).*$/gm, blank);
    if (DASH_COMMENT_FILE.test(file))
      return text.replace(/\/\*[\s\S]*?(?:\*\/|$)/g, blank).replace(/^[ \t]*--.*$/gm, blank);
    return text;
  }
  let out = '';
  let at = 0;
  source.tree.iterate({
    enter: (node) => {
      if (!/Comment$/.test(node.name)) return undefined;
      out += `${text.slice(at, node.from)} ${text.slice(node.from, node.to).replace(/[^\n]/g, '')}`;
      at = node.to;
      return false;
    },
  });
  return out + text.slice(at);
}

/** A file's code (comments blanked, see {@link codeOnly}) with its string literals blanked too. */
export async function codeWithoutStrings(file: string, text: string): Promise<string> {
  const code = await codeOnly(file, text);
  return code.replace(/(["'`])(?:\\.|(?!\1)[^\\\n])*\1/g, (quoted) => quoted.replace(/[^\n]/g, ' '));
}

const wordIn = (text: string, word: string) =>
  new RegExp(`(?<![\\w$-])${escapeRegExp(word)}(?![\\w$-])`).test(text);
/** The contents of a code text's string literals. */
const stringsOf = (code: string) =>
  [...code.matchAll(/(["'`])((?:\\.|(?!\1)[^\\\n])*)\1/g)].map((match) => match[2] ?? '');
/**
 * Whether a string literal declares the flag: every word of it is a flag, a metavar (`<n>`,
 * `[file]`, `FILE`) or the flag's bare name, and one of them is the flag (`'-n, --dry-run'`,
 * `"--port <number>"`, `"dry-run"`).
 */
function optionLike(content: string, flag: string, bare: string): boolean {
  const words = content.split(/[\s,|=]+/).filter((word) => word !== '');
  return (
    words.some((word) => word === flag || word === bare) &&
    words.every(
      (word) => /^-/.test(word) || /^[<[].*[>\]]$/.test(word) || /^[A-Z][A-Z_]*$/.test(word) || word === bare,
    )
  );
}

/**
 * The asked literals no changed file carries where a program reads it. A code literal
 * (backticked) in a file the verifier parses counts only outside comments — "rename `foo` to
 * `bar`" answered with `// bar`, a `--verbose` flag as a TODO comment did nothing — unless a
 * comment was asked ("add a `@deprecated` tag", "a license header"). When code files were asked
 * and docs were not, docs the step changed do not count for a code literal. A literal only in
 * test files — a `'--verbose'` string in a test, a test that names `MAX_RETRIES` — is not in the
 * code unless tests were asked for and no other code file was.
 */
export async function literalsAbsent(
  description: string,
  literals: readonly AskedLiteral[],
  changed: readonly { file: string; text: string }[],
  asked: readonly string[],
): Promise<AskedLiteral[]> {
  let files = changed;
  if (files.length === 0 || literals.length === 0) return [];
  const codeFile = (file: string) => !PROSE_FILE.test(file) && /\.[a-z]+$/i.test(file);
  const testsCount =
    TESTS_ASKED.test(description) && !asked.some((file) => codeFile(file) && !TEST_FILE.test(file));
  if (!testsCount) files = files.filter(({ file }) => !TEST_FILE.test(file) && !TEST_SUPPORT.test(file));
  const commentAsked = COMMENT_ASKED.test(description);
  const codeAsked = asked.some(codeFile);
  const docsAsked =
    asked.some((file) => PROSE_FILE.test(file)) ||
    /\b(?:docs?|document\w*|readme|changelog|guide|manual)\b/i.test(description);
  let code: string[] | undefined;
  const absent: AskedLiteral[] = [];
  for (const literal of literals) {
    if (files.some(({ text }) => containsLiteral(text, literal)) === false) {
      absent.push(literal);
      continue;
    }
    if (literal.identifier) {
      const word = new RegExp(`(?<![\\w$])${escapeRegExp(literal.text)}(?![\\w$])`);
      const bare = await Promise.all(
        files
          .filter(({ file }) => !PROSE_FILE.test(file))
          .map(({ file, text }) => codeWithoutStrings(file, text)),
      );
      if (!bare.some((text) => word.test(text))) absent.push(literal);
      continue;
    }
    // A feature asked of the code: docs (README, CHANGELOG) that name it are no implementation.
    if (literal.implemented && !commentAsked) {
      const programs = await Promise.all(
        files.filter(({ file }) => !PROSE_FILE.test(file)).map(({ file, text }) => codeOnly(file, text)),
      );
      // A `--dry-run` flag is declared as `dry_run` (clap, argparse's dest) or `dryRun` as often as by its name.
      const bare = literal.text.replace(/^--?/, '');
      const spellings = [
        literal,
        ...(bare.includes('-')
          ? [
              bare.replaceAll('-', '_'),
              bare.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase()),
            ].map((text) => ({ text, code: true }))
          : []),
      ];
      const parsedFiles = files.filter(({ file }) => !PROSE_FILE.test(file));
      const declared = await Promise.all(
        parsedFiles.map(async ({ file, text }, index) => {
          const program = programs[index] ?? '';
          if (!spellings.some((spelling) => containsLiteral(program, spelling))) return false;
          // A flag in a parsed language is declared by an option-like string (`"--dry-run"`,
          // `'-n, --dry-run'`, `"dry-run"`) or an identifier (`dry_run`), not by help text that
          // mentions it ("tool (see --dry-run)").
          if (
            !literal.text.startsWith('-') ||
            (await parseSource(file, text).catch(() => undefined)) === undefined
          )
            return true;
          const bareCode = await codeWithoutStrings(file, text);
          if (
            [bare, ...spellings.slice(1).map((spelling) => spelling.text)].some((word) =>
              wordIn(bareCode, word),
            )
          )
            return true;
          return stringsOf(program).some((content) => optionLike(content, literal.text, bare));
        }),
      );
      if (!declared.includes(true)) absent.push(literal);
      continue;
    }
    if (!literal.code || commentAsked || COMMENT_LITERAL.test(literal.text)) continue;
    code ??= await Promise.all(
      files
        .filter(({ file }) => docsAsked || !codeAsked || !PROSE_FILE.test(file))
        .map(({ file, text }) => codeOnly(file, text)),
    );
    if (!code.some((text) => containsLiteral(text, literal))) absent.push(literal);
  }
  return absent;
}
