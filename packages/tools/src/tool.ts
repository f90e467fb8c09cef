import type { z } from 'zod';

/** Progress a long-running tool reports while it works. */
export interface ToolProgress {
  message: string;
  /** 0..1 when known. */
  fraction?: number;
}

/** What a tool receives besides its validated input. */
export interface ToolContext {
  /** The run's signal: a tool must stop promptly when it aborts. */
  signal: AbortSignal;
  /** Provider call id of this invocation. */
  callId: string;
  onProgress?: (progress: ToolProgress) => void;
  /**
   * Called with each process the tool starts (`run_command`). A process can outlive a parent
   * that is killed, so a caller that journals calls records it to find it again after a crash.
   */
  onProcess?: (process: { pid: number }) => void;
  /**
   * The environment tag (`CLOSEDLOOP_PROCESS_TAG`) every process the tool starts carries, its
   * descendants included (`run_command`). A caller that journals calls chooses it and records it
   * before the call runs: after a crash a resume finds the call's processes by it in `/proc`, even
   * those whose pid was never recorded or that left the process group.
   */
  processTag?: string;
}

/**
 * A tool the model can call. Build one with `defineTool`. `execute` returns any
 * JSON-serialisable value (strings pass through unchanged) or throws: a throw becomes an
 * `error` result the model sees, never a crash of the loop.
 */
export interface Tool<Input = unknown, Output = unknown> {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType<Input>;
  readonly output?: z.ZodType<Output>;
  /** Deletes/overwrites data, runs a shell-like command, pushes… Always pre-verified by the guard. */
  readonly destructive: boolean;
  /** Safe to re-run after a crash (resume re-runs in-flight idempotent steps only). */
  readonly idempotent: boolean;
  readonly timeoutMs: number | undefined;
  /**
   * The JSON Schema the model sees, when it must not be derived from `input` (MCP tools keep
   * their server's schema). Default: `z.toJSONSchema(input)`.
   */
  readonly inputJsonSchema?: Record<string, unknown>;
  /**
   * Renders a successful result for the model. Without it the registry sends strings as is and
   * anything else as JSON. (`run_command` uses it to show stdout/stderr as plain text.)
   */
  toText?(output: Output): string;
  execute(input: Input, context: ToolContext): Promise<Output>;
}

/** A tool with its generic types erased, as registries hold them. */
// biome-ignore lint/suspicious/noExplicitAny: variance escape hatch for heterogeneous tool lists
export type AnyTool = Tool<any, any>;

/**
 * The outcome of one registry execution: always a value, never a throw (an aborted run answers
 * `{ status: 'error', code: 'aborted' }`). `text` is what goes back to the model: redacted and
 * truncated.
 */
export type ToolOutcome =
  | { status: 'success'; output: unknown; text: string }
  | {
      status: 'error';
      code: ToolErrorCode;
      message: string;
      text: string;
      /** Structured detail (available tool names, zod issues, the offending path…). */
      details?: Readonly<Record<string, unknown>>;
    };

/**
 * Why a tool call failed. `invalid-definition` is only thrown by `defineTool` /
 * `createToolRegistry` for a bad tool definition; it never appears in an outcome.
 */
export type ToolErrorCode =
  | 'unknown-tool'
  | 'invalid-arguments'
  | 'execution-failed'
  | 'timeout'
  | 'aborted'
  | 'path-escape'
  | 'command-denied'
  | 'sandbox-unavailable'
  | 'output-invalid'
  | 'invalid-definition';
