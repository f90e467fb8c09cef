import { existsSync } from 'node:fs';
import path from 'node:path';
import { type ChatModel, generate, type ModelCapabilities } from '@closedloop/model';
import type { AnyTool } from '@closedloop/tools';
import { VerifierError } from './verifier-error';

/** What the guard answers for one call. */
export type GuardDecision =
  | { action: 'allow' }
  | { action: 'deny'; reason: string }
  | { action: 'ask-human'; reason: string };

/** One tool call to check, before it runs. */
export interface GuardCheckInput {
  tool: AnyTool;
  /** The validated arguments. */
  args: unknown;
  /** What the user asked for (goal and step), as the model was told. */
  request: string;
  /** 0..1 from the model's logprobs, when the provider returned them. */
  confidence?: number;
}

/** What `onAskHuman` receives. */
export interface GuardHumanRequest {
  tool: string;
  args: unknown;
  request: string;
  reason: string;
}

/** Options of {@link createToolCallGuard}. */
export interface ToolCallGuardOptions {
  /** The model that self-verifies calls (a strict YES/NO question). */
  model: ChatModel;
  /** Overrides of `model.capabilities` (e.g. `{ logprobs: true }`). */
  capabilities?: Partial<ModelCapabilities>;
  /** Extra tool names that are always verified (like `clear_dataset`, `rollback_to_stage`). */
  destructive?: readonly string[];
  /**
   * `auto` (default): destructive calls always, others unless the model's logprob confidence is
   * high; `destructive`: destructive calls only (what a default cortex uses); `always`: every
   * call; `off`: allow everything.
   */
  mode?: 'auto' | 'destructive' | 'always' | 'off';
  /** Calls with logprob confidence at or above this are allowed without verification (auto mode). Default 0.8. */
  confidenceThreshold?: number;
  /** Workspace root: lets `write_file`-like tools count as destructive only when they overwrite. */
  workspace?: string;
  /**
   * What an unparseable self-verification answer (or a model failure) becomes: `ask-human`
   * (default) or `deny`. Fail closed: never `allow`.
   */
  onUnparseable?: 'ask-human' | 'deny';
  /** Resolves `ask-human` outcomes here (approve → allow, reject → deny); without it they are returned. */
  onAskHuman?: (
    request: GuardHumanRequest,
    options: { signal: AbortSignal },
  ) => Promise<'approve' | 'reject' | boolean>;
}

/** Why a call counts as destructive, if it does. */
export interface DestructiveClassification {
  destructive: boolean;
  reason?: string;
}

/** A pre-execution guard: `check` before every tool call. */
export interface ToolCallGuard {
  check(input: GuardCheckInput, options?: { signal?: AbortSignal }): Promise<GuardDecision>;
  /** The destructive classification the guard uses. */
  classify(tool: AnyTool, args: unknown): DestructiveClassification;
}

const DESTRUCTIVE_NAME =
  /(?:^|[_\-.])(?:delete|remove|rm|unlink|drop|truncate|destroy|purge|wipe|reset|kill|erase|clear|rollback|overwrite|push|deploy|publish|revert|uninstall|format)(?:$|[_\-.])/i;
const SHELL_NAME =
  /^(?:run|exec|execute|sh|bash|zsh|shell|cmd|powershell|terminal|command)$|shell|command|exec|terminal|bash/i;
const WRITE_NAME = /^(?:write|create|save|put)_?(?:file|to_file)?$|(?:^|_)(?:write|save)(?:_|$)/i;
const DANGEROUS_TEXT =
  /\bgit\s+(?:push|reset\s+--hard|clean\s+-\w*f|checkout\s+--\s|branch\s+-D)\b|(?:^|[\s;&|])rm\s|\brmdir\b|\bdel\s|\bmkfs\b|\bdd\s+if=|\bdrop\s+(?:table|database)\b|\btruncate\s+table\b|\bchmod\s+-R\b|>\s*\/dev\/sd/i;

/**
 * The strings in `value` (5 levels deep), in order; an array of strings also as one text, joined,
 * before its parts (`['push', 'origin']` → `'push origin', 'push', 'origin'`). Collected into one
 * array (no array per level).
 */
