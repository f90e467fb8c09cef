/** What {@link parseRateLimitReset} reads. Every field is optional. */
export interface RateLimitResetSources {
  /** Response headers (a `Headers` instance or a plain record; names are matched case-insensitively). */
  headers?: unknown;
  /** Headers a gateway copied into the error body (OpenRouter's `error.metadata.headers`). */
  bodyHeaders?: unknown;
  /** The provider's error message ("Please try again in 6.5s", "Please retry after 20 seconds"). */
  message?: string | undefined;
}

function header(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const getter = (headers as { get?: unknown }).get;
  if (typeof getter === 'function') {
    const value = (getter as (key: string) => unknown).call(headers, name);
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  }
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() === name) {
      if (typeof value === 'string' && value.trim() !== '') return value.trim();
      if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    }
  }
  return undefined;
}

const durationUnits: Record<string, number> = {
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 0.001,
  µs: 0.001,
  ns: 1e-6,
};

/** A Go-style duration (`1s`, `6m0s`, `2m59.56s`, `20ms`, `1h2m`) in milliseconds. */
function parseDuration(value: string): number | undefined {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== value) return undefined;
  return parts.reduce(
    (sum, [, amount, unit]) => sum + Number(amount) * (durationUnits[unit as string] ?? 0),
    0,
  );
}

/**
 * A reset value in milliseconds from `now`: a duration (`6m0s`), an RFC 3339 / HTTP date, or a
 * number — epoch milliseconds (> 1e12), epoch seconds (> 1e9) or seconds to wait.
 */
function parseReset(value: string, now: number): number | undefined {
  const duration = parseDuration(value);
  if (duration !== undefined) return duration;
  if (/^\d+(\.\d+)?$/.test(value)) {
    const number = Number(value);
    if (number > 1e12) return Math.max(0, number - now);
    if (number > 1e9) return Math.max(0, number * 1000 - now);
    return number * 1000;
  }
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** `x-ratelimit-{remaining,reset}-<limit>` (OpenAI, Groq, Azure) and `anthropic-ratelimit-<limit>-{remaining,reset}`. */
const limitNames = ['requests', 'tokens', 'input-tokens', 'output-tokens'];

function exhaustedResets(headers: unknown, now: number): number[] {
  const resets: number[] = [];
  for (const limit of limitNames) {
    for (const [remaining, reset] of [
      [`x-ratelimit-remaining-${limit}`, `x-ratelimit-reset-${limit}`],
      [`anthropic-ratelimit-${limit}-remaining`, `anthropic-ratelimit-${limit}-reset`],
    ] as const) {
      const left = header(headers, remaining);
      const at = header(headers, reset);
      if (left === undefined || at === undefined || Number(left) > 0) continue;
      const ms = parseReset(at, now);
      if (ms !== undefined) resets.push(ms);
    }
  }
  // One limit without a name (OpenRouter, Together, Fireworks): used unless it says it is not spent.
  const at = header(headers, 'x-ratelimit-reset');
  const left = header(headers, 'x-ratelimit-remaining');
  if (at !== undefined && (left === undefined || Number(left) <= 0)) {
    const ms = parseReset(at, now);
    if (ms !== undefined) resets.push(ms);
  }
  return resets;
}

/**
 * How long to wait before a rate-limited request can succeed, for a 429 without `retry-after`
 * (read {@link parseRetryAfter} first): the reset time of every limit the headers report spent
 * (`x-ratelimit-remaining-tokens: 0` with `x-ratelimit-reset-tokens: 6m0s`, Anthropic's
 * `anthropic-ratelimit-*-remaining`/`-reset`, a bare `x-ratelimit-reset`), the same in headers a
 * gateway copied into the body (OpenRouter), else "try again in 6.5s" / "retry after 20 seconds"
 * in the message. The longest wait wins; `undefined` when nothing says.
 *
 * @example
 * parseRateLimitReset({ headers: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1.5s' } }) // 1500
 */
export function parseRateLimitReset(
  sources: RateLimitResetSources,
  now: number = Date.now(),
): number | undefined {
  const resets = [...exhaustedResets(sources.headers, now), ...exhaustedResets(sources.bodyHeaders, now)];
  if (resets.length > 0) return Math.round(Math.max(...resets));
  const said = sources.message?.match(
    /(?:try again|retry) (?:in|after) (\d+(?:\.\d+)?) ?(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)\b/i,
  );
  if (!said) return undefined;
  const amount = Number(said[1]);
  const unit = (said[2] as string).toLowerCase();
  const factor = unit.startsWith('ms') || unit.startsWith('milli') ? 1 : unit.startsWith('m') ? 60_000 : 1000;
  return Math.round(amount * factor);
}
