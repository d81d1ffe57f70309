/** Rules of the firewall family: ports and sources (nftables, or ufw when named), fail2ban. */
import { missing, rule, step, steps, type Context } from '../rule.js';
import { isCidr, isIp, takeIp, takeNumber, takeNumberAfter, takePort, type Clause } from '../words.js';

const FIREWALL = ['firewall', 'nftables', 'nft', 'iptables', 'ufw', 'firewalld'];
const hasPort = (c: Clause) => c.tokens.some((t) => /^\d{1,5}(\/(tcp|udp))?$/.test(t.low)) || ['https', 'http', 'ssh', 'smtp', 'dns', 'mysql', 'postgres', 'postgresql', 'redis', 'wireguard', 'ntp', 'imaps', 'mariadb'].some((w) => c.has(w));
const hasSource = (c: Clause) => c.tokens.some((t) => isIp(t.low) || isCidr(t.low));
const takeSource = (c: Clause) => c.takeToken((t) => isIp(t.low) || isCidr(t.low));

function portRule(c: Clause, allow: boolean) {
  const source = c.after(['from', 'for'], (t) => isIp(t.low) || isCidr(t.low));
  const port = takePort(c);
  if (port === null) return missing('which port (443/tcp, or a service name such as https)');
  const ufw = c.take('ufw');
  const action = ufw ? (allow ? 'UfwAllow' : 'UfwDeny') : allow ? 'AllowPort' : 'DenyPort';
  return steps(step(action, { port: port.port, protocol: port.protocol, ...(source !== null && !ufw ? { source } : {}) }, `${allow ? 'accept' : 'drop'} incoming ${port.port}/${port.protocol}${port.from !== String(port.port) && !port.from.includes('/') ? ` (${port.from})` : ''}${source !== null ? ` from ${source}` : ''}`));
}

const JAIL = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The jail named ("the sshd jail", "jail recidive"), else sshd, the one fail2ban enables by default (said in the notes). */
function jail(c: Clause, ctx: Context): string {
  const named = c.before(['jail'], (t) => (c.isName(t) && JAIL.test(t.raw)) || t.low === 'sshd') ?? c.after(['jail'], (t) => JAIL.test(t.raw) && !isIp(t.low));
  if (named !== null) return named;
  if (c.takeAny(['sshd', 'ssh']) === null) ctx.assumed.push('the fail2ban jail is sshd (name another with "in the NAME jail")');
  return 'sshd';
}

