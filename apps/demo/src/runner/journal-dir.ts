import { existsSync } from 'node:fs';
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

/** Where closedloop 0.1 kept journals by default, relative to the working directory. */
export const legacyJournal = '.closedloop/runs';

/**
 * For a run not found in the default journal folder: a hint when the run is in the folder
 * earlier versions used (`.closedloop/runs` under `cwd`), else `''`.
 */
export function legacyJournalHint(runId: string, flag: string | undefined, io: { cwd: string }): string {
  if (flag !== undefined || !existsSync(join(resolve(io.cwd, legacyJournal), `${runId}.jsonl`))) return '';
  return ` It is in ${legacyJournal}, where earlier versions kept journals: add --journal ${legacyJournal}.`;
}
