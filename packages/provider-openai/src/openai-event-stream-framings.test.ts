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
// A proxy in front of OpenAI's own API may send an `event:` without data too: every framing
// holds for `name: 'openai'` as for any server.
const openAIFramings = eventStreamFramings;

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
