import { runEventStreamFramingSuite, useLoopbackServer } from '@closedloop/model/conformance';
import { createAnthropic } from './anthropic-provider';

// Every recorded event stream means the same with any line ending, without the blank line after
// the last event (a stream error event was lost: an overload or a context-length error read as a
// cut connection), with comments, fields and `data:` without its space — from Anthropic's own
// host and from a gateway's.
const server = useLoopbackServer();

for (const folder of ['./__fixtures__/', './__fixtures__/quirks/'])
  runEventStreamFramingSuite({
    name: `createAnthropic ${folder}`,
    server,
    directory: new URL(folder, import.meta.url),
    createModel: ({ serverUrl }) =>
      createAnthropic({ apiKey: 'sk-ant-loopback-000000', baseURL: serverUrl })('claude-sonnet-4-5'),
  });
