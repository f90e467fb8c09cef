import { describe, expect, it } from 'vitest';
import { askedUses, usesName } from './asked-uses';

describe('askedUses', () => {
  it('reads "`X` … and use it in F", "use `X` in F", "wire `X` into F"', () => {
    expect(askedUses('Add `sanitize(text)` to src/util.js and use it in src/server.js')).toEqual([
      { name: 'sanitize', file: 'src/server.js' },
    ]);
    expect(askedUses('Call `audit()` from app/views.py.')).toEqual([{ name: 'audit', file: 'app/views.py' }]);
    expect(askedUses('Write `rateLimit` in src/limit.js, then wire it into src/app.js')).toEqual([
      { name: 'rateLimit', file: 'src/app.js' },
    ]);
  });

  it('reads nothing for packages or without a file right after', () => {
    expect(askedUses('Install `left-pad` and use it in src/pad.js')).toEqual([]);
    expect(askedUses('Add `sanitize` and use it everywhere in src/server.js')).toEqual([]);
  });
});

describe('usesName', () => {
  it('counts a call or a reference, not an import, a comment or a string', async () => {
    const imported =
      "import { sanitize } from './util.js';\n\nexport function handle(body) {\n  return body;\n}\n";
    expect(await usesName('src/server.js', imported, 'sanitize')).toBe(false);
    expect(
      await usesName(
        'src/server.js',
        `${imported.replace('return body', '// sanitize(body)\n  return body')}`,
        'sanitize',
      ),
    ).toBe(false);
    expect(
      await usesName('src/server.js', imported.replace('return body', 'return sanitize(body)'), 'sanitize'),
    ).toBe(true);
    const multi = "import {\n  sanitize,\n  trim,\n} from './util.js'\nexport const clean = (s) => trim(s)\n";
    expect(await usesName('src/server.js', multi, 'sanitize')).toBe(false);
    expect(await usesName('src/server.js', `${multi}app.use(sanitize)\n`, 'sanitize')).toBe(true);
    const py = 'from app.util import audit\n\n\ndef view(request):\n    return "audit"\n';
    expect(await usesName('app/views.py', py, 'audit')).toBe(false);
    expect(await usesName('app/views.py', py.replace('"audit"', 'audit(request)'), 'audit')).toBe(true);
  });
});
