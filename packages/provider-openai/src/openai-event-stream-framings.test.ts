import {
  eventStreamFramings,
  runEventStreamFramingSuite,
  useLoopbackServer,
} from '@closedloop/model/conformance';
import { createOpenAI } from './openai-provider';

// Every recorded event stream means the same with any line ending, without the blank line after
// the last event (a finish chunk, a `response.completed` or a stream error event was lost), with
// comments, fields and `data:` without its space — for OpenAI (a proxy in front of it frames
// streams its own way) and for OpenAI-compatible servers.
const server = useLoopbackServer();
const responses = (name: string) => name.startsWith('responses-');
// OpenAI's own API never sends an `event:` without data, and `name: 'openai'` skips the filter
// that drops one (≈ 0.2 ms per stream); empty `data:` lines are dropped for it like for any server.
const openAIFramings = eventStreamFramings.filter(
  (framing) => !framing.title.startsWith('keep-alive events'),
);

for (const [name, folder, include] of [
  ['openai', './__fixtures__/', undefined],
  ['openai', './__fixtures__/quirks/', (fixture: string) => !responses(fixture)],
  ['openai-compatible', './__fixtures__/quirks/', (fixture: string) => !responses(fixture)],
] as const)
  runEventStreamFramingSuite({
    name: `createOpenAI({ name: '${name}' }) ${folder}`,
    server,
    directory: new URL(folder, import.meta.url),
    include: (fixture) => fixture !== 'proxy-keep-alive-never-closes-stream' && (include?.(fixture) ?? true),
    ...(name === 'openai' ? { framings: openAIFramings } : {}),
    createModel: ({ serverUrl }) =>
      createOpenAI({ name, apiKey: 'sk-loopback-000000', baseURL: `${serverUrl}/v1` })('gpt-4.1'),
  });

for (const [folder, include] of [
  ['./__fixtures__/responses/', undefined],
  ['./__fixtures__/quirks/', responses],
] as const)
  runEventStreamFramingSuite({
    name: `createOpenAI().responses ${folder}`,
    server,
    directory: new URL(folder, import.meta.url),
    ...(include ? { include } : {}),
    framings: openAIFramings,
    createModel: ({ serverUrl }) =>
      createOpenAI({ name: 'openai', apiKey: 'sk-loopback-000000', baseURL: `${serverUrl}/v1` }).responses(
        'gpt-4.1',
      ),
  });
