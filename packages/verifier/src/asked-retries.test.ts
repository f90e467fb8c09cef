import { describe, expect, it } from 'vitest';
import { addsRetry, retryAsked } from './asked-retries';

describe('asked retries', () => {
  it('reads a retry asked, not one taken away', () => {
    expect(retryAsked('Retry fetchUser up to 3 times on network errors')).toBe(true);
    expect(retryAsked('Add retries to upload in app/upload.py')).toBe(true);
    expect(retryAsked('Remove the retries from upload')).toBe(false);
    expect(retryAsked('Handle errors in fetchUser')).toBe(false);
  });

  it('finds a loop, a retry helper, a decorator or a retry setting added — or none', async () => {
    const before = 'export async function f() {\n  return g();\n}\n';
    const once =
      'export async function f() {\n  try {\n    return await g();\n  } catch (e) {\n    throw new Error("f failed", { cause: e });\n  }\n}\n';
    const loop =
      'export async function f() {\n  for (let i = 0; i < 3; i++) {\n    try {\n      return await g();\n    } catch {}\n  }\n  throw new Error("f");\n}\n';
    expect(await addsRetry([{ file: 'a.js', before, after: once }])).toBe(false);
    expect(await addsRetry([{ file: 'a.js', before, after: loop }])).toBe(true);
    const rethrowing =
      'export async function f() {\n  for (let i = 0; i < 3; i++) {\n    try {\n      return await g();\n    } catch (error) {\n      throw error;\n    }\n  }\n}\n';
    expect(await addsRetry([{ file: 'a.js', before, after: rethrowing }])).toBe(false);
    const pyBefore = 'def f():\n    return g()\n';
    const pyRethrowing =
      'def f():\n    for _ in range(3):\n        try:\n            return g()\n        except OSError:\n            raise\n';
    const pyRetrying =
      'def f():\n    for attempt in range(3):\n        try:\n            return g()\n        except OSError:\n            if attempt == 2:\n                raise\n';
    expect(await addsRetry([{ file: 'a.py', before: pyBefore, after: pyRethrowing }])).toBe(false);
    expect(await addsRetry([{ file: 'a.py', before: pyBefore, after: pyRetrying }])).toBe(true);
    expect(
      await addsRetry([
        {
          file: 'a.js',
          before,
          after: `import pRetry from 'p-retry';\n${before.replace('g()', 'pRetry(g)')}`,
        },
      ]),
    ).toBe(true);
    expect(
      await addsRetry([
        { file: 'u.py', before: 'def up():\n    pass\n', after: '@retry(stop=3)\ndef up():\n    pass\n' },
      ]),
    ).toBe(true);
    expect(
      await addsRetry([
        { file: 'vitest.config.ts', before: 'x({ test: {} });\n', after: 'x({ test: { retry: 2 } });\n' },
      ]),
    ).toBe(true);
    expect(await addsRetry([{ file: 'a.json', before: '{}', after: '{"retries": 2}' }])).toBeUndefined();
  });
});
