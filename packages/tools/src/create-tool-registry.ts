import type { JsonSchema, ToolSpec } from '@closedloop/model';
import { createRedactor, linkedAbortController, onAbort, type Redactor } from '@closedloop/model';
import { z } from 'zod';
import { measureJson } from './json-limits';
import { normalizeToolArguments, parseToolInput } from './parse-tool-input';
import type { AnyTool, ToolContext, ToolErrorCode, ToolOutcome, ToolProgress } from './tool';
import { ToolError } from './tool-error';
import { truncateText } from './truncate-text';
import { beginWorkspaceActivity, markCountedRegistry } from './workspace-activity';

/** Options of {@link createToolRegistry}. */
export interface ToolRegistryOptions {
  /**
   * Cleans every result text and error message. Default: `createRedactor()` over
   * `process.env`; pass `false` to send results unredacted.
   */
  redactor?: Redactor | false;
  /** Result texts longer than this are cut in the middle with a marker. Default 20 000. */
  maxResultChars?: number;
  /**
   * Timeout of a call when neither the tool nor the call sets one: a tool that never returns
   * cannot hang a run. Default 900 000 ms (15 minutes).
   */
  defaultTimeoutMs?: number;
  /** Arguments nested deeper than this are refused as `invalid-arguments`. Default 64. */
  maxArgumentDepth?: number;
  /** Arguments with more values than this are refused as `invalid-arguments`. Default 100 000. */
  maxArgumentNodes?: number;
}

/** What {@link ToolRegistry.execute} needs besides the arguments. */
export interface ToolExecuteContext extends ToolContext {
  /**
   * Timeout for this call when the tool sets no `timeoutMs` of its own (the tool's own wins).
   * Default: the registry's `defaultTimeoutMs`.
   */
  timeoutMs?: number;
}

/** The error outcome of a call that cannot run (`unknown-tool`, `invalid-arguments`, …). */
export type ToolErrorOutcome = Extract<ToolOutcome, { status: 'error' }>;

/**
 * A call {@link ToolRegistry.validate} accepted: the registered tool and its parsed input.
 * Pass it to {@link ToolRegistry.executeValidated} to run it without parsing again.
 */
export interface ValidToolCall {
  status: 'valid';
  tool: AnyTool;
  /** The arguments as the tool's input schema parsed them (defaults filled in). */
  input: unknown;
}

/** A validated set of tools, as the executor uses it. */
export interface ToolRegistry {
  /** The tools, in the order given. */
  readonly tools: readonly AnyTool[];
  get(name: string): AnyTool | undefined;
  has(name: string): boolean;
  /** What the model sees: name, description and the input's JSON Schema (no `$schema`). */
  specs(): ToolSpec[];
  /**
   * Checks a call without running it: `unknown-tool` or `invalid-arguments` (an error outcome
   * with the text the model should see), or the tool with its parsed input. Lets a caller show
   * the validated input to a guard before {@link executeValidated} runs exactly that input.
   */
  validate(name: string, rawArgs: unknown): ValidToolCall | ToolErrorOutcome;
  /**
   * Validates `rawArgs`, runs the tool and returns an outcome. Never throws for bad input, a
   * failing tool, a timeout or an abort: each has its own error code.
   */
  execute(name: string, rawArgs: unknown, context: ToolExecuteContext): Promise<ToolOutcome>;
  /** Runs a call {@link validate} accepted (the same outcomes as `execute`, without re-parsing). */
  executeValidated(call: ValidToolCall, context: ToolExecuteContext): Promise<ToolOutcome>;
  /**
   * The registry's redaction (identity when it was created with `redactor: false`), for callers
   * that build their own texts from tool-related strings (a guard's reason, a thrown error).
   */
  redact(text: string): string;
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

function toText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '(no output)';
  const json = JSON.stringify(output, (_key, value: unknown) =>
    typeof value === 'bigint' ? value.toString() : value,
  );
  return json ?? String(output);
}

