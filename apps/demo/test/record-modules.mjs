// `node --import ./test/record-modules.mjs …`: on exit, writes every module the process loaded
// (one URL a line) to the file named by CLOSEDLOOP_RECORD_MODULES. ES modules are seen by a
// resolve hook (module.register); CommonJS files by the require cache.
import { appendFileSync, writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.CLOSEDLOOP_RECORD_MODULES;
if (file) {
  writeFileSync(file, '');
  const { port1, port2 } = new MessageChannel();
  const seen = new Set();
  port1.on('message', (url) => seen.add(url));
  port1.unref();
  register(
    `data:text/javascript,${encodeURIComponent(`
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port.postMessage(result.url);
  return result;
}`)}`,
    { data: { port: port2 }, transferList: [port2] },
  );
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => {
    for (const path of Object.keys(cache)) seen.add(pathToFileURL(path).href);
    appendFileSync(file, [...seen].map((url) => `${url}\n`).join(''));
  });
}