export const firewallRules = [
  rule('firewall.status', [FIREWALL], (c) => {
    if (c.take('ufw')) return steps(step('UfwStatus', {}, "ufw's state, defaults and rules"));
    if (c.takeAny(['ruleset', 'rules', 'nft', 'nftables'])) return steps(step('ListRuleset', {}, 'the whole nftables ruleset'));
    return steps(step('FirewallStatus', {}, "the firewall's layers and their state"));
  }, { also: ['show', 'status', 'is', 'on', 'active', 'running', 'enabled', 'list', 'what', 'the', 'current', 'state', 'check'], unless: ['allow', 'open', 'block', 'deny', 'close', 'remove', 'delete', 'drop', 'default', 'turn off', 'disable', 'stop', 'off', 'flush'] }),
  rule('firewall.ruleset', [['ruleset', 'nft ruleset', 'firewall rules', 'nftables rules', 'iptables rules']], () => steps(step('ListRuleset', {}, 'the whole nftables ruleset')), { also: ['show', 'list', 'the', 'all', 'current'] }),
  rule('firewall.allow-port', [['open', 'allow', 'permit', 'accept', 'unblock', 'let in', 'expose']], (c) => portRule(c, true), { needs: hasPort, also: ['port', 'incoming', 'traffic', 'connections', 'for', 'in', 'the', 'firewall', 'on', 'to', 'inbound'] }),
  rule('firewall.deny-port', [['close', 'block', 'deny', 'drop', 'reject', 'forbid', 'shut']], (c) => portRule(c, false), { needs: hasPort, also: ['port', 'incoming', 'traffic', 'connections', 'for', 'in', 'the', 'firewall', 'on', 'to', 'inbound'] }),
  rule('firewall.allow-source', [['allow', 'permit', 'accept', 'trust', 'whitelist', 'allowlist']], (c) => {
    const source = takeSource(c);
    return source === null ? missing('which address or network') : steps(step('AllowSource', { source }, `accept everything from ${source}`));
  }, { needs: (c) => hasSource(c) && !hasPort(c), also: ['traffic', 'from', 'all', 'everything', 'the', 'network', 'address', 'in', 'firewall', 'connections'], unless: ['unban', 'jail', 'fail2ban'] }),
  rule('firewall.deny-source', [['block', 'deny', 'drop', 'blacklist', 'reject', 'forbid']], (c) => {
    const source = takeSource(c);
    return source === null ? missing('which address or network') : steps(step('DenySource', { source }, `drop everything from ${source}`));
  }, { needs: (c) => hasSource(c) && !hasPort(c), also: ['traffic', 'from', 'all', 'everything', 'the', 'network', 'address', 'ip', 'in', 'firewall', 'connections'], unless: ['ban', 'jail', 'fail2ban'] }),
  rule('firewall.remove-rule', [['remove', 'delete', 'undo', 'drop'], ['rule', 'firewall rule', 'opening', 'allow', 'allowing', 'deny', 'block', 'handle']], (c) => {
    const handle = takeNumberAfter(c, ['handle']);
    if (handle !== null) return steps(step('RemoveFirewallRule', { handle }, `remove the firewall rule with handle ${handle}`));
    const rule = c.takeAny(['deny', 'denying', 'block', 'blocking']) !== null ? 'deny' : (c.takeAny(['allow', 'allowing', 'opening', 'open']), 'allow');
    const port = takePort(c);
    if (port === null) {
      const source = takeSource(c);
      return source === null ? missing('which rule (its port or address, or its handle)') : steps(step('RemoveFirewallRule', { rule, source }, `remove the ${rule} rule for ${source}`));
    }
    if (c.take('ufw')) return steps(step('UfwDelete', { rule, port: port.port, protocol: port.protocol }, `delete the ufw ${rule} rule for ${port.port}/${port.protocol}`));
    return steps(step('RemoveFirewallRule', { rule, port: port.port, protocol: port.protocol }, `remove the ${rule} rule for ${port.port}/${port.protocol}`));
  }, { also: ['the', 'firewall', 'that', 'which', 'for', 'port', 'rule'] }),
  rule('firewall.default-policy', [['default', 'by default', 'default policy'], ['drop', 'deny', 'block', 'accept', 'allow', 'reject']], (c) => {
    const chain = c.takeAny(['forward', 'forwarded', 'forwarding', 'routed']) !== null ? 'forward' : (c.takeAny(['incoming', 'input', 'inbound']), 'input');
    const policy = c.takeAny(['drop', 'deny', 'block', 'reject']) !== null ? 'drop' : (c.takeAny(['accept', 'allow']), 'accept');
    return steps(step('SetDefaultPolicy', { chain, policy }, `${policy} ${chain} traffic by default`));
  }, { also: ['traffic', 'everything', 'else', 'all', 'the', 'firewall', 'set', 'policy', 'packets', 'connections'] }),
  rule('firewall.fail2ban-status', [['fail2ban', 'jail', 'jails', 'banned', 'bans']], (c) => {
    const j = c.before(['jail'], (t) => c.isName(t) || t.low === 'sshd') ?? c.after(['jail'], (t) => c.isName(t));
    return steps(step('Fail2banStatus', j === null ? {} : { jail: j }, j === null ? "fail2ban's jails" : `the ${j} jail's failures and bans`));
  }, { also: ['show', 'status', 'list', 'which', 'who', 'is', 'are', 'ips', 'addresses', 'the', 'of', 'in', 'currently'], unless: ['ban', 'unban', 'set', 'maxretry', 'bantime', 'findtime'] }),
  rule('firewall.ban', [['ban']], (c, ctx) => {
    const ip = takeIp(c);
    return ip === null ? missing('which IP address to ban') : steps(step('Fail2banBan', { jail: jail(c, ctx), ip }, `ban ${ip} in fail2ban`));
  }, { also: ['in', 'the', 'jail', 'fail2ban', 'from'] }),
  rule('firewall.unban', [['unban', 'lift the ban', 'remove the ban', 'lift ban']], (c, ctx) => {
    const ip = takeIp(c);
    return ip === null ? missing('which IP address to unban') : steps(step('Fail2banUnban', { jail: jail(c, ctx), ip }, `lift the ban of ${ip}`));
  }, { also: ['in', 'the', 'jail', 'fail2ban', 'from', 'on', 'of'] }),
  rule('firewall.jail-option', [['maxretry', 'max retry', 'bantime', 'ban time', 'findtime', 'find time', 'retries', 'attempts']], (c, ctx) => {
    const option = c.takeAny(['maxretry', 'max retry', 'retries', 'attempts']) !== null ? 'maxretry' : c.takeAny(['bantime', 'ban time']) !== null ? 'bantime' : (c.takeAny(['findtime', 'find time']), 'findtime');
    const j = jail(c, ctx);
    if (option === 'maxretry') {
      const n = takeNumber(c, 1, 100);
      return n === null ? missing('the number of retries') : steps(step('SetJailOption', { jail: j, option, value: n }, `ban after ${n} failures in ${j}`));
    }
    const v = c.takeToken((t) => /^[1-9]\d{0,7}[smhdw]?$/.test(t.low));
    return v === null ? missing(`the ${option} (e.g. 1h)`) : steps(step('SetJailOption', { jail: j, option, value: v.toLowerCase() }, `set ${option} of ${j} to ${v}`));
  }, { needs: (c) => c.has('jail') || c.has('fail2ban') || c.has('maxretry') || c.has('bantime') || c.has('findtime'), also: ['set', 'to', 'for', 'the', 'jail', 'fail2ban', 'of', 'in', 'change'] }),
];
