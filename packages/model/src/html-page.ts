import { ModelError } from './model-error';

/** Whether a `content-type` header names an HTML page (`text/html`, `application/xhtml+xml`). */
export function isHtmlContentType(contentType: string | null | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'text/html' || type === 'application/xhtml+xml';
}

/** The page's `<title>`, tags and runs of white space removed, at most 120 characters. */
function pageTitle(body: string): string | undefined {
  const match = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(body.slice(0, 16_384));
  const title = match?.[1]
    ?.replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (!title) return undefined;
  return title.length > 120 ? `${title.slice(0, 119)}…` : title;
}

/** Options of {@link htmlPageError}. */
export interface HtmlPageErrorOptions {
  provider: string;
  /** The response's `content-type`. */
  contentType: string;
  /** The page, when it was read (only its `<title>` goes into the message). */
  body?: string | undefined;
  requestId?: string | undefined;
  /** Whether an event stream was due (else a JSON body). */
  streaming: boolean;
}

/**
 * The error for an HTML page answered with a success status where the API's JSON body or event
 * stream was due: the base URL points at a web UI (a single-page app answers every path with its
 * `index.html`), a login or a proxy's page, not at the API. `invalid-response`, not retryable —
 * asking again gets the same page, and reading the page as an answer (or as a stream cut before
 * its first event) would hide that nothing answered. The message names the page's `<title>`;
 * the page itself is not kept.
 *
 * @example
 * if (isHtmlContentType(response.headers.get('content-type')))
 *   throw htmlPageError({ provider, contentType, body: await response.text(), streaming: true });
 */
export function htmlPageError(options: HtmlPageErrorOptions): ModelError {
  const { provider, contentType, body, requestId, streaming } = options;
  const title = body === undefined ? undefined : pageTitle(body);
  return new ModelError({
    code: 'invalid-response',
    message: `${provider}: the server answered with an HTML page (${contentType}${
      title ? `, titled ${JSON.stringify(title)}` : ''
    }), not ${streaming ? 'an event stream' : 'a JSON body'}${
      requestId ? ` (request ${requestId})` : ''
    }; check the baseURL: it points at a web page, a login or a proxy, not at the API.`,
    isRetryable: false,
    provider,
    ...(requestId ? { requestId } : {}),
  });
}

/**
 * Throws {@link htmlPageError} when `response` is an HTML page (its body read for the title);
 * returns otherwise, the body unread.
 *
 * @example
 * await rejectHtmlPage(response, { provider, requestId, streaming: true });
 */
export async function rejectHtmlPage(
  response: { headers: { get(name: string): string | null }; text(): Promise<string> },
  options: Omit<HtmlPageErrorOptions, 'contentType' | 'body'>,
): Promise<void> {
  const contentType = response.headers.get('content-type');
  if (!isHtmlContentType(contentType)) return;
  throw htmlPageError({ ...options, contentType: contentType ?? '', body: await response.text() });
}
