import type { createGoogleGenerativeAI } from '@ai-sdk/google-v4';
import type { createOpenAICompatible } from '@ai-sdk/openai-compatible-v4';
import type {
  LanguageModelV4 as RealLanguageModelV4,
  LanguageModelV4CallOptions as RealLanguageModelV4CallOptions,
} from '@ai-sdk/provider-v4';
import type { AISDKLanguageModel } from '@closedloop/provider-ai-sdk';
import { describe, expectTypeOf, it } from 'vitest';
import type { LanguageModelV4, LanguageModelV4CallOptions } from './language-model-v4';

// The package declares the V4 shapes it uses (`language-model-v4.ts`) instead of depending on
// `@ai-sdk/provider@4`, which needs Node >= 22; these checks hold those declarations to the real
// package (a dev dependency, `@ai-sdk/provider-v4`).
describe('the local specification-v4 declarations against @ai-sdk/provider@4', () => {
  it('accepts every real LanguageModelV4, and AI SDK 7 provider models', () => {
    expectTypeOf<RealLanguageModelV4>().toExtend<LanguageModelV4>();
    expectTypeOf<RealLanguageModelV4>().toExtend<AISDKLanguageModel>();
    expectTypeOf<ReturnType<ReturnType<typeof createGoogleGenerativeAI>>>().toExtend<AISDKLanguageModel>();
    expectTypeOf<ReturnType<ReturnType<typeof createOpenAICompatible>>>().toExtend<AISDKLanguageModel>();
  });

  it('builds call options a real V4 model takes', () => {
    expectTypeOf<LanguageModelV4CallOptions>().toExtend<RealLanguageModelV4CallOptions>();
  });

  it('still tells the versions apart', () => {
    expectTypeOf<{
      specificationVersion: 'v5';
      provider: string;
      modelId: string;
    }>().not.toExtend<AISDKLanguageModel>();
  });
});
