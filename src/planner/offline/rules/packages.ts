/** Rules of the packages family: install, remove, upgrade, hold and pin, repositories. */
import { missing, rule, step, steps, takePackage, takePackages, type Built, type Context } from '../rule.js';
import { PATH, takeSwitch, type Clause } from '../words.js';

const PKG = ['package', 'packages', 'pkg', 'software', 'program', 'tool'];

function perPackage(action: string, verb: string) {
  return (c: Clause, ctx: Context): Built => {
    const names = takePackages(c, ctx);
    if (names.length === 0) {
      const back = takePackage(c, ctx);
      if (back !== null) names.push(back);
    }
    if (names.length === 0) return missing(`which package to ${verb}`);
    return steps(...names.map((p) => step(action, { package: p }, `${verb} ${p}`)));
  };
}

export const packagesRules = [
  rule('packages.install', [['install', 'apt install', 'apt-get install', 'dnf install', 'set up', 'setup']], perPackage('InstallPackage', 'install'), { also: PKG, unless: ['updates', 'upgrades', 'security', 'key', 'ssh-key', 'job', 'cron job', 'timer'] }),
  rule('packages.remove', [['uninstall', 'remove package', 'apt remove', 'apt-get remove']], perPackage('RemovePackage', 'remove'), { also: PKG }),
  rule('packages.remove-word', [['remove', 'delete', 'get rid of'], PKG], perPackage('RemovePackage', 'remove'), { unless: ['unused', 'orphaned', 'unneeded', 'no longer', 'config', 'configuration'] }),
  // "remove nginx", as apt users say it: one name and nothing else to act on.
  rule('packages.remove-bare', [['remove', 'uninstall']], perPackage('RemovePackage', 'remove'), {
    needs: (c) => c.tokens.filter((t) => c.isName(t)).length === 1 && c.tokens.every((t) => t.literal || !/^\//.test(t.raw)),
  }),
  rule('packages.purge', [['purge', 'completely remove', 'remove completely', 'remove with config', 'remove with its config', 'remove and purge']], perPackage('PurgePackage', 'purge'), { also: [...PKG, 'config', 'configuration', 'files', 'its'] }),
  rule('packages.update-lists', [['update', 'refresh', 'apt update', 'apt-get update'], ['lists', 'package lists', 'index', 'indexes', 'apt', 'repositories', 'repos', 'cache', 'metadata', 'sources']], () => steps(step('AptUpdate', {}, 'refresh the package lists')), { also: ['the', 'package'] }),
  rule('packages.upgrade', [['upgrade', 'update', 'patch', 'apply'], ['everything', 'all', 'system', 'packages', 'server', 'host', 'box', 'machine', 'security updates', 'updates', 'upgrades', 'os']], () =>
    steps(step('AptUpdate', {}, 'refresh the package lists first'), step('UpgradeAll', {}, 'upgrade every package with a newer version')),
    { also: ['the', 'all', 'packages', 'available', 'pending', 'install'], unless: ['list', 'show', 'what', 'which', 'any', 'are', 'unattended', 'automatic', 'lists', 'check', 'is', 'there'] }),
  rule('packages.install-updates', [['install'], ['updates', 'upgrades', 'security updates', 'patches']], () =>
    steps(step('AptUpdate', {}, 'refresh the package lists first'), step('UpgradeAll', {}, 'upgrade every package with a newer version')), { also: ['all', 'available', 'pending', 'the'] }),
  rule('packages.upgradable', [['updates', 'upgrades', 'upgradable', 'upgradeable', 'outdated', 'update', 'upgrade'], ['list', 'show', 'what', 'which', 'any', 'available', 'pending', 'check', 'are', 'is', 'there']], () => steps(step('ListUpgradable', {}, 'what an upgrade would do, changing nothing')),
    { also: ['packages', 'for', 'would', 'do'], unless: ['unattended', 'automatic', 'auto'] }),
  rule('packages.installed', [['installed']], (c, ctx) => {
    const p = takePackage(c, ctx);
    return p === null ? steps(step('ListInstalledPackages', {}, 'the installed packages and versions')) : steps(step('PackagePolicy', { package: p }, `the installed and candidate versions of ${p}`));
  }, { also: [...PKG, 'list', 'show', 'which', 'what', 'all', 'is', 'version'], unless: ['files', 'install'] }),
  rule('packages.version', [['version', 'versions', 'candidate', 'policy']], (c, ctx) => {
    const p = takePackage(c, ctx);
    return p === null ? missing('which package') : steps(step('PackagePolicy', { package: p }, `the versions of ${p}`));
  }, { also: [...PKG, 'which', 'what', 'of', 'available', 'is'], unless: ['kernel', 'os', 'pin'] }),
  rule('packages.info', [['info', 'information', 'details', 'describe', 'description', 'about', 'what is'], PKG], (c, ctx) => {
    const p = takePackage(c, ctx);
    return p === null ? missing('which package') : steps(step('PackageInfo', { package: p }, `the package record of ${p}`));
  }, { also: ['show', 'the'] }),
  rule('packages.files', [['files'], ['package', 'installed', 'install', 'put', 'ship', 'ships', 'contain', 'contains']], (c, ctx) => {
    const p = takePackage(c, ctx);
    return p === null ? missing('which package') : steps(step('ListPackageFiles', { package: p }, `the files ${p} installed`));
  }, { also: ['list', 'show', 'which', 'what', 'did', 'does', 'of', 'by'] }),
  rule('packages.verify', [['verify', 'integrity', 'tampered', 'modified', 'changed', 'corrupted', 'check'], PKG], (c, ctx) => {
    const p = takePackage(c, ctx);
    return p === null ? missing('which package') : steps(step('VerifyPackage', { package: p }, `check ${p}'s files against the package database`));
  }, { also: ['files', 'of', 'were', 'been', 'has', 'the'] }),
  rule('packages.tampered', [['tampered', 'tampered with', 'altered', 'modified']], (c, ctx) => {
    const p = takePackage(c, ctx);
    return p === null ? missing('which package') : steps(step('VerifyPackage', { package: p }, `check ${p}'s files against the package database`));
  }, { needs: (c) => !c.tokens.some((t) => !t.literal && t.raw.startsWith('/')), also: ['check', 'whether', 'if', 'files', 'of', 'were', 'was', 'been', 'has', 'have', 'the', 'package', 'any'] }),
  rule('packages.owner', [['owns', 'owner', 'provides', 'belongs', 'installed', 'ships', 'comes from', 'came from'], ['package', 'pkg']], (c) => {
    const path = c.takeToken((t) => !t.literal && PATH.test(t.raw) && t.raw.length > 1);
    return path === null ? missing('the file (an absolute path)') : steps(step('WhichPackageOwns', { path }, `the package that owns ${path}`));
  }, { needs: (c) => c.tokens.some((t) => !t.literal && PATH.test(t.raw) && t.raw.length > 1), also: [...PKG, 'which', 'what', 'to', 'file', 'does'] }),
  rule('packages.hold', [['hold', 'freeze', 'mark hold', 'keep back']], perPackage('HoldPackage', 'hold'), { also: [...PKG, 'at', 'its', 'current', 'version', 'back'] }),
  rule('packages.unhold', [['unhold', 'unfreeze', 'release hold', 'release the hold']], perPackage('UnholdPackage', 'release the hold on'), { also: [...PKG, 'on', 'of'] }),
  rule('packages.autoremove', [['autoremove', 'unused packages', 'orphaned packages', 'no longer needed', 'unneeded packages', 'leftover packages', 'old kernels']], () => steps(step('Autoremove', {}, 'remove packages no longer needed')), { also: ['remove', 'clean', 'delete', 'purge', 'the', 'all', 'packages', 'up'] }),
  rule('packages.pin', [['pin']], (c, ctx) => {
    const version = c.takeToken((t) => !t.literal && /^[0-9][0-9A-Za-z.+~:-]{0,127}$/.test(t.raw) && /[.-]/.test(t.raw));
    const p = takePackage(c, ctx);
    if (p === null) return missing('which package to pin');
    if (version === null) return missing(`the version to pin ${p} to`);
    return steps(step('PinPackageVersion', { package: p, version }, `keep ${p} at ${version}`));
  }, { also: [...PKG, 'to', 'version', 'at'] }),
  rule('packages.unpin', [['unpin', 'remove pin', 'remove the pin', 'drop the pin']], perPackage('UnpinPackage', 'unpin'), { also: [...PKG, 'of', 'on', 'version'] }),
  rule('packages.search', [['search', 'find', 'look for', 'look up', 'lookup'], [...PKG, 'apt', 'repositories', 'repository']], (c) => {
    const q = c.takeToken((t) => c.isName(t) && /^[a-z0-9][a-z0-9+.-]{1,63}$/.test(t.low));
    return q === null ? missing('what to search for') : steps(step('SearchPackages', { query: q.toLowerCase() }, `packages whose name contains ${q}`));
  }, { also: ['called', 'named', 'for', 'a', 'in', 'with'] }),
  rule('packages.repositories', [['repositories', 'repos', 'sources', 'sources.list', 'apt sources', 'repository']], () => steps(step('ListRepositories', {}, 'the apt sources')), { also: ['list', 'show', 'which', 'what', 'configured', 'apt', 'package', 'enabled'], unless: ['add', 'remove', 'delete', 'update', 'refresh', 'search', 'find'] }),
  rule('packages.remove-repository', [['remove', 'delete', 'drop'], ['repository', 'repo', 'apt source', 'source']], (c) => {
    const name = c.takeToken((t) => c.isName(t) && /^[a-z0-9][a-z0-9-]{0,47}$/.test(t.low));
    return name === null ? missing('which repository (its name)') : steps(step('RemoveRepository', { name: name.toLowerCase() }, `remove the repository ${name}`));
  }, { also: ['called', 'named', 'apt'] }),
  rule('packages.add-repository', [['add'], ['repository', 'repo', 'apt source']], () => missing("the repository's URI, suite, components and its OpenPGP public key (the offline planner cannot fill these from words)")),
  rule('packages.unattended', [['unattended', 'automatic', 'auto', 'auto-updates', 'autoupdates'], ['updates', 'upgrades', 'updating', 'upgrades', 'update', 'upgrade', 'auto-updates', 'autoupdates', 'unattended-upgrades']], (c) => {
    // "are automatic updates on?" asks; "turn automatic updates on" changes.
    const question = ['are', 'is', 'check', 'show', 'whether', 'status'].includes(c.tokens[0]?.low ?? '') || c.has('status');
    const on = question ? null : takeSwitch(c);
    return on === null ? steps(step('UnattendedUpgradesStatus', {}, 'whether unattended upgrades are on')) : steps(step('SetUnattendedUpgrades', { enabled: on }, `switch unattended upgrades ${on ? 'on' : 'off'}`));
  }, { also: ['are', 'is', 'status', 'show', 'check', 'security', 'turned', 'on', 'off', 'enabled', 'switched'] }),
];
