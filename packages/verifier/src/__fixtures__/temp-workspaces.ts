import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { afterEach } from 'vitest';

/** Makes a real temp workspace (a git repository with the files committed when `git`). */
export type TempWorkspaceFactory = (
  files?: Record<string, string>,
  options?: { git?: boolean },
) => Promise<TempWorkspace>;

/**
 * For a test file: returns a factory of real temp workspaces and registers an `afterEach` that
 * removes every workspace it made.
 *
 * @example
 * const workspace = useTempWorkspaces({ git: true });
 * it('…', async () => { const ws = await workspace({ 'src/a.ts': 'export const a = 1;\n' }); });
 */
export function useTempWorkspaces(defaults: { git?: boolean } = {}): TempWorkspaceFactory {
  const made: TempWorkspace[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((ws) => ws.cleanup()));
  });
  return async (files = {}, options = {}) => {
    const ws = await createTempWorkspace({ files, git: options.git ?? defaults.git ?? false });
    made.push(ws);
    return ws;
  };
}
