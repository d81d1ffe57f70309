/**
 * Quantities the logging actions take and show: a systemd time span (journal retention
 * and vacuum age, rate-limit interval) and a byte count made readable.
 */
import { token } from '../../params.js';

/** A systemd time span: a number and one unit (30s, 12h, 2weeks, 6months). */
export const timeSpan = token(/^[1-9][0-9]{0,5}(s|min|h|d|days|w|weeks|months|years)$/, 'time span (a number followed by s, min, h, d, days, w, weeks, months or years, e.g. 2weeks)', 12);

export const bytes = (n: number) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)}M` : n >= 1 << 10 ? `${(n / (1 << 10)).toFixed(1)}K` : `${n}B`);
