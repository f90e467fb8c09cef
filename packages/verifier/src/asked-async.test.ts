import { describe, expect, it } from 'vitest';
import { asyncAsked, asyncDefinition } from './asked-async';

describe('asyncAsked', () => {
  it.each([
    ['Make `load` in src/load.js async', ['load']],
    ['Convert `fetchUser` to an async function', ['fetchUser']],
    ['Make the `Store.save` method asynchronous', ['save']],
    ['make load async and export it', ['load']],
    ['Make it async', []],
    ['Add an async `load` function', []],
  ])('%s → %j', (description, names) => {
    expect(asyncAsked(description)).toEqual(names);
  });
});

describe('asyncDefinition', () => {
  it.each([
    ['a.js', 'export async function load(path) {\n  return path;\n}\n', 'async'],
    ['a.js', 'export const load = async (path) => path;\n', 'async'],
    ['a.ts', 'class S {\n  async load(): Promise<void> {}\n}\n', 'async'],
    ['a.py', 'async def load(p):\n    return p\n', 'async'],
    ['a.js', 'export function load() {\n  return new Promise((resolve) => resolve(1));\n}\n', 'async'],
    ['a.js', '/** @async */\nexport function load(path) {\n  return path;\n}\n', 'sync'],
    ['a.js', '// async function load() {}\nfunction load() {}\n', 'sync'],
    ['a.js', 'export const load = (path) => path;\n', 'sync'],
    ['a.ts', 'class S {\n  load(): void {\n  }\n}\n', 'sync'],
    ['a.py', 'def load(p):  # async\n    return p\n', 'sync'],
    ['a.js', 'const x = load();\n', 'absent'],
    ['a.md', 'async function load() {}', 'absent'],
  ])('%s: %j is %s', async (file, text, how) => {
    expect(await asyncDefinition(file, text, 'load')).toBe(how);
  });
});
