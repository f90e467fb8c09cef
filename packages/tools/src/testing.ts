export { createTempWorkspace, type TempWorkspace, type TempWorkspaceOptions } from './create-temp-workspace';
