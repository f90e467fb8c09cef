import type { ContentPart } from './chat-model';
import { ModelError } from './model-error';

/**
 * Checks a user message's content part and returns where its bytes are: `{ kind: 'data', data,
 * mediaType }` (base64) or `{ kind: 'url', url }`. Throws `ModelError('bad-request')` naming the
 * part when it has both or neither, or a file without a media type.
 */
export function contentPartSource(
  part: Exclude<ContentPart, { type: 'text' }>,
  where: { provider: string; path: string },
):
  | { kind: 'data'; data: string; mediaType: string }
  | { kind: 'url'; url: string; mediaType: string | undefined } {
  const { provider, path } = where;
  const bad = (message: string) =>
    new ModelError({ code: 'bad-request', message: `${provider}: ${path} ${message}`, provider });
  const hasData = typeof part.data === 'string' && part.data !== '';
  const hasUrl = typeof part.url === 'string' && part.url !== '';
  if (hasData === hasUrl) throw bad(`(${part.type}) needs exactly one of data (base64) and url`);
  if (hasUrl) {
    const url = part.url as string;
    const dataUrl = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(url);
    if (dataUrl?.[2] && dataUrl[3] !== undefined) {
      return {
        kind: 'data',
        data: dataUrl[3],
        mediaType: dataUrl[1] ?? part.mediaType ?? 'application/octet-stream',
      };
    }
    if (!URL.canParse(url)) throw bad(`(${part.type}) url is not a URL: ${JSON.stringify(url.slice(0, 80))}`);
    return { kind: 'url', url, mediaType: part.mediaType };
  }
  const mediaType = part.mediaType ?? (part.type === 'image' ? 'image/png' : undefined);
  if (mediaType === undefined) throw bad('(file) needs a mediaType such as application/pdf');
  return { kind: 'data', data: part.data as string, mediaType };
}
