import { ModelError } from '@closedloop/model';

/**
 * The model failure behind `error` (looking through `cause` chains) when it means the model
 * cannot be reached at all — no or a bad API key (`auth`), nothing listening or no network after
 * the retries (`network`), an unknown model (`404`) — or `undefined`. Such a run stops with
 * `model-unavailable`: replanning needs the same model.
 */
export function modelUnavailable(error: unknown): ModelError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth += 1) {
    if (ModelError.isInstance(current)) {
      if (current.code === 'auth' || current.code === 'network') return current;
      if (current.code === 'bad-request' && current.status === 404) return current;
      return undefined;
    }
    current = typeof current === 'object' ? (current as { cause?: unknown }).cause : undefined;
  }
  return undefined;
}

/** The stop reason's text for an unreachable model: the provider's own message. */
export function modelUnavailableReason(error: ModelError): string {
  const provider = error.provider ? `${error.provider}: ` : '';
  const message = error.message.startsWith(provider) ? error.message : `${provider}${error.message}`;
  return `the model cannot be reached (${error.code}${error.status ? ` ${error.status}` : ''}): ${message}`;
}