function stringsOf(value: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > 4) return out;
  if (typeof value === 'string') {
    out.push(value);
    return out;
  }
  if (Array.isArray(value)) {
    const joined = value.every((item) => typeof item === 'string') ? out.length : -1;
    if (joined >= 0) out.push('');
    for (const item of value) stringsOf(item, depth + 1, out);
    if (joined >= 0) out[joined] = out.slice(joined + 1).join(' ');
    return out;
  }
  if (typeof value === 'object' && value !== null)
    for (const item of Object.values(value)) stringsOf(item, depth + 1, out);
  return out;
}

/**
 * Classifies a call as destructive: the tool's own `destructive` flag, configured
 * names, delete/remove/reset/push-like names, shell-like tools (`run_command`…), write tools
 * that overwrite an existing file, and arguments containing `git push`, `rm`, `DROP TABLE`….
 */
export function classifyDestructive(
  tool: Pick<AnyTool, 'name' | 'destructive'>,
  args: unknown,
  options: { destructive?: readonly string[]; workspace?: string } = {},
): DestructiveClassification {
  if (tool.destructive) return { destructive: true, reason: `${tool.name} is declared destructive` };
  if (options.destructive?.includes(tool.name))
    return { destructive: true, reason: `${tool.name} is configured as destructive` };
  if (DESTRUCTIVE_NAME.test(tool.name))
    return { destructive: true, reason: `${tool.name} deletes, resets or publishes` };
  if (SHELL_NAME.test(tool.name))
    return { destructive: true, reason: `${tool.name} runs shell-like commands` };
  const parts = stringsOf(args);
  // The tool name joins the arguments so `git` + `['push', …]` reads as `git push …`.
  const texts = [`${tool.name.replace(/_/g, ' ')} ${parts.join(' ')}`, ...parts];
  const dangerous = texts.find((text) => DANGEROUS_TEXT.test(text));
  if (dangerous !== undefined)
    return {
      destructive: true,
      reason: `arguments contain a destructive command (${dangerous.slice(0, 80)})`,
    };
  if (WRITE_NAME.test(tool.name)) {
    const record = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
    const target = [record.path, record.file, record.filePath, record.filename].find(
      (value) => typeof value === 'string',
    ) as string | undefined;
    if (options.workspace === undefined || target === undefined) {
      return { destructive: true, reason: `${tool.name} may overwrite a file (no workspace to check)` };
    }
    const full = path.resolve(options.workspace, target);
    if (existsSync(full))
      return { destructive: true, reason: `${tool.name} overwrites the existing file ${target}` };
  }
  return { destructive: false };
}

/** The system prompt of the guard's self-verification call (scripted models can recognise it). */
export const toolCallGuardSystemPrompt =
  'You verify a tool call before it runs. Be strict: answer NO if the call does not match what the user asked.';