function inputJsonSchema(tool: AnyTool): JsonSchema {
  let schema: JsonSchema;
  try {
    schema =
      tool.inputJsonSchema ??
      (z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema);
  } catch {
    schema = { type: 'object' };
  }
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

/** Settles after `ms`, or never when `ms` is undefined. Returns a cancel function. */
function delay(ms: number | undefined): { promise: Promise<void>; cancel(): void } {
  if (ms === undefined) return { promise: new Promise<void>(() => {}), cancel: () => {} };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * Builds a {@link ToolRegistry}. Tool names must be unique (`ToolError` with code
 * `invalid-definition` otherwise).
 *
 * Outcomes of `execute`:
 * - `unknown-tool`: no tool has that name (the text lists the available ones);
 * - `invalid-arguments`: the arguments fail the input schema (the text has zod's prettified
 *   issues, so the model can correct itself); a JSON string is parsed first;
 * - `execution-failed`: the tool threw (a thrown `ToolError` keeps its own code);
 * - `timeout`: the tool's `timeoutMs` (else the call's `context.timeoutMs`) elapsed (its signal
 *   is aborted too);
 * - `aborted`: the caller's signal aborted; answered at once even if the tool ignores it;
 * - `output-invalid`: the result fails the tool's output schema or is not JSON-serialisable;
 * - `success`: `text` is the result (strings as is, anything else as JSON), redacted, then
 *   truncated to `maxResultChars`.
 */
export function createToolRegistry(
  tools: readonly AnyTool[],
  options: ToolRegistryOptions = {},
): ToolRegistry {
  const byName = new Map<string, AnyTool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) {
      throw new ToolError({
        code: 'invalid-definition',
        message: `Two tools are named "${tool.name}": tool names must be unique in a registry.`,
        details: { name: tool.name },
      });
    }
    byName.set(tool.name, tool);
  }
  const redactor: Redactor | undefined =
    options.redactor === false ? undefined : (options.redactor ?? createRedactor());
  const maxResultChars = options.maxResultChars ?? 20_000;
  if (!(Number.isInteger(maxResultChars) && maxResultChars > 0)) {
    throw new ToolError({
      code: 'invalid-definition',
      message: `maxResultChars must be a positive integer, got ${String(maxResultChars)}.`,
    });
  }
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 900_000;
  const maxArgumentDepth = options.maxArgumentDepth ?? 64;
  const maxArgumentNodes = options.maxArgumentNodes ?? 100_000;
  for (const [name, value] of Object.entries({ defaultTimeoutMs, maxArgumentDepth, maxArgumentNodes })) {
    if (
      !(
        typeof value === 'number' &&
        value > 0 &&
        (Number.isInteger(value) || value === Number.POSITIVE_INFINITY)
      )
    ) {
      throw new ToolError({
        code: 'invalid-definition',
        message: `${name} must be a positive integer (or Infinity), got ${String(value)}.`,
      });
    }
  }
  const redact = (text: string) => (redactor ? redactor.redact(text) : text);
  const redactValue = <T>(value: T): T => (redactor ? redactor.redactValue(value) : value);
  const list = [...tools];
  let cachedSpecs: ToolSpec[] | undefined;

  const failure = (
    code: ToolErrorCode,
    message: string,
    details?: Record<string, unknown>,
  ): ToolErrorOutcome => {
    const clean = redact(message);
    const outcome: ToolErrorOutcome = {
      status: 'error',
      code,
      message: clean,
      text: truncateText(`Error (${code}): ${clean}`, maxResultChars),
    };
    if (details !== undefined) outcome.details = redactValue(details);
    return outcome;
  };

  const validateUnsafe = (name: string, rawArgs: unknown): ValidToolCall | ToolErrorOutcome => {
    const tool = byName.get(name);
    if (tool === undefined) {
      const available = list.map((t) => t.name);
      return failure(
        'unknown-tool',
        `There is no tool named ${JSON.stringify(name)}. Available tools: ${available.join(', ') || '(none)'}.`,
        { name, available },
      );
    }
    const size = measureJson(normalizeToolArguments(rawArgs), {
      maxDepth: maxArgumentDepth,
      maxNodes: maxArgumentNodes,
    });
    if (size.exceeded) {
      return failure(
        'invalid-arguments',
        `Invalid arguments for "${name}": they are nested deeper than ${maxArgumentDepth} levels or hold more than ${maxArgumentNodes} values. Send smaller, flatter arguments.`,
        { maxArgumentDepth, maxArgumentNodes },
      );
    }
    const parsed = parseToolInput(tool.input, rawArgs);
    if (!parsed.success) {
      return failure(
        'invalid-arguments',
        `Invalid arguments for "${name}":\n${z.prettifyError(parsed.error)}\nFix the arguments and call the tool again.`,
        { issues: parsed.error.issues },
      );
    }
    return { status: 'valid', tool, input: parsed.data };
  };

  /** Never throws: a schema that overflows the stack or a broken zod refinement is an outcome too. */
  const validate = (name: string, rawArgs: unknown): ValidToolCall | ToolErrorOutcome => {
    try {
      return validateUnsafe(name, rawArgs);
    } catch (error) {
      return failure(
        'invalid-arguments',
        `The arguments for "${String(name)}" could not be validated: ${errorMessage(error)}`,
      );
    }
  };

  const executeValidatedUnsafe = async (
    call: ValidToolCall,
    context: ToolExecuteContext,
  ): Promise<ToolOutcome> => {
    const { tool } = call;
    const name = tool.name;
    if (byName.get(name) !== tool) {
      return failure('unknown-tool', `The tool "${name}" is not registered here; validate the call first.`, {
        name,
      });
    }
    if (context.signal.aborted)
      return failure('aborted', `The call to "${name}" was aborted before it started.`);
    const fallbackMs =
      typeof context.timeoutMs === 'number' && Number.isFinite(context.timeoutMs) && context.timeoutMs > 0
        ? context.timeoutMs
        : undefined;
    const timeoutMs =
      tool.timeoutMs ?? fallbackMs ?? (Number.isFinite(defaultTimeoutMs) ? defaultTimeoutMs : undefined);

    // The tool's signal follows the caller's and is aborted on a timeout. It is made when the
    // tool first reads it, linked through `onAbort` (no listener per call on the caller's signal).
    let linked: ReturnType<typeof linkedAbortController> | undefined;
    const toolContext: ToolContext = {
      get signal() {
        linked ??= linkedAbortController(context.signal);
        return linked.controller.signal;
      },
      callId: context.callId,
    };
    if (context.onProcess !== undefined) toolContext.onProcess = context.onProcess;
    if (context.processTag !== undefined) toolContext.processTag = context.processTag;
    const { onProgress } = context;
    if (onProgress !== undefined) {
      // Progress messages reach events and logs: they are redacted like results.
      toolContext.onProgress = (progress: ToolProgress) =>
        onProgress(redactor ? { ...progress, message: redactor.redact(progress.message) } : progress);
    }

    type Race =
      | { kind: 'done'; output: unknown }
      | { kind: 'threw'; error: unknown }
      | { kind: 'timeout' }
      | { kind: 'aborted' };
    let race: Race;
    let returned: unknown;
    let threw = false;
    // Armed before the call: a tool that sets its own timer of the same length (an MCP client's)
    // must not beat the registry's.
    const timeout = delay(timeoutMs);
    // Activity until the tool's own work settles, which can be after a timeout or an abort.
    const ended = beginWorkspaceActivity();
    try {
      returned = tool.execute(call.input, toolContext);
    } catch (error) {
      threw = true;
      returned = error;
    }
    if (threw) {
      ended();
      race = { kind: 'threw', error: returned };
    } else if (typeof (returned as { then?: unknown } | null)?.then !== 'function') {
      // A synchronous tool: no race and no signal.
      ended();
      race = { kind: 'done', output: returned };
    } else {
      const running = Promise.resolve(returned);
      running.then(ended, ended);
      let cancelAbort: (() => void) | undefined;
      const aborted = new Promise<Race>((resolve) => {
        cancelAbort = onAbort(context.signal, () => resolve({ kind: 'aborted' }));
      });
      race = await Promise.race<Race>([
        running.then(
          (output): Race => ({ kind: 'done', output }),
          (error: unknown): Race => ({ kind: 'threw', error }),
        ),
        timeout.promise.then((): Race => ({ kind: 'timeout' })),
        aborted,
      ]);
      cancelAbort?.();
    }
    timeout.cancel();
    linked?.dispose();

    switch (race.kind) {
      case 'aborted':
        linked?.controller.abort(context.signal.reason);
        return failure('aborted', `The call to "${name}" was aborted.`);
      case 'timeout':
        linked?.controller.abort(new ToolError({ code: 'timeout', message: `"${name}" timed out` }));
        return failure('timeout', `"${name}" did not finish within ${timeoutMs} ms and was stopped.`, {
          timeoutMs,
        });
      case 'threw': {
        if (context.signal.aborted) return failure('aborted', `The call to "${name}" was aborted.`);
        const { error } = race;
        if (ToolError.isInstance(error)) {
          const code = error.code === 'invalid-definition' ? 'execution-failed' : error.code;
          return failure(code, error.message, { ...error.details });
        }
        return failure('execution-failed', `"${name}" failed: ${errorMessage(error)}`);
      }
      case 'done': {
        let output = race.output;
        if (tool.output !== undefined) {
          const checked = tool.output.safeParse(output);
          if (!checked.success) {
            return failure(
              'output-invalid',
              `"${name}" returned a result that does not match its output schema:\n${z.prettifyError(checked.error)}`,
              { issues: checked.error.issues },
            );
          }
          output = checked.data;
        }
        let text: string;
        try {
          text = tool.toText ? tool.toText(output) : toText(output);
        } catch (error) {
          return failure(
            'output-invalid',
            `"${name}" returned a result that is not JSON-serialisable: ${errorMessage(error)}`,
          );
        }
        return {
          status: 'success',
          output: redactValue(output),
          text: truncateText(redact(text), maxResultChars),
        };
      }
    }
  };

  const executeValidated = async (call: ValidToolCall, context: ToolExecuteContext): Promise<ToolOutcome> => {
    try {
      return await executeValidatedUnsafe(call, context);
    } catch (error) {
      const name = typeof call?.tool?.name === 'string' ? call.tool.name : 'unknown';
      return failure('execution-failed', `"${name}" failed: ${errorMessage(error)}`);
    }
  };

  const registry: ToolRegistry = {
    tools: list,
    get: (name) => byName.get(name),
    has: (name) => byName.has(name),
    specs() {
      cachedSpecs ??= list.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: inputJsonSchema(tool),
      }));
      return cachedSpecs.map((spec) => ({ ...spec, inputSchema: structuredClone(spec.inputSchema) }));
    },
    validate,
    async execute(name, rawArgs, context) {
      const checked = validate(name, rawArgs);
      if (checked.status === 'error') return checked;
      return executeValidated(checked, context);
    },
    executeValidated,
    redact,
  };
  markCountedRegistry(registry);
  return registry;
}
