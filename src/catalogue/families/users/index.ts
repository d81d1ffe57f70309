import type { AnyAction } from '../../action.js';
import { createUser, deleteUser } from './lifecycle.js';
import { addUserToGroup, createGroup, deleteGroup, removeUserFromGroup } from './groups.js';
import { lockUser, setAccountExpiry, unlockUser } from './locking.js';
import { forcePasswordChange, setPasswordAging, showPasswordAging } from './password-aging.js';
import { setUserComment, setUserShell } from './profile.js';
import { listGroups, listUsers, userInfo } from './reads.js';
import { lastLogins, listSessions } from './sessions.js';

/**
 * The users family: local accounts and groups. Every change goes through shadow-utils
 * (useradd, usermod, userdel, groupadd, groupdel, gpasswd, chage), never by editing
 * /etc/passwd, /etc/shadow, /etc/group or /etc/gshadow directly, so their locking and the
 * consistency between the four files stay shadow-utils' job.
 */
export const actions: readonly AnyAction[] = [
  listUsers,
  listGroups,
  userInfo,
  createUser,
  deleteUser,
  lockUser,
  unlockUser,
  setUserShell,
  setAccountExpiry,
  addUserToGroup,
  removeUserFromGroup,
  createGroup,
  deleteGroup,
  showPasswordAging,
  setPasswordAging,
  forcePasswordChange,
  setUserComment,
  listSessions,
  lastLogins,
];
