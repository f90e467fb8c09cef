import type { ChatModel } from '@closedloop/model';
import * as openaiPackage from '@closedloop/provider-openai';
import {
  createOpenAI,
  type OpenAIChatModel,
  type OpenAIProvider,
  type OpenAIProviderOptions,
  type OpenAIResponsesModel,
  openai,
} from '@closedloop/provider-openai';
import { describe, expectTypeOf, it } from 'vitest';

describe('@closedloop/provider-openai public surface', () => {
  it('exports exactly these runtime values', () => {
    expectTypeOf<keyof typeof openaiPackage>().toEqualTypeOf<
      'createOpenAI' | 'openai' | 'OpenAIChatModel' | 'openAICompatibleProfiles' | 'OpenAIResponsesModel'
    >();
  });

  it('creates a provider whose models are chat models', () => {
    expectTypeOf(createOpenAI).parameters.toEqualTypeOf<[OpenAIProviderOptions?]>();
    expectTypeOf(createOpenAI).returns.toEqualTypeOf<OpenAIProvider>();
    expectTypeOf(openai).toEqualTypeOf<OpenAIProvider>();
    expectTypeOf(openai('gpt-4.1')).toEqualTypeOf<OpenAIChatModel>();
    expectTypeOf(openai('a-model-from-next-year')).toEqualTypeOf<OpenAIChatModel>();
    expectTypeOf(openai.responses('gpt-4.1')).toEqualTypeOf<OpenAIResponsesModel>();
    expectTypeOf<OpenAIChatModel>().toExtend<ChatModel>();
    expectTypeOf<OpenAIResponsesModel>().toExtend<ChatModel>();
  });

  it('keeps wire-format mapping out of the root', () => {
    // @ts-expect-error buildOpenAIRequest is not exported
    openaiPackage.buildOpenAIRequest;
    // @ts-expect-error mapOpenAIError is not exported
    openaiPackage.mapOpenAIError;
    // @ts-expect-error splitThinkTags is not exported
    openaiPackage.splitThinkTags;
  });
});
