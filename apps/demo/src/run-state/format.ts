/**
 * Shortens a value to one readable excerpt: strings as they are, anything else as JSON
 * (indented, or on one line with `flat`).
 */
export function excerpt(value: unknown, max = 400, options: { flat?: boolean } = {}): string {
  if (value === undefined || value === null) return '';
  let text: string | undefined;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = options.flat ? JSON.stringify(value) : JSON.stringify(value, null, 1);
    } catch {
      text = String(value);
    }
  }
  if (text === undefined) return '';
  if (options.flat) text = text.replace(/\s+/g, ' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Milliseconds as "450 ms", "1.5 s" or "2 min 5 s"; empty for anything that is not a duration. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
