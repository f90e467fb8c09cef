const KNOWN_EXTENSIONS = new Set(
  (
    'ts tsx mts cts js jsx mjs cjs json jsonc md mdx txt py pyi go rs java kt kts scala c h cc cpp hpp cs rb php ' +
    'swift m sh bash zsh ps1 yml yaml toml ini cfg conf env lock css scss sass less html htm vue svelte astro sql ' +
    'graphql gql proto xml csv tsv svg png jpg jpeg gif webp ico pdf wasm v sv vhd lua dart ex exs erl hs ml r jl ' +
    'tf hcl gradle properties prisma ipynb rst adoc tex log snap mod sum cfg'
  ).split(' '),
);
const KNOWN_BARE_FILES = new Set([
  'Dockerfile',
  'Makefile',
  'Procfile',
  'Gemfile',
  'Rakefile',
  'Justfile',
  'Containerfile',
  'LICENSE',
]);
const NOT_FILES = new Set(
  'node.js next.js vue.js nuxt.js express.js react.js three.js chart.js d3.js deno.js bun.js ember.js backbone.js angular.js alpine.js p5.js socket.io e.g i.e etc. vs.'.split(
    ' ',
  ),
);

/** A path-looking token: optional dirs, a name, and an extension starting with a letter. */
const PATH_TOKEN =
  /(?<![\w@/.\-:])((?:\.{1,2}\/)?(?:[\w@\-.]+\/)*(?:[\w@\-.]*[\w-]\.[A-Za-z][A-Za-z0-9]{0,9}|\.[A-Za-z][\w.-]*|Dockerfile|Makefile|Procfile|Gemfile|Rakefile|Justfile|Containerfile|LICENSE))(?![\w/]|\.[A-Za-z])/g;

/** True when a token names a file (known extension, a known bare name, a dotfile, or a path with a folder). */
export function isFileToken(token: string): boolean {
  const file = token.replace(/^\.\//, '');
  if (NOT_FILES.has(file.toLowerCase())) return false;
  // A member of a well-known object is code, not a file: `console.log`, `process.exit`.
  if (
    /^(?:console|logger|process|window|document|Math|JSON|Object|Array|Promise|sys|os)\.[A-Za-z_]\w*$/.test(
      file,
    )
  )
    return false;
  const base = file.split('/').pop() ?? file;
  if (KNOWN_BARE_FILES.has(base)) return true;
  if (/^\d+(\.\d+)+$/.test(file)) return false;
  if (base.startsWith('.') && !base.slice(1).includes('.')) {
    // Dotfiles: `.gitignore`, `.env`, `.eslintrc`…
    return /^\.(?:gitignore|gitattributes|env|npmrc|nvmrc|prettierrc|prettierignore|eslintrc|eslintignore|editorconfig|dockerignore|babelrc|browserslistrc)$/.test(
      base,
    );
  }
  // Variants of a dotfile: `.env.example`, `.env.local`, `.npmrc.template`.
  if (/^\.(?:env|npmrc|yarnrc|flaskenv|envrc)\.[A-Za-z][\w.-]*$/.test(base)) return true;
  const extension = /\.([A-Za-z][A-Za-z0-9]*)$/.exec(base)?.[1]?.toLowerCase();
  if (extension === undefined) return false;
  return KNOWN_EXTENSIONS.has(extension) || (file.includes('/') && !file.startsWith('/'));
}

/** File paths mentioned in a piece of text (backticked, quoted or bare), in order. */
export function findPaths(text: string): { file: string; index: number }[] {
  const found: { file: string; index: number }[] = [];
  PATH_TOKEN.lastIndex = 0;
  for (let match = PATH_TOKEN.exec(text); match !== null; match = PATH_TOKEN.exec(text)) {
    const token = (match[1] ?? '').replace(/[.,;:]+$/, '');
    const before = text.slice(Math.max(0, match.index - 3), match.index);
    if (before.endsWith('://') || /\w:\/\/$/.test(before)) continue;
    if (isFileToken(token)) found.push({ file: token.replace(/^\.\//, ''), index: match.index });
  }
  return found;
}
