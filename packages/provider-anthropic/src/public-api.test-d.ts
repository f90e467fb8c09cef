import type { ChatModel } from '@closedloop/model';
import * as anthropicPackage from '@closedloop/provider-anthropic';
import {
  type AnthropicChatModel,
  type AnthropicProvider,
  type AnthropicProviderOptions,
  anthropic,
  createAnthropic,
} from '@closedloop/provider-anthropic';
import { describe, expectTypeOf, it } from 'vitest';

describe('@closedloop/provider-anthropic public surface', () => {
  it('exports exactly these runtime values', () => {
    expectTypeOf<keyof typeof anthropicPackage>().toEqualTypeOf<
      'anthropic' | 'AnthropicChatModel' | 'createAnthropic'
    >();
  });

  it('creates a provider whose models are chat models', () => {
    expectTypeOf(createAnthropic).parameters.toEqualTypeOf<[AnthropicProviderOptions?]>();
    expectTypeOf(createAnthropic).returns.toEqualTypeOf<AnthropicProvider>();
    expectTypeOf(anthropic).toEqualTypeOf<AnthropicProvider>();
    expectTypeOf(anthropic('claude-sonnet-4-5')).toEqualTypeOf<AnthropicChatModel>();
    expectTypeOf(anthropic.chat('a-model-from-next-year')).toEqualTypeOf<AnthropicChatModel>();
    expectTypeOf<AnthropicChatModel>().toExtend<ChatModel>();
  });

  it('keeps wire-format mapping out of the root', () => {
    // @ts-expect-error buildAnthropicRequest is not exported
    anthropicPackage.buildAnthropicRequest;
    // @ts-expect-error mapAnthropicError is not exported
    anthropicPackage.mapAnthropicError;
    // @ts-expect-error toAnthropicMessages is not exported
    anthropicPackage.toAnthropicMessages;
  });
});
