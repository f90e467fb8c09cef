/**
 * Settings written into a file the right tool reads, but in a place it does not read them: a
 * compiler option at the top level of `tsconfig.json` instead of under `compilerOptions`, a
 * script asked for in `package.json` put anywhere but `scripts`, a dependency asked for as a
 * runtime (or dev, or peer) dependency put in another section. The key is in the file; the tool
 * never sees it where it is.
 */

/** Compiler options tsc reads only under `compilerOptions` (the common ones). */
const COMPILER_OPTIONS: ReadonlySet<string> = new Set(
  [
    'allowJs',
    'allowSyntheticDefaultImports',
    'allowUnreachableCode',
    'allowUnusedLabels',
    'alwaysStrict',
    'baseUrl',
    'checkJs',
    'composite',
    'declaration',
    'declarationDir',
    'declarationMap',
    'downlevelIteration',
    'emitDecoratorMetadata',
    'esModuleInterop',
    'exactOptionalPropertyTypes',
    'experimentalDecorators',
    'forceConsistentCasingInFileNames',
    'importHelpers',
    'incremental',
    'isolatedModules',
    'jsx',
    'lib',
    'module',
    'moduleResolution',
    'noEmit',
    'noEmitOnError',
    'noFallthroughCasesInSwitch',
    'noImplicitAny',
    'noImplicitOverride',
    'noImplicitReturns',
    'noImplicitThis',
    'noPropertyAccessFromIndexSignature',
    'noUncheckedIndexedAccess',
    'noUnusedLocals',
    'noUnusedParameters',
    'outDir',
    'outFile',
    'paths',
    'removeComments',
    'resolveJsonModule',
    'rootDir',
    'rootDirs',
    'skipLibCheck',
    'sourceMap',
    'strict',
    'strictBindCallApply',
    'strictFunctionTypes',
    'strictNullChecks',
    'strictPropertyInitialization',
    'target',
    'tsBuildInfoFile',
    'typeRoots',
    'types',
    'useDefineForClassFields',
    'useUnknownInCatchVariables',
    'verbatimModuleSyntax',
    'customConditions',
    'allowImportingTsExtensions',
    'noUncheckedSideEffectImports',
    'erasableSyntaxOnly',
    'moduleDetection',
    'inlineSourceMap',
    'inlineSources',
    'stripInternal',
  ].map((option) => option.toLowerCase()),
);

const TSCONFIG = /(?:^|\/)(?:tsconfig|jsconfig)(?:\.[\w-]+)?\.json$/;
const MANIFEST = /(?:^|\/)package\.json$/;

const DEPENDENCY_SECTIONS = [
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
] as const;
type DependencySection = (typeof DEPENDENCY_SECTIONS)[number];

/** What a description asks of a manifest: scripts by name, packages by section. */
export interface AskedManifest {
  scripts: string[];
  dependencies: { name: string; section: DependencySection }[];
}

const NAME = '`?(@?[a-z0-9][\\w.-]*(?:\\/[\\w.-]+)?)`?';
/** "Add a `lint` script", "a script called `build:css`", "add an npm script `e2e`". */
const SCRIPT_ASKS = [
  /\b(?:add|create|define|introduce|set\s+up|write)\s+(?:an?\s+|the\s+)?(?:new\s+)?(?:npm\s+|package(?:\.json)?\s+)?`([\w:.-]+)`\s+(?:npm\s+)?script\b/gi,
  /\b(?:add|create|define|introduce|set\s+up|write)\s+(?:an?\s+|the\s+)?(?:new\s+)?(?:npm\s+)?script\s+(?:called\s+|named\s+)?`([\w:.-]+)`/gi,
];
/** "Add lodash as a dependency", "add `vitest` to the dev dependencies", "install react as a peer dependency". */
const DEPENDENCY_ASK = new RegExp(
  `\\b(?:add|install|declare|list|put)\\s+${NAME}(?:@[\\w.^~<>=*-]+)?\\s+(?:(?:as|to|in|into|under)\\s+(?:an?\\s+|the\\s+|its\\s+)?)(dev(?:elopment)?[\\s-]?dependenc(?:y|ies)|devDependencies|peer[\\s-]?dependenc(?:y|ies)|peerDependencies|optional[\\s-]?dependenc(?:y|ies)|optionalDependencies|(?:runtime\\s+|production\\s+|prod\\s+|regular\\s+)?dependenc(?:y|ies))\\b`,
  'gi',
);

