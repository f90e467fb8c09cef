export { createTempWorkspace, type TempWorkspace, type TempWorkspaceOptions } from './create-temp-workspace';
export { type LinkSwapper, type LinkSwapperOptions, startLinkSwapper } from './start-link-swapper';
