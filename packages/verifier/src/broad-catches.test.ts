import { describe, expect, it } from 'vitest';
import { addedBroadHandlers, oneErrorAsked } from './broad-catches';

describe('broad catches', () => {
  it('reads one kind of error asked', () => {
    expect(oneErrorAsked('Return {} when the file does not exist (ENOENT) and rethrow other errors')).toBe(
      true,
    );
    expect(oneErrorAsked('Return an empty dict only when the file is missing')).toBe(true);
    expect(oneErrorAsked('Catch KeyError in lookup and return None')).toBe(true);
    expect(oneErrorAsked('Handle errors in fetchUser')).toBe(false);
  });

  it('finds a handler added that catches every error without looking at it', async () => {
    const before = "export function load(p) {\n  return JSON.parse(readFileSync(p, 'utf8'));\n}\n";
    const broad =
      "export function load(p) {\n  try {\n    return JSON.parse(readFileSync(p, 'utf8'));\n  } catch {\n    return {};\n  }\n}\n";
    const narrow =
      "export function load(p) {\n  try {\n    return JSON.parse(readFileSync(p, 'utf8'));\n  } catch (error) {\n    if (error.code === 'ENOENT') return {};\n    throw error;\n  }\n}\n";
    expect(await addedBroadHandlers([{ file: 'a.js', before, after: broad }])).toEqual(['a.js']);
    expect(await addedBroadHandlers([{ file: 'a.js', before, after: narrow }])).toEqual([]);
    const py = 'def load(p):\n    with open(p) as f:\n        return f.read()\n';
    const pyBroad =
      'def load(p):\n    try:\n        with open(p) as f:\n            return f.read()\n    except Exception:\n        return ""\n';
    expect(await addedBroadHandlers([{ file: 'a.py', before: py, after: pyBroad }])).toEqual(['a.py']);
    expect(
      await addedBroadHandlers([
        { file: 'a.py', before: py, after: pyBroad.replace('Exception', 'FileNotFoundError') },
      ]),
    ).toEqual([]);
    const wrapped = pyBroad.replace('        return ""', '        raise LoadError(p) from None');
    expect(await addedBroadHandlers([{ file: 'a.py', before: py, after: wrapped }])).toEqual([]);
  });
});
