import { withRepairedEventStreams } from '@closedloop/model/provider';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * The model reading its event streams through `withRepairedEventStreams` (any SSE line ending —
 * the AI SDK's parser lost the last event of a stream with lone-`\r` endings —, a last event sent
 * without its closing blank line kept), when it is built the way `@ai-sdk/*` providers are: an
 * own `config` object whose `fetch` is the HTTP client (`undefined` for the global one). The
 * caller's model is not changed: the result is an object whose prototype is the model, with its
 * own `config` whose prototype is the model's. `undefined` for any other model.
 */
export function withRepairedFetch<Model extends object>(model: Model): Model | undefined {
  const descriptor = Object.getOwnPropertyDescriptor(model, 'config');
  const config: unknown = descriptor?.value;
  if (typeof config !== 'object' || config === null) return undefined;
  const fetchImpl: unknown = (config as { fetch?: unknown }).fetch;
  if (fetchImpl !== undefined && typeof fetchImpl !== 'function') return undefined;
  const base: Fetch = (fetchImpl as Fetch | undefined) ?? ((input, init) => globalThis.fetch(input, init));
  const repairedConfig = Object.create(config, {
    fetch: { value: withRepairedEventStreams(base), enumerable: true, writable: true, configurable: true },
  }) as object;
  return Object.create(model, {
    config: { value: repairedConfig, enumerable: true, writable: true, configurable: true },
  }) as Model;
}

/**
 * Whether `error` says a method met an object that is not an instance of its class (a model class
 * with `#private` fields, whose methods cannot run on the object {@link withRepairedFetch} made).
 */
export function isPrivateMemberError(error: unknown): boolean {
  return error instanceof TypeError && /private (member|field|method)|#\w+/i.test(error.message);
}
