/**
 * Every rule, in the order that breaks ties between rules whose triggers cover as many words:
 * the more specific families first (containers before services, ssh before users, the firewall
 * before network reads), so "restart the web container" and "disable password login for ssh"
 * land where a person means them.
 */
import type { Rule } from '../rule.js';
import { containersRules } from './containers.js';
import { filesRules } from './files.js';
import { firewallRules } from './firewall.js';
import { identityRules } from './identity.js';
import { kernelRules } from './kernel.js';
import { loggingRules } from './logging.js';
import { networkRules } from './network.js';
import { packagesRules } from './packages.js';
import { privilegeRules } from './privilege.js';
import { processesRules } from './processes.js';
import { schedulingRules } from './scheduling.js';
import { securityRules } from './security.js';
import { servicesRules } from './services.js';
import { sshRules } from './ssh.js';
import { storageRules } from './storage.js';
import { systemRules } from './system.js';
import { usersRules } from './users.js';
import { revertRules } from './revert.js';

export const RULES: readonly Rule[] = [
  ...revertRules, ...containersRules, ...sshRules, ...privilegeRules, ...firewallRules, ...schedulingRules, ...securityRules, ...kernelRules, ...filesRules,
  ...storageRules, ...loggingRules, ...packagesRules, ...usersRules, ...identityRules, ...processesRules, ...servicesRules, ...networkRules, ...systemRules,
];

/** Every word some rule triggers on or understands: never taken as a name. */
export const KEYWORDS: ReadonlySet<string> = new Set(RULES.flatMap((r) => [...r.when.flat(), ...(r.also ?? [])].filter((p) => !p.includes(' ') && !p.startsWith('/'))));

/** The first word of every trigger: where a new request may start after "and" or a comma. */
export const VERBS: ReadonlySet<string> = new Set(RULES.flatMap((r) => (r.when[0] ?? []).map((p) => p.split(' ')[0]!)).filter((w) => !['to', 'in', 'the', 'by', 'all', 'some'].includes(w)));
