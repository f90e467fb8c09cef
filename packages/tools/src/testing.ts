export { createTempWorkspace, type TempWorkspace, type TempWorkspaceOptions } from './create-temp-workspace';
export { isProcessRunning } from './is-process-running';
export { type LinkSwapper, type LinkSwapperOptions, startLinkSwapper } from './start-link-swapper';
