import type { JsonSchema } from './chat-model';

// Keywords OpenAI's strict mode (and Anthropic's strict tool use) do not accept.
const unsupportedKeywords = [
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'unevaluatedProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
] as const;

function isObjectSchema(node: Record<string, unknown>): boolean {
  return (
    node.type === 'object' ||
    (Array.isArray(node.type) && node.type.includes('object')) ||
    (node.type === undefined && node.properties !== undefined)
  );
}

function problemAt(node: unknown, path: string): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) {
      const problem = problemAt(item, `${path}[${index}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  const schema = node as Record<string, unknown>;
  for (const keyword of unsupportedKeywords) {
    if (keyword in schema) return `${path} uses "${keyword}"`;
  }
  if (isObjectSchema(schema)) {
    if (schema.additionalProperties !== false)
      return `${path} is an object without additionalProperties: false`;
    const properties = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
    const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
    const optional = properties.filter((name) => !required.includes(name));
    if (optional.length > 0) return `${path} has optional properties (${optional.join(', ')})`;
  }
  for (const key of ['properties', '$defs', 'definitions']) {
    const children = schema[key];
    if (typeof children === 'object' && children !== null) {
      for (const [name, child] of Object.entries(children)) {
        const problem = problemAt(child, `${path}.${key}.${name}`);
        if (problem) return problem;
      }
    }
  }
  for (const key of ['items', 'prefixItems', 'anyOf', 'oneOf']) {
    if (key in schema) {
      const problem = problemAt(schema[key], `${path}.${key}`);
      if (problem) return problem;
    }
  }
  if (typeof schema.additionalProperties === 'object') {
    return problemAt(schema.additionalProperties, `${path}.additionalProperties`);
  }
  return undefined;
}

/**
 * Why a JSON Schema cannot be used with strict schema adherence (OpenAI strict functions and
 * `json_schema` response formats, Anthropic strict tool use), or `undefined` when it can: the root
 * is an object; every object has `additionalProperties: false` and lists all its properties in
 * `required`; no `not`/`if`/`allOf`/`patternProperties`/… anywhere.
 *
 * @example
 * strictSchemaProblem({ type: 'object', properties: { a: { type: 'string' } } })
 * // '$ is an object without additionalProperties: false'
 */
export function strictSchemaProblem(
  schema: JsonSchema,
  options: { root?: 'object' | 'any' } = {},
): string | undefined {
  if ((options.root ?? 'object') === 'object' && !isObjectSchema(schema)) return '$ is not an object schema';
  return problemAt(schema, '$');
}

/**
 * Whether strict schema adherence applies to a tool: `spec.strict !== false` and the schema
 * allows it ({@link strictSchemaProblem}). Adapters send strict tools exactly when this is true
 * and fall back to non-strict otherwise.
 */
export function useStrictTool(spec: { inputSchema: JsonSchema; strict?: boolean }): boolean {
  return spec.strict !== false && strictSchemaProblem(spec.inputSchema) === undefined;
}
