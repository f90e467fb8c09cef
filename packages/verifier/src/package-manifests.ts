/**
 * A package manifest named in prose (`package.json`, `pyproject.toml`, `requirements-dev.txt`,
 * `Cargo.toml`, `go.mod`, `Gemfile`, `composer.json`, `Pipfile`, `deno.json`; a path to one too),
 * as a regular-expression source: "add X as a dependency in package.json" asks for (and "added X
 * as a dev dependency to package.json" reports) the manifest's entry, not an install.
 */
export const MANIFEST_FILE_SOURCE =
  '(?:[\\w.@~-]+/)*(?:package\\.json|pyproject\\.toml|requirements[\\w.-]*\\.txt|Cargo\\.toml|go\\.mod|Gemfile|composer\\.json|Pipfile|deno\\.jsonc?)\\b';

/** Right after a dependency phrase: "in package.json", "to the pyproject.toml" (a lookahead's body). */
export const IN_MANIFEST_SOURCE = `\\s+(?:in|to|into)\\s+(?:the\\s+)?[\`'"]?${MANIFEST_FILE_SOURCE}`;
