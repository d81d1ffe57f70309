import type { AnyAction } from '../../action.js';
import { readConfigFile, searchConfigFile } from './contents.js';
import { fileInfo, listConfigDirectory } from './metadata.js';

/** The files family: a fixed allowlist of non-secret configuration files read, searched and described, and configuration directories listed. */
export const actions: readonly AnyAction[] = [readConfigFile, listConfigDirectory, fileInfo, searchConfigFile];
