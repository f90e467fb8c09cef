/**
 * Helpers other closedloop packages need from @closedloop/tools. Not part of the public API: they may
 * change in any release, without a major version.
 *
 * @packageDocumentation
 */
export { createRedactor, type Redactor } from '@closedloop/model';
export { type CommandExit, readCommandExit } from './command-exit-records';
export { removeInterruptedWrites } from './file-tools';
export {
  findGitTop,
  findHiddenChanges,
  formatHiddenDiff,
  type GitRead,
  type GitReadResult,
  type HiddenBy,
  type HiddenChange,
  replaceBinarySections,
  textShownAsBinary,
} from './hidden-changes';
export {
  blobOid,
  gitDirOf,
  type HiddenIndexEntry,
  hiddenEntryChange,
  parseHiddenIndexEntries,
  parseLsFilesTags,
  readHiddenIndexEntries,
} from './hidden-index-entries';
export { type InsideEntry, inspectInside, openedInside } from './inspect-inside';
export { type JsonMeasure, measureJson } from './json-limits';
export { normalizeToolArguments, parseToolInput } from './parse-tool-input';
export {
  findTagged,
  killTagged,
  processScopeVariable,
  runInProcessScope,
} from './run-process';
export { truncateText } from './truncate-text';
export { beginWorkspaceActivity, isCountedRegistry, workspaceActivity } from './workspace-activity';
