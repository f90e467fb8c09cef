import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FilePart,
  LanguageModelV3ReasoningPart,
  LanguageModelV3TextPart,
  LanguageModelV3ToolCallPart,
  LanguageModelV3ToolResultPart,
} from '@ai-sdk/provider';

// AI SDK 7's specification (`@ai-sdk/provider@4`, `LanguageModelV4`) needs Node >= 22, so the
// package declares the few V4 shapes it uses here instead of depending on it. Where V4 agrees with
// V3 (text, reasoning and tool-call parts, tools, tool choice, response format) the V3 types stand
// in; `language-model-v4.test-d.ts` checks these declarations against the real `@ai-sdk/provider@4`.

/**
 * The prompt messages `toAISDKPrompt` builds: the part of the AI SDK prompt this bridge uses, the
 * same in every specification version except for the shape of file parts.
 */
export type AISDKPromptMessage<FilePart = LanguageModelV3FilePart> =
  | { role: 'system'; content: string }
  | { role: 'user'; content: Array<LanguageModelV3TextPart | FilePart> }
  | {
      role: 'assistant';
      content: Array<LanguageModelV3TextPart | LanguageModelV3ReasoningPart | LanguageModelV3ToolCallPart>;
    }
  | {
      role: 'tool';
      content: Array<
        Omit<LanguageModelV3ToolResultPart, 'output'> & {
          output: { type: 'text' | 'error-text'; value: string };
        }
      >;
    };

/** V4 file data: a tagged union (V3 took the bytes, base64 string or URL as is). */
export type LanguageModelV4FileData =
  | { type: 'data'; data: Uint8Array | string }
  | { type: 'url'; url: URL; originalUrl?: string };

/** A V4 file part of a user message. */
export type LanguageModelV4FilePart = Omit<LanguageModelV3FilePart, 'data'> & {
  data: LanguageModelV4FileData;
};

/** A V4 prompt message as this bridge builds it. */
export type LanguageModelV4Message = AISDKPromptMessage<LanguageModelV4FilePart>;

/** The reasoning effort V4 call options carry (V3 had no field for it). */
export type LanguageModelV4Reasoning =
  | 'provider-default'
  | 'none'
  | 'minimal'
  | 'low'
  | 'medium'
  | 'high'
  | 'xhigh'
  | 'max';

/** V4 call options: V3's with a V4 prompt and the `reasoning` effort. */
export type LanguageModelV4CallOptions = Omit<LanguageModelV3CallOptions, 'prompt'> & {
  prompt: LanguageModelV4Message[];
  reasoning?: LanguageModelV4Reasoning;
};

/**
 * An AI SDK 7 language model (`@ai-sdk/provider@4`, specification v4), as far as `fromAISDK` uses
 * it: results are read as untyped data, like those of the v2 and v3 specifications.
 */
export interface LanguageModelV4 {
  readonly specificationVersion: 'v4';
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: PromiseLike<Record<string, RegExp[]>> | Record<string, RegExp[]>;
  doGenerate(options: LanguageModelV4CallOptions): PromiseLike<unknown>;
  doStream(options: LanguageModelV4CallOptions): PromiseLike<unknown>;
}
