/**
 * Files asked to be sorted or rid of duplicates ("Sort the lines of data/words.txt
 * alphabetically", "Sort the dependencies in package.json", "Remove the duplicate lines from
 * data/emails.txt") that the step left partly unsorted or still holding duplicates. Read from the
 * file: its non-empty lines (a CSV's header left out), or the keys of the JSON object named
 * ("the dependencies", "the keys").
 */

/** What a request asks of a file's order. */
export interface AskedOrder {
  action: 'sort' | 'dedupe';
  file: string;
  /** For JSON: the object whose keys are meant (`dependencies`); `''` for the top level. */
  key?: string;
}

const FILE = String.raw`[\x60'"]?(?<file>[\w./-]+\.[A-Za-z]\w*|\.[\w.-]+)[\x60'"]?`;
const SORT = new RegExp(
  String.raw`(?:^|[.;:,]\s*|\b(?:and|then|please|also)\s+)(?:sort|alphabeti[sz]e)\s+(?:the\s+)?(?:(?<what>[\w-]+)\s+)?(?:(?:in|of|inside)\s+)?${FILE}`,
  'gi',
);
const DEDUPE = new RegExp(
  String.raw`\b(?:(?:remove|drop|delete|get\s+rid\s+of)\s+(?:the\s+|all\s+(?:the\s+)?|any\s+)?(?:duplicate|duplicated|repeated)\s+(?:(?:lines|entries|rows|emails|names|words|items|values)\s+)?(?:from|in)|de-?duplicate)\s+${FILE}`,
  'gi',
);

/** The sort and dedupe asks of a description. */
export function askedOrders(description: string): AskedOrder[] {
  const found: AskedOrder[] = [];
  for (const match of description.matchAll(SORT)) {
    const file = match.groups?.file ?? '';
    const what = (match.groups?.what ?? '').toLowerCase();
    if (file === '' || /^(?:out|by)$/.test(what)) continue;
    const key =
      /\.json$/i.test(file) && what !== '' && !/^(?:lines|entries|keys|contents?|file)$/.test(what)
        ? what
        : '';
    found.push({ action: 'sort', file, ...(/\.json$/i.test(file) ? { key } : {}) });
  }
  for (const match of description.matchAll(DEDUPE)) {
    const file = match.groups?.file ?? '';
    if (file !== '') found.push({ action: 'dedupe', file });
  }
  return found;
}

/** The items whose order is judged: a JSON object's keys, or a text file's non-empty lines. */
function itemsOf(ask: AskedOrder, text: string): string[] | undefined {
  if (ask.key !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    const node = ask.key === '' ? value : (value as Record<string, unknown> | null)?.[ask.key];
    return typeof node === 'object' && node !== null && !Array.isArray(node) ? Object.keys(node) : undefined;
  }
  // Code and structured files are not lists of lines.
  if (/\.(?:[cm]?[jt]sx?|py|go|rs|java|json|ya?ml|toml|md|html?)$/i.test(ask.file)) return undefined;
  const lines = text.split('\n').filter((line) => line.trim() !== '' && !/^\s*#/.test(line));
  return /\.(?:csv|tsv)$/i.test(ask.file) ? lines.slice(1) : lines;
}

/** Why the file does not hold what was asked (the first pair out of order, a repeated item), or undefined. */
export function orderProblem(ask: AskedOrder, text: string): string | undefined {
  const items = itemsOf(ask, text);
  if (items === undefined || items.length < 2) return undefined;
  if (ask.action === 'dedupe') {
    const seen = new Set<string>();
    for (const item of items) {
      const key = item.trim();
      if (seen.has(key)) return `\`${key.slice(0, 60)}\` is still there more than once`;
      seen.add(key);
    }
    return undefined;
  }
  // Sorted by code points or without case: either order is sorted.
  const sortedBy = (compare: (a: string, b: string) => number) =>
    items.every((item, index) => index === 0 || compare(items[index - 1] ?? '', item) <= 0);
  if (
    sortedBy((a, b) => (a < b ? -1 : a > b ? 1 : 0)) ||
    sortedBy((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' }))
  )
    return undefined;
  const at = items.findIndex(
    (item, index) => index > 0 && (items[index - 1] ?? '').localeCompare(item, 'en') > 0,
  );
  return `\`${(items[at - 1] ?? '').slice(0, 40)}\` comes before \`${(items[at] ?? '').slice(0, 40)}\``;
}
