import { codeOnly } from './asked-literals';
import { escapeRegExp } from './escape-reg-exp';

/**
 * A feature flag asked to be on — "Add a `newCheckout` flag and enable it by default", "Turn on
 * `BETA_SEARCH`" — must be on where it is set: a flag added (or left) `false`, `0`, `off`, or on
 * only when an env var says so (`process.env.X === 'true'`), leaves the feature off for every run
 * that does not set it, whatever the notes say. A flag asked to be off by default is not judged.
 */

const ENABLE =
  /\b(?:enabl(?:e|es|ed|ing)|turn(?:s|ed)?\s+(?:\S+\s+){0,4}?on|switch(?:es|ed)?\s+(?:\S+\s+){0,4}?on|activat(?:e|es|ed)|on\s+by\s+default|default(?:s|ed)?\s+(?:it\s+|them\s+)?(?:to\s+)?(?:on|true|enabled)|flip\s+(?:\S+\s+){0,4}?(?:on|to\s+true)|roll(?:s|ed)?\s+out)\b/i;
const OFF_ASKED =
  /\b(?:off|disabled|false)\s+(?:by\s+default|unless)\b|\bdefault(?:s|ed)?\s+(?:it\s+|them\s+)?(?:to\s+)?(?:off|false|disabled)\b|\b(?:disabl\w+|turn\s+(?:\S+\s+){0,4}?off|switch\s+(?:\S+\s+){0,4}?off|kill[\s-]?switch|opt[\s-]in|only\s+when|only\s+if|in\s+(?:tests?|staging|dev\w*)\s+only)\b/i;
const FLAG_NAME = /`([A-Za-z_$][\w$.-]{1,60})`|(?<![\w$.-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w$-])/g;

/** The flags a description asks to be on (by name), or none. */
export function flagsAskedOn(description: string): string[] {
  if (OFF_ASKED.test(description)) return [];
  const names = new Set<string>();
  for (const clause of description.split(/[.;\n](?:\s|$)/)) {
    if (
      !ENABLE.test(clause) ||
      !/\b(?:flags?|toggles?|features?|switch|setting|option|default)\b/i.test(clause)
    )
      continue;
    for (const match of clause.matchAll(FLAG_NAME)) {
      const name = match[1] ?? match[2];
      if (name !== undefined && !/[./]/.test(name)) names.add(name);
    }
  }
  return [...names];
}

/** A value that leaves a flag off. */
const OFF_VALUE =
  /^(?:false|False|FALSE|0|off|no|disabled|null|None|nil|undefined|!1)\b|^["'](?:false|0|off|no|disabled)?["']/;
/** A value on only when an env var is set to a true word: off by default. */
const ENV_GATED =
  /^(?:Boolean\(\s*)?(?:process\.env(?:\.\w+|\[\s*['"]\w+['"]\s*\])|os\.(?:environ\.get|getenv)\(\s*["']\w+["']\s*\)|os\.environ\[\s*["']\w+["']\s*\]|ENV\[\s*["']\w+["']\s*\])\s*={2,3}\s*['"](?:true|1|on|yes)['"]/i;
/** A type, not a value (`newCheckout: boolean;`). */
const TYPE_VALUE = /^(?:boolean|bool|string|number|int|Optional\b|Flag\b)\b/;

/** How a flag is set in one file's text: `off` when every setting of it leaves it off, `on` when one does not, none when unset. */
export async function flagSetting(
  file: string,
  text: string,
  name: string,
): Promise<'on' | 'off' | undefined> {
  const word = new RegExp(
    `(?<![\\w$.-])["']?${escapeRegExp(name)}["']?\\s*(:(?!:)|=(?![=>])|,)\\s*(.{0,120})`,
  );
  if (!new RegExp(`(?<![\\w$-])${escapeRegExp(name)}(?![\\w$-])`).test(text)) return undefined;
  const program = /\.(?:json|jsonc)$/i.test(file)
    ? text
    : /\.(?:ya?ml|toml|ini|cfg|conf|properties)$|(?:^|\/)\.env/i.test(file)
      ? text.replace(/(^|\s)#.*$/gm, '$1')
      : await codeOnly(file, text);
  const lines = program.split('\n');
  let seen: 'on' | 'off' | undefined;
  for (const [index, line] of lines.entries()) {
    const match = word.exec(line);
    if (match === null) continue;
    let value = (match[2] ?? '').trim();
    // `define('newCheckout', { default: false })`: the default a few words on.
    if (match[1] === ',' || value.startsWith('{')) {
      const near = [value, ...lines.slice(index + 1, index + 3)].join(' ');
      const fallback = /\bdefault(?:Value|_value)?\s*[:=]\s*(\S+)/.exec(near)?.[1];
      if (fallback === undefined) continue;
      value = fallback;
    }
    if (value === '' || TYPE_VALUE.test(value)) continue;
    if (OFF_VALUE.test(value) || ENV_GATED.test(value)) seen ??= 'off';
    else return 'on';
  }
  return seen;
}
