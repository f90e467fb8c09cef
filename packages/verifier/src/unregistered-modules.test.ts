import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from './__fixtures__/temp-workspaces';
import { registrationAsked, unregisteredModules } from './unregistered-modules';

const MIGRATIONS = {
  'migrations/001_init.js': 'export const up = () => 1;\n',
  'migrations/002_orders.js': 'export const up = () => 2;\n',
  'migrations/index.js':
    "import * as init from './001_init.js';\nimport * as orders from './002_orders.js';\n\nexport const migrations = [init, orders];\n",
  'migrations/003_email.js': 'export const up = () => 3;\n',
};

describe('registrationAsked', () => {
  it('reads a module kind a program registers, unless registration is put off', () => {
    expect(registrationAsked('Add a migration that adds an `email` column')).toBe(true);
    expect(registrationAsked('Add a /health route')).toBe(true);
    expect(registrationAsked('Write the migration file only; registering it is a later step')).toBe(false);
    expect(registrationAsked('Add a slugify helper to src/text.js')).toBe(false);
  });
});

describe('unregisteredModules', { timeout: 20_000 }, () => {
  const workspace = useTempWorkspaces();
  const check = async (files: Record<string, string>, changed: string[] = []) => {
    const ws = await workspace(files);
    return unregisteredModules({
      root: ws.root,
      created: ['migrations/003_email.js'],
      changed,
      read: (file) => {
        try {
          return readFileSync(path.join(ws.root, file), 'utf8');
        } catch {
          return undefined;
        }
      },
    });
  };

  it('finds a module its folder registry leaves out (or names only in a comment)', async () => {
    expect(await check(MIGRATIONS)).toMatchObject([
      {
        file: 'migrations/003_email.js',
        registry: 'migrations/index.js',
        listed: ['001_init', '002_orders'],
      },
    ]);
    const commented = MIGRATIONS['migrations/index.js'].replace('orders];', 'orders]; // TODO 003_email');
    expect(await check({ ...MIGRATIONS, 'migrations/index.js': commented })).toHaveLength(1);
  });

  it('accepts a registered module, a folder with no registry, and a module a sibling imports', async () => {
    const registered = MIGRATIONS['migrations/index.js'].replace(
      'export const',
      "import * as email from './003_email.js';\nexport const",
    );
    expect(await check({ ...MIGRATIONS, 'migrations/index.js': registered })).toEqual([]);
    expect(
      await check({
        ...MIGRATIONS,
        'migrations/index.js':
          "import { readdirSync } from 'node:fs';\nexport const files = readdirSync('.');\n",
      }),
    ).toEqual([]);
    expect(
      await check({
        ...MIGRATIONS,
        'migrations/002_orders.js': "import './003_email.js';\nexport const up = 2;\n",
      }),
    ).toEqual([]);
  });
});
