/**
 * The page's static files (console/ at the repository root: index.html, app.js, style.css),
 * read once at start, so a file changed under a running console is not served half-written and
 * nothing of the file system is reachable by a URL. tsc copies no non-TypeScript file, so the
 * folder is found from this module's place: src/console/ under tsx and dist/console/ after a
 * build are both two levels below the root.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  type: string;
  body: Buffer;
}

export const ASSET_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'console');

const FILES: Record<string, [file: string, type: string]> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  // The registration page is the same document: app.js reads the path (the id is in the fragment, never sent).
  '/register': ['index.html', 'text/html; charset=utf-8'],
  // The grants for configuration edits: the one request a person makes here (app.js reads the path).
  '/grants': ['index.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/webauthn.js': ['webauthn.js', 'text/javascript; charset=utf-8'],
  '/style.css': ['style.css', 'text/css; charset=utf-8'],
};

/** A transaction's page (/tx/ID, the link a notification carries) is the same document too. */
const TX_PAGE = /^\/tx\/tx_[0-9a-f]{24}$/;

/** The asset a URL path names, or undefined. */
export function assetFor(assets: Map<string, Asset>, path: string): Asset | undefined {
  return assets.get(TX_PAGE.test(path) ? '/' : path);
}

/** Every asset by its URL path; throws, naming the folder, when one is missing. */
export function loadAssets(dir = ASSET_DIR): Map<string, Asset> {
  const out = new Map<string, Asset>();
  for (const [path, [file, type]] of Object.entries(FILES)) {
    try {
      out.set(path, { type, body: readFileSync(join(dir, file)) });
    } catch (e) {
      throw new Error(`the console's page ${join(dir, file)} cannot be read (${(e as NodeJS.ErrnoException).code ?? e}): run the console from a complete checkout of Airlock`);
    }
  }
  return out;
}
