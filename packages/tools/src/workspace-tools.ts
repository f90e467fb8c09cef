import { type CommandToolsOptions, commandTools } from './command-tools';
import { fileTools } from './file-tools';
import type { AnyTool } from './tool';

/** Options of {@link workspaceTools}. */
export interface WorkspaceToolsOptions extends CommandToolsOptions {
  /** The folder every tool is confined to. Must exist. */
  root: string;
  /** `read_file` refuses larger files. Default 5 MiB. */
  maxReadBytes?: number;
  /** `edit_file` refuses larger files. Default 16 MiB. */
  maxEditBytes?: number;
  /** `list_dir` stops after this many entries. Default 1000. */
  maxListEntries?: number;
}

/**
 * The workspace tools, all confined to `root` (see `resolveInWorkspace`): `read_file`,
 * `write_file`, `edit_file`, `list_dir`, `delete_file` (destructive), `run_command`
 * (destructive; allowlisted programs, no shell, minimal environment — see `CommandPolicy`),
 * `git_status` and `git_diff`.
 *
 * @example
 * ```ts
 * const registry = createToolRegistry(workspaceTools({ root: process.cwd() }));
 * ```
 */
export function workspaceTools(options: WorkspaceToolsOptions): AnyTool[] {
  return [...fileTools(options), ...commandTools(options)];
}
