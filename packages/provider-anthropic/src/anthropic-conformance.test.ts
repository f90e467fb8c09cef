import { conformanceReplies, fixtureReplies, runConformanceSuite } from '@closedloop/model/conformance';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { createAnthropic } from './anthropic-provider';

// Fixtures are named after the scenarios. `text-stream.http` cut short: message_start,
// content_block_start, ping and two text deltas, then the server just ends (5 events); 4 before
// the reset; 5 before the abort.
const fixtures = fixtureReplies(new URL('./__fixtures__/', import.meta.url));
const replies = conformanceReplies(fixtures, {
  streamCutAfterEvents: 5,
  resetAfterEvents: 4,
  holdAfterEvents: 5,
});

// The SDK console.warns for some model ids (deprecated models, `thinking.type=enabled` on newer
// ones). The default test run must stay quiet: any warning fails the test that caused it.
let warn: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  warn = vi.spyOn(console, 'warn');
});
afterEach(() => {
  expect(warn, 'the SDK printed a warning').not.toHaveBeenCalled();
  warn.mockRestore();
});

runConformanceSuite({
  name: 'anthropic',
  provider: 'anthropic',
  createModel: ({ serverUrl, apiKey, timeoutMs }) =>
    createAnthropic({ baseURL: serverUrl, apiKey, timeoutMs })('claude-sonnet-4-6'),
  replies,
  snapshotHeaders: ['x-api-key', 'anthropic-version', 'content-type', 'accept', 'x-stainless-retry-count'],
  retryReplies: [...fixtures.json('rate-limited'), ...fixtures.json('text')],
});
