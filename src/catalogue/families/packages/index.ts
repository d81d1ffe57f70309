import type { AnyAction } from '../../action.js';
import { aptUpdate } from './refresh.js';
import { installPackage } from './install.js';
import { removePackage } from './remove.js';
import { listInstalledPackages, listUpgradable, packageInfo, packagePolicy } from './query.js';
import { listPackageFiles, verifyPackage, whichPackageOwns } from './contents.js';
import { holdPackage, unholdPackage } from './hold.js';
import { purgePackage } from './purge.js';
import { autoremove, upgradeAll } from './upgrade.js';
import { pinPackageVersion, unpinPackage } from './pins.js';
import { searchPackages } from './search.js';
import { listRepositories } from './sources.js';
import { addRepository, removeRepository } from './repository.js';
import { setUnattendedUpgrades, unattendedUpgradesStatus } from './unattended.js';

/** The packages family: package lists, installs, removals, holds, pins, upgrades, repositories and unattended upgrades (apt, or dnf on Fedora and RHEL). */
export const actions: readonly AnyAction[] = [
  aptUpdate,
  installPackage,
  removePackage,
  listInstalledPackages,
  listUpgradable,
  packagePolicy,
  packageInfo,
  listPackageFiles,
  verifyPackage,
  whichPackageOwns,
  holdPackage,
  unholdPackage,
  purgePackage,
  upgradeAll,
  autoremove,
  pinPackageVersion,
  unpinPackage,
  searchPackages,
  listRepositories,
  addRepository,
  removeRepository,
  unattendedUpgradesStatus,
  setUnattendedUpgrades,
];
