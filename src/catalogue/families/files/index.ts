import type { AnyAction } from '../../action.js';
import { readConfigFile, searchConfigFile } from './contents.js';
import { fileInfo, listConfigDirectory } from './metadata.js';
import { grantConfigEdits, listConfigGrants, revokeConfigGrant } from './grants.js';
import { createGrantedFile, patchGrantedFile, removeGrantedFile, replaceGrantedFile } from './granted-edits.js';

/**
 * The files family: a fixed allowlist of non-secret configuration files read, searched and
 * described, and configuration directories listed; and edits of the files under a folder a
 * person granted (grants.ts, granted-edits.ts), each checked before it takes effect.
 */
export const actions: readonly AnyAction[] = [
  readConfigFile,
  listConfigDirectory,
  fileInfo,
  searchConfigFile,
  grantConfigEdits,
  revokeConfigGrant,
  listConfigGrants,
  createGrantedFile,
  replaceGrantedFile,
  patchGrantedFile,
  removeGrantedFile,
];