/** Parses a YES/NO answer strictly: the first word must be YES or NO (markdown emphasis ignored). */
export function parseYesNo(text: string): 'YES' | 'NO' | undefined {
  const first = /^[\s*_`#>"'「(]*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase();
  return first === 'YES' || first === 'NO' ? first : undefined;
}

function describeArgs(args: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(args);
  } catch {
    text = String(args);
  }
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

/**
 * Builds the pre-execution tool-call guard. Destructive calls are always verified; in `auto`
 * mode, a model with a confidence signal (`capabilities.logprobs`) skips verification at
 * confidence ≥ 0.8, and models without one self-verify every call. Self-verification asks the
 * model "Is this tool call correct? Answer YES or NO" (through `generate`) and parses the first
 * word strictly: YES → allow, NO → deny with the model's reason, anything else (or a model
 * error) → `ask-human` (default) or `deny` per `onUnparseable`, never allow.
 *
 * @example
 * const guard = createToolCallGuard({ model, workspace: '/repo' });
 * const decision = await guard.check({ tool, args, request: 'Delete the build folder' }, { signal });
 */
export function createToolCallGuard(options: ToolCallGuardOptions): ToolCallGuard {
  const mode = options.mode ?? 'auto';
  if (!['auto', 'destructive', 'always', 'off'].includes(mode)) {
    throw new VerifierError({
      code: 'invalid-options',
      message: `createToolCallGuard: mode must be auto, destructive, always or off, got ${JSON.stringify(mode)}.`,
      details: { mode },
    });
  }
  const threshold = options.confidenceThreshold ?? 0.8;
  if (!(threshold >= 0 && threshold <= 1)) {
    throw new VerifierError({
      code: 'invalid-options',
      message: `createToolCallGuard: confidenceThreshold must be in [0, 1], got ${String(threshold)}.`,
      details: { confidenceThreshold: threshold },
    });
  }
  const capabilities: ModelCapabilities = { ...options.model.capabilities, ...options.capabilities };
  const classifyOptions = {
    ...(options.destructive ? { destructive: options.destructive } : {}),
    ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
  };
  const classify = (tool: AnyTool, args: unknown) => classifyDestructive(tool, args, classifyOptions);

  const unresolved = async (
    input: GuardCheckInput,
    reason: string,
    signal: AbortSignal,
  ): Promise<GuardDecision> => {
    if ((options.onUnparseable ?? 'ask-human') === 'deny') return { action: 'deny', reason };
    if (!options.onAskHuman) return { action: 'ask-human', reason };
    try {
      const answer = await options.onAskHuman(
        { tool: input.tool.name, args: input.args, request: input.request, reason },
        { signal },
      );
      return answer === true || answer === 'approve'
        ? { action: 'allow' }
        : { action: 'deny', reason: `A human rejected the call (${reason}).` };
    } catch (error) {
      if (signal.aborted) throw error;
      return {
        action: 'deny',
        reason: `Asking a human failed (${error instanceof Error ? error.message : String(error)}); ${reason}`,
      };
    }
  };

  return {
    classify,
    async check(input, checkOptions = {}) {
      if (checkOptions.signal?.aborted)
        throw new VerifierError({
          code: 'aborted',
          message: 'The tool-call guard was aborted.',
          cause: checkOptions.signal.reason,
        });
      if (mode === 'off') return { action: 'allow' };
      const classification = classify(input.tool, input.args);
      if (!classification.destructive && mode === 'destructive') return { action: 'allow' };
      if (!classification.destructive && mode === 'auto' && capabilities.logprobs) {
        if (input.confidence !== undefined && input.confidence >= threshold) return { action: 'allow' };
      }
      // Made only for a call the model verifies: an allowed call costs no controller.
      const signal = checkOptions.signal ?? new AbortController().signal;
      const prompt = [
        `The user asked: ${input.request || '(no request given)'}`,
        `You are about to run: ${input.tool.name}(${describeArgs(input.args)})`,
        classification.destructive ? `Warning: this call is destructive (${classification.reason}).` : '',
        'Is this tool call correct for the request? Answer YES or NO as the first word, then explain why.',
      ]
        .filter((line) => line !== '')
        .join('\n');
      let text: string;
      try {
        const result = await generate(
          options.model,
          {
            messages: [
              {
                role: 'system',
                content: toolCallGuardSystemPrompt,
              },
              { role: 'user', content: prompt },
            ],
            temperature: 0,
            maxOutputTokens: 300,
          },
          { signal },
        );
        text = result.text;
      } catch (error) {
        if (signal.aborted)
          throw new VerifierError({
            code: 'aborted',
            message: 'The tool-call guard was aborted.',
            cause: error,
          });
        return unresolved(
          input,
          `Self-verification of ${input.tool.name} failed: ${error instanceof Error ? error.message : String(error)}`,
          signal,
        );
      }
      const answer = parseYesNo(text);
      const explanation = text
        .replace(/^[\s*_`#>"'「(]*[A-Za-z]+[\s*_`:.,!-]*/, '')
        .trim()
        .slice(0, 500);
      if (answer === 'YES') return { action: 'allow' };
      if (answer === 'NO') {
        return {
          action: 'deny',
          reason: `Self-verification rejected ${input.tool.name}: ${explanation || 'no reason given'}`,
        };
      }
      return unresolved(
        input,
        `Self-verification of ${input.tool.name} gave no YES/NO answer: ${JSON.stringify(text.slice(0, 200))}`,
        signal,
      );
    },
  };
}
