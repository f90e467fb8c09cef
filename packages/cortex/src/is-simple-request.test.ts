import { describe, expect, it } from 'vitest';
import { isSimpleRequest } from './is-simple-request';

describe('isSimpleRequest (planning: auto)', () => {
  it.each([
    'Create hello.txt containing "hi"',
    'Read package.json',
    'Delete the file tmp/cache.json.',
    'What does src/index.ts export?',
    '刪除 tmp 目錄',
  ])('simple: %s', (request) => {
    expect(isSimpleRequest(request)).toBe(true);
  });

  it.each([
    'Write the parser, then add tests',
    'Create a.txt and b.txt',
    'First read the config. Update the port.',
    'Fix the bug; run the tests',
    '1. read the file',
    'Refactor the module before release',
    'Set up the project\ninstall deps',
    '先讀取設定，然後更新端口',
    'x'.repeat(161),
    Array.from({ length: 25 }, () => 'word').join(' '),
    'a, b, c',
    '',
    '   ',
  ])('needs a plan: %s', (request) => {
    expect(isSimpleRequest(request)).toBe(false);
  });
});
