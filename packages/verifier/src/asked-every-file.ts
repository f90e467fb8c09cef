/**
 * Work asked of every file of a folder ("Add a farewell key to every locale file in locales/",
 * "update all the files in docs/") done in some of them: the files left out still lack it.
 */

/** What a description asks of every file in a folder: the folder, without its trailing slash. */
const EVERY_FILE_ASKED =
  /\b(?:every|each|all(?:\s+of)?(?:\s+the)?)\s+(?:[\w-]+\s+){0,2}files?\s+(?:in|under|inside|within|of)\s+(?:the\s+)?[`'"]?((?:[\w@.-]+\/)+)(?=[\s,.;:)`'"]|$)/gi;

/**
 * The folders a description asks to change every file of.
 *
 * @example
 * everyFileFolders('Add a "farewell" key to every locale file in locales/'); // ['locales']
 */
export function everyFileFolders(description: string): string[] {
  return [...description.matchAll(EVERY_FILE_ASKED)].map((match) => (match[1] ?? '').replace(/\/+$/, ''));
}

const extensionOf = (file: string) => /\.[^./]+$/.exec(file)?.[0] ?? '';

/**
 * The files of `folder` (as listed, relative to the workspace) the step left unchanged when it
 * changed some of them; empty when it changed all or none (none is the files check's to say).
 */
export function filesLeftOut(
  folder: string,
  listed: readonly string[],
  changed: readonly string[],
): string[] {
  const inside = listed.filter(
    (file) => file.startsWith(`${folder}/`) && !file.slice(folder.length + 1).includes('/'),
  );
  const touched = inside.filter((file) => changed.includes(file));
  if (touched.length === 0) return [];
  // Files of the kinds the step changed: a README beside the locale files is not one of them.
  const kinds = new Set(touched.map(extensionOf));
  return inside.filter((file) => !changed.includes(file) && kinds.has(extensionOf(file)));
}