function sectionOf(words: string): DependencySection {
  if (/^dev/i.test(words)) return 'devDependencies';
  if (/^peer/i.test(words)) return 'peerDependencies';
  if (/^optional/i.test(words)) return 'optionalDependencies';
  return 'dependencies';
}

/** The scripts and dependency sections a description asks for in `package.json`. */
export function askedManifest(description: string): AskedManifest {
  const scripts = new Set<string>();
  for (const pattern of SCRIPT_ASKS) {
    pattern.lastIndex = 0;
    for (const match of description.matchAll(pattern)) if (match[1]) scripts.add(match[1]);
  }
  const dependencies: AskedManifest['dependencies'] = [];
  DEPENDENCY_ASK.lastIndex = 0;
  for (const match of description.matchAll(DEPENDENCY_ASK)) {
    const name = match[1];
    if (name === undefined || /^(?:it|them|this|that|a|an|the)$/i.test(name)) continue;
    dependencies.push({ name, section: sectionOf(match[2] ?? '') });
  }
  return { scripts: [...scripts], dependencies };
}

function parseObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    // tsconfig allows comments and trailing commas.
    const parsed: unknown = JSON.parse(
      text
        .replace(
          /("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g,
          (_match, string?: string) => string ?? '',
        )
        .replace(/,(\s*[}\]])/g, '$1'),
    );
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Dotted paths of `value`'s keys equal to `key` (`config.lint`), up to a small depth. */
function pathsOf(value: unknown, key: string, prefix = '', depth = 0): string[] {
  if (value === null || typeof value !== 'object' || depth > 3) return [];
  const found: string[] = [];
  for (const [name, child] of Object.entries(value as Record<string, unknown>)) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    if (name === key) found.push(path);
    found.push(...pathsOf(child, key, path, depth + 1));
  }
  return found;
}

const keysOf = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/**
 * What a change to `file` put where its tool does not read it (messages), given what the
 * description asks. `before` is undefined for a new file.
 */
export function misplacedSettings(
  description: string,
  file: string,
  before: string | undefined,
  after: string,
): string[] {
  const problems: string[] = [];
  if (TSCONFIG.test(file)) {
    const now = parseObject(after);
    const was = parseObject(before) ?? {};
    if (now === undefined) return [];
    for (const key of Object.keys(now))
      if (!(key in was) && COMPILER_OPTIONS.has(key.toLowerCase()))
        problems.push(
          `${file} sets \`${key}\` at the top level, where tsc ignores it (compiler options go under \`compilerOptions\`)`,
        );
    return problems;
  }
  if (!MANIFEST.test(file)) return [];
  const asked = askedManifest(description);
  if (asked.scripts.length === 0 && asked.dependencies.length === 0) return [];
  const now = parseObject(after);
  if (now === undefined) return [];
  const scripts = keysOf(now.scripts);
  for (const name of asked.scripts) {
    if (typeof scripts[name] === 'string') continue;
    const elsewhere = pathsOf(now, name).filter((path) => path !== `scripts.${name}`);
    if (elsewhere.length > 0)
      problems.push(
        `${file} has \`${elsewhere[0]}\` but no \`scripts.${name}\`: \`npm run ${name}\` does not find it`,
      );
  }
  for (const { name, section } of asked.dependencies) {
    if (name in keysOf(now[section])) continue;
    const other = DEPENDENCY_SECTIONS.find(
      (candidate) => candidate !== section && name in keysOf(now[candidate]),
    );
    if (other !== undefined)
      problems.push(`${file} lists \`${name}\` under \`${other}\`, not \`${section}\` as asked`);
  }
  return problems;
}

/** Whether {@link misplacedSettings} reads this kind of file. */
export function readsPlacementOf(file: string): boolean {
  return TSCONFIG.test(file) || MANIFEST.test(file);
}
