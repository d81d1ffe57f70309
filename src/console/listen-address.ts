/**
 * `--listen ADDR:PORT` and `--origin URL`: where the console listens (127.0.0.1:7443 by
 * default: reached through an SSH tunnel, or a reverse proxy on the same host) and the origin
 * the browser sees it at (http://localhost:PORT by default), which every POST must carry.
 */
import { AirlockError } from '../protocol/errors.js';

export const DEFAULT_LISTEN = '127.0.0.1:7443';

export function parseListen(s: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:]+)\]|([^:\s]+)):(\d{1,5})$/.exec(s);
  const port = m ? Number(m[3]) : NaN;
  if (!m || !(port >= 1 && port <= 65535)) {
    throw new AirlockError('validation', 'bad_listen', `--listen ${JSON.stringify(s)} is not ADDRESS:PORT`, 'for example --listen 127.0.0.1:7443, or --listen [::1]:7443');
  }
  return { host: (m[1] ?? m[2])!, port };
}

/** The origin, normalised as a browser sends it (scheme://host[:port], no path, no trailing slash). */
export function parseOrigin(s: string): string {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new AirlockError('validation', 'bad_origin', `--origin ${JSON.stringify(s)} is not a URL`, 'for example --origin https://airlock.example.org');
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || (u.pathname !== '/' && u.pathname !== '') || u.search || u.hash || u.username) {
    throw new AirlockError('validation', 'bad_origin', `--origin ${JSON.stringify(s)} is not an origin (scheme://host[:port], nothing after it)`, 'for example --origin https://airlock.example.org');
  }
  if (u.protocol === 'http:' && u.hostname !== 'localhost' && u.hostname !== '127.0.0.1' && u.hostname !== '[::1]') {
    throw new AirlockError('validation', 'bad_origin', `--origin ${s}: a browser makes passkeys only on https, or on http://localhost`, 'serve it behind a reverse proxy with a certificate (docs/console.md), or reach it through `ssh -L 7443:localhost:7443 HOST`');
  }
  return u.origin;
}
