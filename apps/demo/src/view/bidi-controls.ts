/**
 * Bidirectional formatting characters (embeddings, overrides, isolates, marks) and the line and
 * paragraph separators. Text after an override is shown reversed — by a terminal and by a browser
 * alike: `\u202E~ fr- mr` is displayed as `rm -rf ~`, a file name `\u202Etxt.exe` as `exe.txt`
 * (Trojan Source).
 */
export const bidiControls = /[\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every {@link bidiControls} character replaced by a visible `�`. */
export function revealBidiControls(text: string): string {
  return text.replace(bidiControls, '\ufffd');
}

/**
 * Parses JSON the web page got from the server (a run's events, a step's changes, an error) with
 * every string's bidirectional controls made visible ({@link revealBidiControls}): the page shows
 * what a model or a command wrote — a step title, a command waiting for approval, a diff — and
 * none of it may reorder what the user reads.
 */
export function parseShownJson(json: string): unknown {
  return JSON.parse(json, (_key, value: unknown) =>
    typeof value === 'string' ? revealBidiControls(value) : value,
  );
}
