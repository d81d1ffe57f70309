/**
 * The person's browser for the web console's tests: Debian's headless Chromium driven by
 * playwright-core, with the DevTools virtual authenticator (a platform passkey with user
 * verification, as a laptop's), and the wait every step of theirs uses.
 */
import assert from 'node:assert/strict';
import type { KeyObject } from 'node:crypto';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';

/**
 * Chromium (`executablePath`: Debian's, or a wrapper that starts it elsewhere) with one page and a
 * virtual platform authenticator; `cdp` and `authenticatorId` to put a credential into it
 * (WebAuthn.addCredential).
 */
export async function browserWithPasskeys(executablePath = '/usr/bin/chromium', viewport = { width: 1280, height: 800 }): Promise<{ browser: Browser; page: Page; cdp: CDPSession; authenticatorId: string }> {
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  const ctx = await browser.newContext({ viewport });
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true } });
  return { browser, page, cdp, authenticatorId };
}

/** Waits for `selector` on the console's page, or fails at once with the page's own error message when it shows one. */
export async function visible(page: Page, selector: string, timeout = 30_000): Promise<void> {
  await page.waitForSelector(`${selector}, #error:not([hidden])`, { timeout });
  if (await page.isVisible('#error')) throw new Error(`the page says: ${await page.textContent('#error')}`);
}

/**
 * Puts a software authenticator's credential (test/support/soft-authenticator.ts) into the virtual
 * authenticator, as a discoverable passkey with the SAME private key: the browser then signs as
 * the key the daemon knows.
 */
export async function holdCredential(cdp: CDPSession, authenticatorId: string, cred: { id: Buffer; key: KeyObject; userHandle: string; counter: number }, rpId = 'localhost'): Promise<void> {
  await cdp.send('WebAuthn.addCredential', {
    authenticatorId,
    credential: {
      credentialId: cred.id.toString('base64'),
      isResidentCredential: true,
      rpId,
      privateKey: cred.key.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      userHandle: Buffer.from(cred.userHandle, 'base64url').toString('base64'),
      signCount: cred.counter,
    },
  });
}

/** Opens a registration's `link` (the console's /register#ID page) and checks it shows the terminal's `check` code, for `approver`. */
export async function openRegistration(page: Page, link: string, check: string, approver: RegExp): Promise<void> {
  await page.goto(link);
  await page.waitForFunction(() => document.getElementById('reg-check')!.textContent !== '');
  assert.equal(await page.textContent('#reg-check'), check, 'the page shows the check code the terminal shows');
  assert.match((await page.textContent('#reg-approver'))!, approver);
}
