import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileDurably } from './write-durably';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('writeFileDurably', () => {
  it('replaces the file whole and leaves no temporary file beside it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'closedloop-durable-'));
    made.push(dir);
    const file = join(dir, 'r1.demo.json');
    writeFileDurably(file, '{"a":1}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n');
    writeFileDurably(file, '{"a":2}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"a":2}\n');
    expect(readdirSync(dir)).toEqual(['r1.demo.json']);
  });

  it('leaves the old file and no temporary file when the write fails', () => {
    const dir = mkdtempSync(join(tmpdir(), 'closedloop-durable-'));
    made.push(dir);
    const file = join(dir, 'r1.demo.json');
    writeFileSync(file, 'old\n');
    // A folder where the file should be: the rename fails.
    expect(() => writeFileDurably(join(dir, 'missing', 'x.json'), 'new\n')).toThrow();
    expect(readFileSync(file, 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['r1.demo.json']);
  });
});
