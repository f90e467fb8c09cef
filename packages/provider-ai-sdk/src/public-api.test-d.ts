import type { ChatModel } from '@closedloop/model';
import * as aiSdk from '@closedloop/provider-ai-sdk';
import {
  type AISDKChatModel,
  type AISDKLanguageModel,
  type FromAISDKOptions,
  fromAISDK,
} from '@closedloop/provider-ai-sdk';
import { describe, expectTypeOf, it } from 'vitest';

describe('@closedloop/provider-ai-sdk public surface', () => {
  it('exports exactly these runtime values', () => {
    expectTypeOf<keyof typeof aiSdk>().toEqualTypeOf<'AISDKChatModel' | 'fromAISDK'>();
  });

  it('wraps an AI SDK language model as a chat model', () => {
    expectTypeOf(fromAISDK).parameters.toEqualTypeOf<[AISDKLanguageModel, FromAISDKOptions?]>();
    expectTypeOf(fromAISDK).returns.toEqualTypeOf<AISDKChatModel>();
    expectTypeOf<AISDKChatModel>().toExtend<ChatModel>();
  });

  it('keeps the AI SDK mapping out of the root', () => {
    // @ts-expect-error toAISDKPrompt is not exported
    aiSdk.toAISDKPrompt;
    // @ts-expect-error mapAISDKError is not exported
    aiSdk.mapAISDKError;
  });
});
