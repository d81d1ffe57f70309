/** The console's origin from the policy's [console] url (src/console/policy-origin.ts), when --origin does not say. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { policyConsoleOrigin } from '../../src/console/policy-origin.js';
import { AirlockError } from '../../src/protocol/errors.js';

test("the origin of [console] url; none without the file or the key; a refusal that says what to do for a bad one", () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-origin-'));
  try {
    const file = join(dir, 'policy.toml');
    assert.equal(policyConsoleOrigin(join(dir, 'absent.toml')), null);
    writeFileSync(file, 'reads = "auto"\n');
    assert.equal(policyConsoleOrigin(file), null);
    writeFileSync(file, '[passkeys]\nrp_id = "airlock.example.org"\n\n[console]\nurl = "https://airlock.example.org/"\n');
    assert.equal(policyConsoleOrigin(file), 'https://airlock.example.org');
    const bad = (text: string, why: RegExp) => {
      writeFileSync(file, text);
      assert.throws(() => policyConsoleOrigin(file), (e) => e instanceof AirlockError && e.code === 'bad_origin' && why.test(e.message) && /--origin/.test(e.hint ?? ''));
    };
    bad('[console\nurl = 1', /not valid TOML/);
    bad('[console]\nurl = 7443\n', /not a URL/);
    bad('[console]\nurl = "localhost"\n', /not a URL/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
