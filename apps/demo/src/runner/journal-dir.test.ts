import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultJournalDir, journalDir } from './journal-dir';

describe('the default journal folder (a per-user state directory)', () => {
  it('is $XDG_STATE_HOME/closedloop/runs, else ~/.local/state/closedloop/runs', () => {
    expect(defaultJournalDir({ XDG_STATE_HOME: '/state', HOME: '/home/u' }, 'linux')).toBe(
      join('/state', 'closedloop', 'runs'),
    );
    // A relative XDG_STATE_HOME is invalid by the spec: ignored.
    expect(defaultJournalDir({ XDG_STATE_HOME: 'state', HOME: '/home/u' }, 'linux')).toBe(
      join('/home/u', '.local', 'state', 'closedloop', 'runs'),
    );
    expect(defaultJournalDir({ HOME: '/home/u' }, 'darwin')).toBe(
      join('/home/u', '.local', 'state', 'closedloop', 'runs'),
    );
    expect(defaultJournalDir({ LOCALAPPDATA: '/appdata', HOME: '/home/u' }, 'win32')).toBe(
      join('/appdata', 'closedloop', 'runs'),
    );
  });

  it('--journal wins, resolved against the working directory', () => {
    const io = { cwd: '/work', env: { XDG_STATE_HOME: '/state' } };
    expect(journalDir('runs', io)).toBe(join('/work', 'runs'));
    expect(journalDir(undefined, io)).toBe(join('/state', 'closedloop', 'runs'));
  });
});
