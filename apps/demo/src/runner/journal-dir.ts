import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * The default journal folder: a per-user state directory, outside any workspace the agent
 * writes — `$XDG_STATE_HOME/closedloop/runs`, else `~/.local/state/closedloop/runs`
 * (`%LOCALAPPDATA%\closedloop\runs` on Windows). One folder for every workspace: run ids are
 * unique, so `resume <runId>` and `report <runId>` find a run wherever it worked.
 */
export function defaultJournalDir(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): string {
  const state = env.XDG_STATE_HOME;
  if (state && isAbsolute(state)) return join(state, 'closedloop', 'runs');
  if (platform === 'win32' && env.LOCALAPPDATA && isAbsolute(env.LOCALAPPDATA)) {
    return join(env.LOCALAPPDATA, 'closedloop', 'runs');
  }
  return join(env.HOME || homedir(), '.local', 'state', 'closedloop', 'runs');
}

/** The journal folder of a command: `--journal` (resolved against `cwd`) or the default. */
export function journalDir(flag: string | undefined, io: { cwd: string; env: NodeJS.ProcessEnv }): string {
  return flag === undefined ? defaultJournalDir(io.env) : resolve(io.cwd, flag);
}
