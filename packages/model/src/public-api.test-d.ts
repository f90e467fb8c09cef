import * as model from '@closedloop/model';
import {
  type ChatModel,
  type GenerateObjectResult,
  type GenerateRequest,
  type GenerateResult,
  generate,
  generateObject,
  type ModelError,
  type ModelErrorCode,
  type StreamPart,
  type Usage,
  withRetry,
} from '@closedloop/model';
import {
  extractJson,
  mapSdkError,
  parseToolCall,
  streamToResult,
  toJsonSchema,
} from '@closedloop/model/provider';
import type { ScriptedModel } from '@closedloop/model/testing';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

describe('@closedloop/model public surface', () => {
  it('exports exactly these runtime values', () => {
    expectTypeOf<keyof typeof model>().toEqualTypeOf<
      | 'ClosedloopError'
      | 'clearProbeCache'
      | 'computeCost'
      | 'createRedactor'
      | 'createUsageTracker'
      | 'findPrice'
      | 'generate'
      | 'generateObject'
      | 'isSecretEnvName'
      | 'isSecretName'
      | 'linkedAbortController'
      | 'lookupCapabilities'
      | 'ModelError'
      | 'onAbort'
      | 'probeCapabilities'
      | 'registerCapabilities'
      | 'registerSecret'
      | 'resolveCapabilities'
      | 'toToolSpec'
      | 'withRetry'
    >();
  });

  it('calls a chat model', () => {
    expectTypeOf<ChatModel['doGenerate']>().returns.resolves.toEqualTypeOf<GenerateResult>();
    expectTypeOf<ChatModel['doStream']>().returns.toEqualTypeOf<AsyncIterable<StreamPart>>();
    expectTypeOf(generate).parameters.toExtend<[ChatModel, GenerateRequest, ...unknown[]]>();
    expectTypeOf(generate).returns.resolves.toEqualTypeOf<GenerateResult>();
    expectTypeOf<GenerateResult['usage']>().toEqualTypeOf<Usage>();
    expectTypeOf<ScriptedModel>().toExtend<ChatModel>();
  });

  it('parses a typed object out of a model answer', () => {
    const schema = z.object({ name: z.string() });
    const answer = generateObject({} as ChatModel, schema, 'name?');
    expectTypeOf(answer).resolves.toEqualTypeOf<GenerateObjectResult<{ name: string }>>();
  });

  it('types its errors and retries', () => {
    expectTypeOf<ModelError['code']>().toEqualTypeOf<ModelErrorCode>();
    expectTypeOf(withRetry).toBeFunction();
  });

  it('keeps adapter building blocks behind @closedloop/model/provider', () => {
    // @ts-expect-error parseToolCall lives in @closedloop/model/provider
    model.parseToolCall;
    // @ts-expect-error mapSdkError lives in @closedloop/model/provider
    model.mapSdkError;
    // @ts-expect-error extractJson lives in @closedloop/model/provider
    model.extractJson;
    // @ts-expect-error abortableSleep is not exported
    model.abortableSleep;
    expectTypeOf(parseToolCall).toBeFunction();
    expectTypeOf(mapSdkError).returns.toEqualTypeOf<ModelError>();
    expectTypeOf(streamToResult).returns.resolves.toEqualTypeOf<GenerateResult>();
    expectTypeOf(toJsonSchema).toBeFunction();
    expectTypeOf(extractJson).toBeFunction();
  });
});
