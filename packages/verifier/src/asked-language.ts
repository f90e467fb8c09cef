/**
 * Work asked in one language's part of a repository ("Fix slugify in the Python package", "add it
 * to the Go client") done in another's: the step changed only JavaScript files when Python was
 * asked. The part asked for is where the work belongs; the same fix elsewhere leaves it as it was.
 */

/** A language a request names as the part of the project to work in, and its source files. */
const LANGUAGES: readonly { name: RegExp; files: RegExp }[] = [
  { name: /python/i, files: /\.pyi?$/i },
  { name: /javascript|js|node(?:\.js)?/i, files: /\.[cm]?jsx?$/i },
  { name: /typescript|ts/i, files: /\.[cm]?tsx?$/i },
  { name: /go(?:lang)?/i, files: /\.go$/i },
  { name: /rust/i, files: /\.rs$/i },
  { name: /ruby/i, files: /\.rb$/i },
  { name: /java/i, files: /\.java$/i },
  { name: /kotlin/i, files: /\.kts?$/i },
];

/** Source files of any language above. */
const SOURCE_FILE = /\.(?:pyi?|[cm]?[jt]sx?|go|rs|rb|java|kts?)$/i;

/** "in the Python package", "to the Go client", "of the TypeScript SDK": group 1 is the language. */
const PART_ASKED =
  /\b(?:in|to|of|inside|within|for)\s+(?:the\s+|our\s+)?(python|javascript|js|node(?:\.js)?|typescript|ts|go(?:lang)?|rust|ruby|java|kotlin)\s+(?:package|module|library|lib|client|sdk|server|backend|frontend|side|code(?:base)?|implementation|version|crate|gem|port|bindings?|app)\b/gi;

/** The languages a description asks the work to be done in, as the regexps of their files. */
export function askedLanguages(description: string): RegExp[] {
  const asked: RegExp[] = [];
  for (const match of description.matchAll(PART_ASKED)) {
    const word = match[1] ?? '';
    const language = LANGUAGES.find((entry) => new RegExp(`^(?:${entry.name.source})$`, 'i').test(word));
    if (language !== undefined && !asked.includes(language.files)) asked.push(language.files);
  }
  return asked;
}

/**
 * The source files the step changed when none of them is in a language the description asks for
 * (empty when one is, or when no language or no source file is involved).
 *
 * @example
 * filesInOtherLanguage('Fix slugify in the Python package', ['js/src/slug.js']); // ['js/src/slug.js']
 */
export function filesInOtherLanguage(description: string, changed: readonly string[]): string[] {
  const asked = askedLanguages(description);
  if (asked.length === 0) return [];
  const sources = changed.filter((file) => SOURCE_FILE.test(file));
  if (sources.some((file) => asked.some((files) => files.test(file)))) return [];
  return sources;
}
