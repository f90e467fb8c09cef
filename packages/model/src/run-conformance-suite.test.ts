import { describe, expect, it } from 'vitest';
import type { FixtureReplies } from './fixture-replies';
import type { LoopbackReply } from './loopback-server';
import { ModelError } from './model-error';
import {
  CANARY_API_KEY,
  conformanceReplies,
  conformanceScenarioNames,
  expectNoSecretLeak,
  runConformanceSuite,
} from './run-conformance-suite';

/** Fixture builders that say which fixture and how, instead of reading files. */
const fakeFixtures: FixtureReplies = {
  read: (name) => ({ status: 200, headers: {}, body: name }),
  json: (name) => [{ type: 'response', response: { status: 200, headers: {}, body: name } }],
  sse: (name, options = {}) => [
    { type: 'response', response: { status: 200, headers: {}, body: name }, chunking: 'events', ...options },
  ],
};

// The suite itself runs in @closedloop/provider-openai and @closedloop/provider-anthropic
// against real SDKs; here only its input checks.
describe('runConformanceSuite', () => {
  it('rejects an incomplete target with invalid-options, listing every problem', () => {
    let caught: unknown;
    try {
      runConformanceSuite({ name: '', provider: 'x' } as unknown as Parameters<
        typeof runConformanceSuite
      >[0]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      name: 'ConformanceError',
      code: 'invalid-options',
      message: expect.stringMatching(/name must be .*createModel must be .*replies must be .*retryReplies/),
    });
  });

  it('names every scenario the issue asks for', () => {
    expect(conformanceScenarioNames).toEqual(
      expect.arrayContaining([
        'text',
        'tool-call',
        'parallel-tool-calls',
        'tool-call-no-arguments',
        'tool-arguments-split',
        'structured-output',
        'rate-limited',
        'server-error-500',
        'bad-gateway-502',
        'unavailable-503',
        'overloaded-529',
        'malformed-json',
        'stream-cut',
        'connection-reset',
        'abort-mid-stream',
        'unknown-finish-reason',
      ]),
    );
  });
});

describe('conformanceReplies', () => {
  const counts = { streamCutAfterEvents: 4, resetAfterEvents: 3, holdAfterEvents: 2 };

  it('maps every scenario to its fixture: whole for generate, event by event for stream scenarios', () => {
    const replies = conformanceReplies(fakeFixtures, counts);
    expect(Object.keys(replies).sort()).toEqual([...conformanceScenarioNames].sort());
    expect(replies.text).toEqual(fakeFixtures.json('text'));
    expect(replies['rate-limited']).toEqual(fakeFixtures.json('rate-limited'));
    expect(replies['text-stream']).toEqual(fakeFixtures.sse('text-stream'));
    expect(replies['tool-arguments-split']).toEqual(fakeFixtures.sse('tool-arguments-split'));
    expect(replies['stream-cut']).toEqual(fakeFixtures.sse('text-stream', { limitEvents: 4 }));
    expect(replies['connection-reset-mid-stream']).toEqual(
      fakeFixtures.sse('text-stream', { limitEvents: 3, after: 'destroy' }),
    );
    expect(replies['abort-mid-stream']).toEqual(
      fakeFixtures.sse('text-stream', { limitEvents: 2, after: 'hold' }),
    );
    expect(replies['connection-reset']).toEqual([{ type: 'reset' }]);
    expect(replies.timeout).toEqual([{ type: 'hang' }]);
    expect(replies['abort-generate']).toEqual([{ type: 'hang' }]);
  });

  it('lets overrides win and rejects bad counts with invalid-options', () => {
    const custom: LoopbackReply[] = [{ type: 'reset' }];
    expect(conformanceReplies(fakeFixtures, { ...counts, overrides: { text: custom } }).text).toBe(custom);
    expect(() => conformanceReplies(fakeFixtures, { ...counts, holdAfterEvents: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid-options', message: expect.stringMatching(/holdAfterEvents/) }),
    );
  });
});

describe('expectNoSecretLeak', () => {
  it('passes for a clean error and fails when the key hides in the message, a field or the cause', () => {
    const clean = new ModelError({ code: 'auth', message: 'bad key [redacted]' });
    expect(() => expectNoSecretLeak(clean)).not.toThrow();
    expect(() => expectNoSecretLeak(undefined)).not.toThrow();
    const inMessage = new ModelError({ code: 'auth', message: `bad key ${CANARY_API_KEY}` });
    expect(() => expectNoSecretLeak(inMessage)).toThrow(/the secret leaked/);
    const inCause = new ModelError({
      code: 'auth',
      message: 'bad key',
      cause: Object.assign(new Error('x'), { headers: { 'x-api-key': 'k-123456' } }),
    });
    expect(() => expectNoSecretLeak(inCause, 'k-123456')).toThrow(/the secret leaked/);
  });
});
