/**
 * Many hosts: `airlock relay` (on the agent's workstation, the one holder of the SSH key),
 * `airlock hosts` (the names the relay knows, and the host keys a person confirmed) and
 * `airlock proxy` (on each host, the relay's forced command). Declarations only: each body
 * loads when it runs.
 */
import { Command, Option } from 'commander';
import { lazy } from './lazy.js';
import { DEFAULT_RELAY_SOCKET, RELAY_CONFIG_DIR } from '../protocol/relay.js';

/** The relay's configuration folder, one option for every command that reads or writes it. */
const configDirOpt = (what: string) => new Option('--config-dir <dir>', what).default(RELAY_CONFIG_DIR);

const RELAY_HELP = `
An agent that administers many hosts never holds their SSH key. The relay does, under its
own account (airlock-relay): the key and the host list live in /etc/airlock/relay, owned
by root and readable by that account alone. The agent's account, in the airlock-fleet
group, reaches a host by name through the relay's socket:

  agent$  airlock --host web1 preview RestartService --param unit=nginx.service

The relay opens an OpenSSH session (the system's ssh) to \`airlock proxy\` on web1, which
joins it to web1's daemon: that daemon sees the relay's account on web1 and gives it the
role of its groups there. Approvals happen on each host as always, or for a whole fleet
plan at once.

Set-up, once, on the workstation:        sudo airlock relay install
then on each host, as root:              airlock proxy authorize 'KEY' (printed by install)
then, per host, on the workstation:      sudo airlock hosts add web1 10.0.0.5
and the agent's account:                 sudo usermod -aG airlock-fleet AGENT

Exit status: 0 ok; 2 usage; 3 not allowed (not root, or not in airlock-fleet); 5 a bad
host name, destination or host list; 7 unreachable.`;

export function relayCommand(): Command {
  const relay = new Command('relay').description("the relay on the agent's workstation: holds the SSH key, reaches hosts by name").addHelpText('after', RELAY_HELP);
  relay
    .command('serve', { isDefault: true })
    .description('run the relay (its unit does: `systemctl start airlock-relay`); never as root')
    .option('--listen <path>', 'its socket', DEFAULT_RELAY_SOCKET)
    .addOption(configDirOpt('where the key, host list and known hosts are'))
    .action(lazy(() => import('./relay-run.js'), 'relayServe'));
  relay
    .command('install')
    .description('(root) the relay account, its key, an empty host list, the airlock-fleet group and the unit; prints the public key for the hosts')
    .option('--no-start', 'write everything but do not start the unit')
    .addOption(configDirOpt('where the key, host list and known hosts go'))
    .option('--json', 'print what was done as JSON')
    .action(lazy(() => import('./relay-install.js'), 'relayInstall'));
  relay
    .command('key')
    .description("print the relay's public key (what `airlock proxy authorize` takes on each host)")
    .addOption(configDirOpt('where the key is'))
    .action(lazy(() => import('./relay-install.js'), 'relayKey'));
  return relay;
}

const HOSTS_HELP = `
The relay reaches a host only by a name a person gave it, and only when the host shows the
key the person confirmed for that name:

  sudo airlock hosts add web1 10.0.0.5          # shows the host key's fingerprint and asks
  sudo airlock hosts add web1 airlock-relay@10.0.0.5:2222 --fingerprint SHA256:...
  airlock hosts                                  # the names (any account in airlock-fleet)
  sudo airlock hosts remove web1

Compare the fingerprint with what the host itself says, at its console or over a channel
you already trust:  ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub
A host whose key changes is refused until a person adds it again with --replace.`;

export function hostsCommand(): Command {
  const hosts = new Command('hosts').description('the hosts the relay reaches by name, and their confirmed keys').addHelpText('after', HOSTS_HELP);
  hosts
    .command('list', { isDefault: true })
    .description('the names the relay knows, with their key fingerprints')
    .option('--json', 'print [{name, fingerprints}] as JSON')
    .action(lazy(() => import('./hosts-run.js'), 'hostsList'));
  hosts
    .command('add <name> <destination>')
    .description('(root) add a host: DESTINATION is [USER@]ADDRESS[:PORT]; its key is shown and must be confirmed')
    .option('--fingerprint <sha256>', "the host key's fingerprint, checked instead of asked (for scripts)")
    .option('--replace', 'replace a host of that name and the key trusted for it (after a reinstall)')
    .addOption(configDirOpt("the relay's configuration"))
    .option('--json', 'print the host and its fingerprint as JSON')
    .action(lazy(() => import('./hosts-run.js'), 'hostsAdd'));
  hosts
    .command('remove <name>')
    .description('(root) remove a host and its trusted key')
    .addOption(configDirOpt("the relay's configuration"))
    .action(lazy(() => import('./hosts-run.js'), 'hostsRemove'));
  return hosts;
}

export function proxyCommand(): Command {
  const proxy = new Command('proxy').description("on a host: the relay's forced command, joining its SSH session to this host's daemon");
  proxy
    .command('bridge', { isDefault: true, hidden: false })
    .description('join stdin and stdout to the daemon socket (what the relay\'s key runs; not for people)')
    .action(lazy(() => import('./proxy.js'), 'proxy'));
  proxy
    .command('authorize <public-key>')
    .description("(root) let the relay whose key this is log in here as its own account, to run the proxy and nothing else")
    .option('--account <name>', 'the account it logs in as', 'airlock-relay')
    .addOption(new Option('--role <role>', 'the Airlock role of that account here').choices(['observer', 'dev', 'admin']).default('dev'))
    .option('--json', 'print what was done as JSON')
    .action(lazy(() => import('./proxy-authorize.js'), 'proxyAuthorize'));
  return proxy;
}

const FLEET_HELP = `
A person approves a fleet plan, one pending transaction on each of many hosts, with ONE
passkey assertion. Run it at the workstation as yourself (your account in airlock-fleet):

  airlock fleet approve web1:tx_... web2:tx_... web3:tx_...

Each host's transaction is fetched through the relay and shown side by side: its summary,
risk and match code, the change most hosts make, and every host whose change differs, with
the lines that differ. A local page (http://localhost:PORT, one of the hosts' [passkeys]
origins) then asks your passkey to sign the whole list once; the link carries a one-time
token, and the page takes one assertion. Each host approves its own entry and says so; the
agent (the requester) executes on each host as after any approval.

Per-host approval stays possible: \`airlock approve TX\` on the host itself, or its console.

Exit status: 0 every host approved; 1 a host refused (each host's answer says why), or was
left out by --skip-unready; 2 usage; 3 not allowed (not in airlock-fleet, or a host refused
you); 4 a transaction is not pending, or no assertion came before the first deadline; 5 bad
arguments, or hosts of different passkey RP IDs; 7 a host or the relay unreachable.`;

export function fleetCommand(): Command {
  const fleet = new Command('fleet').description('a plan on many hosts, approved by a person at once').addHelpText('after', FLEET_HELP);
  fleet
    .command('approve <host:tx...>')
    .description('approve one pending transaction on each host with ONE passkey assertion, after reading them side by side')
    .addHelpText('after', FLEET_HELP)
    .option('--listen <addr:port>', 'where the local page listens; http://localhost:PORT must be one of the hosts\' [passkeys] origins', '127.0.0.1:7443')
    .option('--skip-unready', 'leave out the hosts whose transaction cannot be approved now (each named) rather than refuse the plan')
    .option('--json', 'print {challenge, entries, skipped, hosts: each host\'s answer} as JSON')
    .action(lazy(() => import('./fleet-approve.js'), 'fleetApprove'));
  return fleet;
}
