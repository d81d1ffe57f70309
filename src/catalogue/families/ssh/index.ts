import type { AnyAction } from '../../action.js';
import { addAuthorizedKey, listAuthorizedKeys, removeAuthorizedKey } from './authorized-keys.js';
import { hostKeyFingerprints } from './host-keys.js';
import { listSshSessions } from './sessions.js';
import { testSshdConfig } from './sshd-check.js';
import { resetSshdOption, setSshdOption, showSshdConfig } from './sshd-settings.js';

/** The ssh family: users' authorized keys, the host keys, the SSH server's configuration (sshd -T, -t, Airlock's drop-in) and the connections open now. */
export const actions: readonly AnyAction[] = [
  listAuthorizedKeys,
  addAuthorizedKey,
  removeAuthorizedKey,
  hostKeyFingerprints,
  showSshdConfig,
  setSshdOption,
  resetSshdOption,
  testSshdConfig,
  listSshSessions,
];
