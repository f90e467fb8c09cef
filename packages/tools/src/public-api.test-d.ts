import * as tools from '@closedloop/tools';
import {
  type AnyTool,
  type CommandRunner,
  type CommandRunnerOptions,
  createCommandRunner,
  createToolRegistry,
  defineTool,
  type Tool,
  type ToolContext,
  type ToolError,
  type ToolErrorCode,
  type ToolRegistry,
  type WorkspaceToolsOptions,
  workspaceTools,
} from '@closedloop/tools';
import { normalizeToolArguments, truncateText } from '@closedloop/tools/internal';
import {
  createTempWorkspace,
  isProcessRunning,
  type LinkSwapper,
  startLinkSwapper,
  type TempWorkspace,
} from '@closedloop/tools/testing';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

describe('@closedloop/tools public surface', () => {
  it('exports exactly these runtime values', () => {
    expectTypeOf<keyof typeof tools>().toEqualTypeOf<
      | 'createCommandRunner'
      | 'createToolRegistry'
      | 'defaultAllowedPrograms'
      | 'defaultResourceLimits'
      | 'defineTool'
      | 'probeSandbox'
      | 'resolveCommandPolicy'
      | 'ToolError'
      | 'workspaceTools'
    >();
  });

  it('defines typed tools', () => {
    const echo = defineTool({
      name: 'echo',
      description: 'Echoes its text.',
      input: z.object({ text: z.string() }),
      execute: async ({ text }, context) => {
        expectTypeOf(context).toEqualTypeOf<ToolContext>();
        return text;
      },
    });
    expectTypeOf(echo).toEqualTypeOf<Tool<{ text: string }, string>>();
    expectTypeOf(echo).toExtend<AnyTool>();
  });

  it('builds registries, workspace tools and command runners', () => {
    expectTypeOf(createToolRegistry).returns.toEqualTypeOf<ToolRegistry>();
    expectTypeOf(workspaceTools).parameter(0).toEqualTypeOf<WorkspaceToolsOptions>();
    expectTypeOf(workspaceTools).returns.toEqualTypeOf<AnyTool[]>();
    expectTypeOf(createCommandRunner).parameter(0).toEqualTypeOf<CommandRunnerOptions>();
    expectTypeOf(createCommandRunner).returns.toEqualTypeOf<CommandRunner>();
    expectTypeOf<ToolError['code']>().toEqualTypeOf<ToolErrorCode>();
    expectTypeOf(createTempWorkspace).returns.resolves.toEqualTypeOf<TempWorkspace>();
    expectTypeOf(startLinkSwapper).returns.toEqualTypeOf<LinkSwapper>();
    expectTypeOf(isProcessRunning).toEqualTypeOf<(pid: number) => boolean>();
  });

  it('keeps helpers for other closedloop packages out of the root', () => {
    // @ts-expect-error truncateText is internal (@closedloop/tools/internal)
    tools.truncateText;
    // @ts-expect-error checkCommand is not exported (use a CommandRunner's check)
    tools.checkCommand;
    // @ts-expect-error registerSecret comes from @closedloop/model
    tools.registerSecret;
    expectTypeOf(truncateText).returns.toBeString();
    expectTypeOf(normalizeToolArguments).toBeFunction();
  });
});
