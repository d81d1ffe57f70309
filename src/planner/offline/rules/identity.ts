/** Rules of the identity family: host name, time zone, clock and NTP, locale. */
import { missing, rule, step, steps } from '../rule.js';
import { hasTimezone, LABEL, takeQuoted, takeSwitch, takeTimezone } from '../words.js';

const LOCALE = /^(C|POSIX|C\.UTF-8|[a-z]{2,3}(_[A-Z]{2})?(\.[A-Za-z0-9-]{1,20})?(@[a-z0-9]{1,20})?)$/;

export const identityRules = [
  rule('identity.hostname', [['hostname', 'host name', 'name of this host', 'name of the server', 'machine name', 'server name']], (c) => {
    const pretty = c.take('pretty') || c.take('display');
    const quoted = takeQuoted(c);
    if (pretty || (quoted !== null && !LABEL.test(quoted))) {
      return quoted === null ? steps(step('GetHostname', {}, 'the host name')) : steps(step('SetPrettyHostname', { pretty: quoted }, `set the pretty host name to "${quoted}"`));
    }
    const name = quoted ?? c.after(['to', 'as', 'into'], (t) => !t.literal && LABEL.test(t.low)) ?? c.takeToken((t) => c.isName(t) && LABEL.test(t.low) && /[-\d]/.test(t.low));
    return name === null ? steps(step('GetHostname', {}, 'the host name')) : steps(step('SetHostname', { hostname: name.toLowerCase() }, `rename the host ${name.toLowerCase()}`));
  }, { also: ['show', 'what', 'set', 'change', 'rename', 'is', 'the', 'current', 'new'] }),
  rule('identity.rename', [['rename'], ['host', 'server', 'machine', 'box', 'system']], (c) => {
    const name = c.after(['to', 'as', 'into'], (t) => !t.literal && LABEL.test(t.low)) ?? c.takeToken((t) => c.isName(t) && LABEL.test(t.low));
    return name === null ? missing('the new host name') : steps(step('SetHostname', { hostname: name.toLowerCase() }, `rename the host ${name.toLowerCase()}`));
  }, { also: ['this', 'the'] }),
  rule('identity.timezone', [['timezone', 'time zone', 'tz', 'zone']], (c) => {
    const zone = takeTimezone(c);
    return zone === null ? steps(step('GetTimezone', {}, 'the time zone')) : steps(step('SetTimezone', { timezone: zone }, `set the time zone to ${zone}`));
  }, { also: ['show', 'what', 'set', 'change', 'switch', 'is', 'the', 'to', 'current', 'which'] }),
  rule('identity.timezone-of-city', [['set', 'change', 'switch', 'move'], ['clock', 'time']], (c) => {
    const zone = takeTimezone(c);
    return zone === null ? missing('the time zone (e.g. Europe/Paris)') : steps(step('SetTimezone', { timezone: zone }, `set the time zone to ${zone}`));
  }, { needs: hasTimezone, also: ['to', 'the', 'time'] }),
  rule('identity.ntp', [['ntp', 'time sync', 'time synchronisation', 'time synchronization', 'timesyncd', 'clock sync', 'synchronised', 'synchronized', 'synced', 'network time']], (c) => {
    const on = takeSwitch(c);
    return on === null ? steps(step('NtpStatus', {}, 'whether the clock is synchronised, and with which server')) : steps(step('SetNtp', { enabled: on }, `turn network time synchronisation ${on ? 'on' : 'off'}`));
  }, { also: ['status', 'show', 'is', 'the', 'clock', 'check', 'working'] }),
  rule('identity.locale', [['locale', 'locales', 'language', 'lang']], (c) => {
    if (c.takeAny(['available', 'installed', 'compiled', 'list', 'which', 'all'])) return steps(step('ListLocales', {}, 'the locales compiled on this host'));
    const lang = c.takeToken((t) => !t.literal && LOCALE.test(t.raw) && t.raw.includes('_'));
    return lang === null ? steps(step('GetLocale', {}, 'the system locale')) : steps(step('SetLocale', { lang }, `set the system locale to ${lang}`));
  }, { also: ['show', 'what', 'set', 'change', 'switch', 'is', 'the', 'to', 'system', 'current'] }),
  rule('identity.time', [['time', 'clock', 'date', 'timedatectl']], () => steps(step('TimeStatus', {}, 'the clock as systemd sees it')), { also: ['what', 'show', 'is', 'it', 'the', 'local', 'current', 'check', 'right', 'correct', 'synchronised', 'synchronized', 'synced', 'ntp'] /* timedatectl says both */, unless: ['since', 'last', 'logs', 'cron', 'every', 'schedule', 'timer', 'at', 'boot'], needs: (c) => !hasTimezone(c) }),
];
