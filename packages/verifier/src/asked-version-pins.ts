/**
 * Version files asked to pin a version ("Pin Node 20 in .nvmrc", "Set the Python version to 3.12
 * in .python-version") that pin another one. Read from the request (a version number in the
 * sentence that names the file) and the file's text: the version, or a more precise one of it
 * (`20` is held by `20`, `v20`, `20.11.1`, `lts/iron` is not read), must be what the file pins.
 */

/** Files that hold a tool's version and nothing else (or one `tool version` line per tool). */
export const VERSION_FILE =
  /(?:^|\/)(?:\.nvmrc|\.node-version|\.python-version|\.ruby-version|\.java-version|\.go-version|\.terraform-version|\.tool-versions|rust-toolchain)$/;

/** The version each sentence asks a version file to pin: `{ file, version }`. */
export function askedVersionPins(description: string): { file: string; version: string }[] {
  const found: { file: string; version: string }[] = [];
  for (const sentence of description.split(/[;\n]|\.(?=\s|$)/)) {
    const file =
      /(?:^|[\s`'"(])((?:[\w.-]+\/)*(?:\.nvmrc|\.node-version|\.python-version|\.ruby-version|\.java-version|\.go-version|\.terraform-version|\.tool-versions|rust-toolchain))(?=$|[\s`'",.)])/.exec(
        sentence,
      )?.[1];
    if (file === undefined) continue;
    const versions = [
      ...sentence.replace(file, ' ').matchAll(/(?<![\w.])v?(\d+(?:\.\d+){0,2})(?![\w.]*\d)/g),
    ].map((match) => match[1] ?? '');
    if (versions.length === 1 && versions[0] !== undefined) found.push({ file, version: versions[0] });
  }
  return found;
}

/** Whether the text of a version file pins `version` (or a more precise one of it). */
export function pinsVersion(text: string, version: string): boolean {
  const escaped = version.replace(/\./g, '\\.');
  return new RegExp(`(?:^|[\\s=@])v?${escaped}(?:\\.\\d+)*(?:[\\s-]|$)`, 'm').test(text);
}
