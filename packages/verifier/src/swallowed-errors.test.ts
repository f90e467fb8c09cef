import { describe, expect, it } from 'vitest';
import { handlingAsked, loggingAsked, swallowedErrors } from './swallowed-errors';

describe('swallowedErrors', () => {
  it('reads error handling asked, not silencing asked', () => {
    expect(handlingAsked('Handle errors in fetchUser')).toBe(true);
    expect(handlingAsked('Add error handling to src/api.js')).toBe(true);
    expect(handlingAsked('Ignore errors in the cleanup (best effort)')).toBe(false);
    expect(handlingAsked('Fix the bug in src/api.js')).toBe(false);
  });

  it('finds added handlers that all do nothing', async () => {
    const before = 'export function f() {\n  return g();\n}\n';
    const empty = 'export function f() {\n  try {\n    return g();\n  } catch {}\n}\n';
    const real =
      'export function f() {\n  try {\n    return g();\n  } catch (e) {\n    return null;\n  }\n}\n';
    expect((await swallowedErrors([{ file: 'a.js', before, after: empty }])).files).toEqual(['a.js']);
    expect((await swallowedErrors([{ file: 'a.js', before, after: real }])).files).toEqual([]);
    expect((await swallowedErrors([{ file: 'a.js', before: empty, after: empty }])).files).toEqual([]);
    expect(
      (
        await swallowedErrors([
          { file: 'a.py', before: undefined, after: 'try:\n    f()\nexcept Exception:\n    pass\n' },
        ])
      ).files,
    ).toEqual(['a.py']);
    expect(
      (
        await swallowedErrors([
          { file: 'a.py', before: undefined, after: 'try:\n    f()\nexcept OSError:\n    return None\n' },
        ])
      ).files,
    ).toEqual([]);
  });

  it('reads propagation and retries as handling, and logging asked as making a log-only handler the work', () => {
    expect(handlingAsked('Propagate network errors from fetchUser to the caller')).toBe(true);
    expect(handlingAsked('Retry the upload on failure')).toBe(true);
    expect(handlingAsked('Make errors in load propagate to the caller')).toBe(true);
    expect(loggingAsked('Log errors in fetchUser')).toBe(true);
    expect(loggingAsked('Handle errors in fetchUser')).toBe(false);
  });

  it('counts handlers that only log and carry on, unless logging is handling', async () => {
    const before = 'export function f() {\n  return g();\n}\n';
    const logs = [
      'export function f() {\n  try {\n    return g();\n  } catch (e) {\n    console.log(e);\n  }\n}\n',
      'export function f() {\n  try {\n    return g();\n  } catch (error) {\n    console.error("f failed:", { error });\n    logger.warn("f", error.message);\n  }\n}\n',
      'export const f = () => g().catch((e) => console.error(e));\n',
    ];
    for (const after of logs) {
      expect(await swallowedErrors([{ file: 'a.js', before, after }])).toEqual({
        files: ['a.js'],
        logged: true,
      });
      expect(
        (await swallowedErrors([{ file: 'a.js', before, after }], { logIsHandling: true })).files,
      ).toEqual([]);
    }
    const handled = [
      'export function f() {\n  try {\n    return g();\n  } catch (e) {\n    console.error(e);\n    throw e;\n  }\n}\n',
      'export function f() {\n  try {\n    return g();\n  } catch (e) {\n    console.error(e);\n    process.exitCode = 1;\n  }\n}\n',
      'export const f = () => g().catch((e) => { console.error(e); return null; });\n',
    ];
    for (const after of handled)
      expect((await swallowedErrors([{ file: 'a.js', before, after }])).files).toEqual([]);
    const py = (handler: string) =>
      `def f():\n    try:\n        return g()\n    except Exception as e:\n${handler}`;
    expect(
      (await swallowedErrors([{ file: 'a.py', before: undefined, after: py('        print(e)\n') }])).files,
    ).toEqual(['a.py']);
    expect(
      (
        await swallowedErrors([
          { file: 'a.py', before: undefined, after: py('        logging.exception("f")\n') },
        ])
      ).files,
    ).toEqual(['a.py']);
    expect(
      (
        await swallowedErrors([
          { file: 'a.py', before: undefined, after: py('        print(e)\n        raise\n') },
        ])
      ).files,
    ).toEqual([]);
    expect(
      (
        await swallowedErrors([
          { file: 'a.py', before: undefined, after: py('        print(e)\n    return None\n') },
        ])
      ).files,
    ).toEqual(['a.py']);
  });

  it('reads a log-only handler inside a loop as a retry', async () => {
    const js =
      'export async function f() {\n  for (let i = 0; i < 3; i++) {\n    try {\n      return await g();\n    } catch (e) {\n      console.warn(e);\n    }\n  }\n  throw new Error("f failed");\n}\n';
    expect((await swallowedErrors([{ file: 'a.js', before: undefined, after: js }])).files).toEqual([]);
    const py =
      'def f():\n    for attempt in range(3):\n        try:\n            return g()\n        except OSError as e:\n            logger.warning(e)\n    raise RuntimeError("f failed")\n';
    expect((await swallowedErrors([{ file: 'a.py', before: undefined, after: py }])).files).toEqual([]);
    const after = 'for (const x of xs) {\n  use(x);\n}\ntry {\n  g();\n} catch (e) {\n  console.log(e);\n}\n';
    expect((await swallowedErrors([{ file: 'a.js', before: undefined, after }])).files).toEqual(['a.js']);
  });
});
