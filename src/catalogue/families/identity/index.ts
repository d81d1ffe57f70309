import type { AnyAction } from '../../action.js';
import { ntpStatus, setNtp, timeStatus } from './clock.js';
import { getHostname, setHostname, setPrettyHostname } from './hostname.js';
import { getLocale, listLocales, setLocale } from './locale.js';
import { getTimezone, setTimezone } from './timezone.js';

/** The identity family: the host's name and pretty name, its time zone, clock and network time, and the system locale. */
export const actions: readonly AnyAction[] = [getHostname, setHostname, getTimezone, setTimezone, ntpStatus, setNtp, getLocale, listLocales, setLocale, timeStatus, setPrettyHostname];
