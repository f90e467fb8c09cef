import type { z } from 'zod';
import type { GenerateRequest } from './chat-model';
import { ModelError } from './model-error';

/**
 * An adapter's typed provider options: `request.providerOptions[key]` for each of `keys` (merged
 * in order, later wins), validated against `schema` (a zod object, strict: unknown keys are
 * errors). Throws `ModelError('bad-request')` that names the bad or unknown option and lists the
 * known ones. Options under other providers' keys are ignored.
 *
 * @example
 * const options = parseProviderOptions({ provider: 'openai', keys: ['openai'], schema: openAIOptions, request });
 */
export function parseProviderOptions<Schema extends z.ZodObject>(options: {
  provider: string;
  keys: readonly string[];
  schema: Schema;
  request: GenerateRequest;
}): z.infer<Schema> {
  const { provider, keys, schema, request } = options;
  const raw: Record<string, unknown> = {};
  const used: string[] = [];
  for (const key of new Set(keys)) {
    const value = request.providerOptions?.[key];
    if (value === undefined) continue;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ModelError({
        code: 'bad-request',
        message: `${provider}: providerOptions.${key} must be an object, got ${JSON.stringify(value)}`,
        provider,
      });
    }
    used.push(key);
    Object.assign(raw, value);
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const where = `providerOptions.${used.join('/') || keys[0]}`;
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return `unknown option${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((name) => JSON.stringify(name)).join(', ')}`;
    }
    const path = issue.path.map(String).join('.');
    return `${path ? `${path}: ` : ''}${issue.message}`;
  });
  const known = Object.keys(schema.shape).join(', ');
  throw new ModelError({
    code: 'bad-request',
    message: `${provider}: ${where}: ${problems.join('; ')}. Known options: ${known}.`,
    provider,
  });
}
