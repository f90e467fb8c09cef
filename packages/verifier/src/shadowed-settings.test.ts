import { describe, expect, it } from 'vitest';
import { shadowedSettings } from './shadowed-settings';

const keys = async (file: string, before: string | undefined, after: string) =>
  (await shadowedSettings(file, before, after)).map((found) => found.key);

describe('shadowedSettings', () => {
  it.each([
    [
      'config.json',
      '{\n  "host": "h",\n  "port": 5433\n}\n',
      '{\n  "host": "h",\n  "port": 5432,\n  "port": 5433\n}\n',
    ],
    [
      'src/db.js',
      'export const db = {\n  port: 5433,\n};\n',
      'export const db = {\n  port: 5432,\n  port: 5433,\n};\n',
    ],
    [
      'src/db.ts',
      'export const db = { "port": 5433 };\n',
      "export const db = { port: 5432, 'port': 5433 };\n",
    ],
    ['.env', 'HOST=h\nPORT=5433\n', 'HOST=h\nPORT=5432\nPORT=5433\n'],
    ['.env.local', 'PORT=5433\n', 'export PORT=5432\nPORT=5433\n'],
    ['config.yaml', 'db:\n  host: h\n  port: 5433\n', 'db:\n  host: h\n  port: 5432\n  port: 5433\n'],
    [
      'pyproject.toml',
      '[tool.black]\nline-length = 80\n',
      '[tool.black]\nline-length = 100\nline-length = 80\n',
    ],
    [
      'setup.cfg',
      '[flake8]\nmax-line-length = 80\n',
      '[flake8]\nmax-line-length: 100\nmax-line-length = 80\n',
    ],
  ])('finds an entry added to %s above the old one of the same key', async (file, before, after) => {
    expect(await keys(file, before, after)).toHaveLength(1);
  });

  it('finds a whole object added above the old one', async () => {
    expect(await keys('a.json', '{"db": {"port": 1}}', '{"db": {"port": 3}, "db": {"port": 1}}')).toEqual([
      'db',
    ]);
  });

  it('finds shadowed entries in a new file too', async () => {
    expect(await keys('config.json', undefined, '{"port": 1, "port": 2}')).toEqual(['port']);
  });

  it.each([
    ['config.json', '{"port": 5433}', '{"port": 5432}'],
    ['config.json', '{"db": {"port": 1}, "cache": {"port": 2}}', '{"db": {"port": 3}, "cache": {"port": 2}}'],
    ['config.json', '{"list": [{"port": 1}]}', '{"list": [{"port": 1}, {"port": 2}]}'],
    ['.env', 'PORT=5433\n', 'PORT=5433\nPORT=5432\n'],
    ['config.yaml', 'db:\n  port: 1\ncache:\n  port: 2\n', 'db:\n  port: 3\ncache:\n  port: 2\n'],
    [
      'ci.yaml',
      'steps:\n  - name: a\n',
      'steps:\n  - name: a\n  - name: b\n    run: |\n      name: x\n      name: y\n',
    ],
    ['setup.cfg', '[a]\nx = 1\n[b]\nx = 2\n', '[a]\nx = 3\n[b]\nx = 2\n'],
    ['Cargo.toml', '[[bin]]\nname = "a"\n', '[[bin]]\nname = "a"\n[[bin]]\nname = "b"\n'],
    ['src/db.js', 'export const db = { port: 5433 };\n', 'export const db = { port: 5432, ...overrides };\n'],
    [
      'src/db.js',
      'export const a = { port: 1 };\n',
      'export const a = { port: 1 };\nexport const b = { port: 2 };\n',
    ],
    ['src/db.js', 'export const o = {};\n', 'export const o = { get x() { return 1; }, set x(v) {} };\n'],
  ])('leaves %s alone when no added entry is overridden (%#)', async (file, before, after) => {
    expect(await keys(file, before, after)).toEqual([]);
  });

  it('does not report duplicates the file already had', async () => {
    const text = '{"port": 1, "port": 2}';
    expect(await keys('config.json', text, `${text}\n`)).toEqual([]);
  });
});
