import { describe, expect, it } from 'vitest';
import { functionArities, offeredNames, requiredFields, staleCallers } from './stale-callers';

const exists = (files: Record<string, string>) => (file: string) => file in files;

describe('functionArities', () => {
  it('reads required, optional, default and rest parameters of JS/TS functions', () => {
    const arities = functionArities(
      'a.ts',
      'export function f(a: number, b?: string, c = 2) {}\nexport const g = async (x, ...rest) => x;\nfunction h(this: Window, x: number) {}\n',
    );
    expect(arities.get('f')).toEqual({ min: 1, max: 3 });
    expect(arities.get('g')).toEqual({ min: 1, max: Number.POSITIVE_INFINITY });
    expect(arities.get('h')).toEqual({ min: 1, max: 1 });
  });

  it('reads Python parameters up to the keyword-only ones', () => {
    const arities = functionArities(
      'a.py',
      'def f(a, b=1, *args, key, **kw):\n    pass\n\ndef g(a, *, key):\n    pass\n',
    );
    expect(arities.get('f')).toEqual({ min: 1, max: Number.POSITIVE_INFINITY });
    expect(arities.get('g')).toEqual({ min: 1, max: 1 });
  });
});

describe('offeredNames and requiredFields', () => {
  it('reads CommonJS exports and gives up on a module.exports that is not an object literal', () => {
    expect([
      ...(offeredNames('u.js', 'module.exports = { getUser, x: 1 };\nexports.y = 2;\n') ?? []),
    ]).toEqual(expect.arrayContaining(['getUser', 'x', 'y']));
    expect(offeredNames('u.js', 'module.exports = build();\n')).toBeUndefined();
  });

  it('reads the required fields of interfaces and object types', () => {
    const fields = requiredFields(
      'export interface A {\n  a: string;\n  b?: number;\n}\ntype B = { c: 1; d?: 2 };\n',
    );
    expect([...(fields.get('A') ?? [])]).toEqual(['a']);
    expect([...(fields.get('B') ?? [])]).toEqual(['c']);
  });
});

describe('staleCallers', () => {
  const price = {
    before: 'export function formatPrice(cents: number): string {\n  return String(cents);\n}\n',
    after:
      'export function formatPrice(cents: number, currency: string): string {\n  return currency + cents;\n}\n',
  };

  it('finds calls with the old number of arguments, through named and namespace imports', () => {
    const files = {
      'src/price.ts': price.after,
      'src/cart.ts': "import { formatPrice as fp } from './price';\nexport const t = fp(1);\n",
      'src/receipt.ts': "import * as money from './price';\nexport const r = money.formatPrice(2);\n",
      'src/ok.ts': "import { formatPrice } from './price';\nexport const o = formatPrice(3, 'EUR');\n",
    };
    const found = staleCallers(
      Object.entries(files).map(([file, text]) => ({ file, text })),
      new Map([['src/price.ts', price]]),
      exists(files),
    );
    expect(found.map((item) => `${item.caller}:${item.line}`)).toEqual(['src/cart.ts:2', 'src/receipt.ts:2']);
    expect(found[0]?.problem).toBe('calls formatPrice with 1 argument (it now takes 2)');
  });

  it('does not judge calls that spread their arguments or mention the name in a string', () => {
    const files = {
      'src/price.ts': price.after,
      'src/a.ts':
        "import { formatPrice } from './price';\nexport const a = formatPrice(...args);\nconst s = 'formatPrice(1)';\n",
    };
    expect(
      staleCallers(
        [{ file: 'src/a.ts', text: files['src/a.ts'] }],
        new Map([['src/price.ts', price]]),
        exists(files),
      ),
    ).toEqual([]);
  });

  it('finds names gone from a module reached by require, a namespace or a Python import', () => {
    const users = { before: 'def get_user(i):\n    return i\n', after: 'def fetch_user(i):\n    return i\n' };
    const cjs = {
      before: 'function getUser() {}\nmodule.exports = { getUser };\n',
      after: 'function fetchUser() {}\nmodule.exports = { fetchUser };\n',
    };
    const files = {
      'app/__init__.py': '',
      'app/users.py': users.after,
      'app/views.py': 'from app.users import get_user\n\nget_user(1)\n',
      'app/admin.py': 'from .users import get_user as g\n',
      'app/other.py': 'import app.users as u\n\nu.get_user(1)\n',
      'src/users.js': cjs.after,
      'src/profile.js': "const { getUser } = require('./users');\n",
    };
    const found = staleCallers(
      Object.entries(files).map(([file, text]) => ({ file, text })),
      new Map([
        ['app/users.py', users],
        ['src/users.js', cjs],
      ]),
      exists(files),
    );
    expect(found.map((item) => item.caller).sort()).toEqual([
      'app/admin.py',
      'app/other.py',
      'app/views.py',
      'src/profile.js',
    ]);
  });

  it('finds objects of a type that now requires a field they do not set', () => {
    const config = {
      before: 'export interface Config {\n  url: string;\n}\n',
      after: 'export interface Config {\n  url: string;\n  timeoutMs: number;\n}\n',
    };
    const files = {
      'src/config.ts': config.after,
      'src/prod.ts': "import type { Config } from './config';\nexport const prod: Config = { url: 'x' };\n",
      'src/dev.ts':
        "import type { Config } from './config';\nexport const dev: Config = { url: 'y', timeoutMs: 1 };\n",
      'src/spread.ts':
        "import type { Config } from './config';\nexport const s: Config = { ...base, url: 'z' };\n",
    };
    const found = staleCallers(
      Object.entries(files).map(([file, text]) => ({ file, text })),
      new Map([['src/config.ts', config]]),
      exists(files),
    );
    expect(found.map((item) => `${item.caller}: ${item.problem}`)).toEqual([
      'src/prod.ts: builds a Config without timeoutMs, which it now requires',
    ]);
  });
});
