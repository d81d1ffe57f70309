/**
 * preview-digest.json: docs/protocol.md §12. No key: a hash over the preview envelope the
 * approver is shown. The envelope is a plausible AddHostsEntry preview built here; what its
 * members mean is §7.1 (proposed_change.digest and the patch's sha256 are opaque to this format).
 */
import { canonicalize } from '../../src/protocol/canonical.js';
import { previewDigest, previewDigestInput, requestHash, sha256Hex } from '../../src/protocol/hash.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';
import { minRoleForRisk } from '../../src/protocol/risk.js';
import { flipAt, flipHex, header, hex } from './common.js';

function envelope(): PreviewEnvelope {
  const params = { ip: '10.0.0.12', names: ['db.internal', 'db'] };
  const patch = { kind: 'filePatch', path: '/etc/hosts', search: '127.0.0.1 localhost\n', replace: '127.0.0.1 localhost\n10.0.0.12 db.internal db\n' };
  const body: Omit<PreviewEnvelope, 'preview_digest'> = {
    transaction_id: 'tx_000000000000000000000001',
    action_name: 'AddHostsEntry',
    params,
    request_hash: requestHash('AddHostsEntry', params),
    summary: 'Map db.internal, db → 10.0.0.12 in /etc/hosts',
    risk: 'medium',
    min_role: minRoleForRisk('medium'),
    current_state: { entries: [{ ip: '127.0.0.1', names: ['localhost'] }] },
    proposed_change: {
      change: { add: { ip: '10.0.0.12', names: ['db.internal', 'db'] } },
      mechanism: [{ kind: 'filePatch', path: '/etc/hosts', sha256: sha256Hex(canonicalize(patch)), diff: { removed: ['127.0.0.1 localhost', ''], added: ['127.0.0.1 localhost', '10.0.0.12 db.internal db', ''], not_shown: 0 } }],
      digest: sha256Hex(canonicalize({ change: { add: params }, steps: [patch] })),
    },
    side_effects: ['programs on this host resolve db.internal to 10.0.0.12'],
    reboot_required: false,
    rollback_available: true,
    warnings: ['db.internal also resolves in DNS: /etc/hosts takes precedence'],
    requested_by: 'agent(uid 1001)',
    created_at: '2026-01-01T00:00:00.000Z',
    expires_at: '2026-01-01T00:15:00.000Z',
  };
  return { ...body, preview_digest: previewDigest(body) };
}

/** The same members, last first, with spaces: a different text of the same JSON value. */
const reordered = (e: object) => `{ ${Object.entries(e).reverse().map(([k, v]) => `${JSON.stringify(k)} : ${JSON.stringify(v)}`).join(' , ')} }`;

export function previewDigestVectors(): unknown {
  const e = envelope();
  const validCase = (name: string, env: PreviewEnvelope) => ({ name, envelope: env, digest_input_utf8: previewDigestInput(env), digest_input_hex: hex(previewDigestInput(env)), preview_digest: env.preview_digest });
  const { preview_digest: _d, ...body } = e;
  const unattended = { ...body, unattended: true as const };
  const valid = [
    validCase('a preview envelope', e),
    validCase('an unattended proposal (the optional unattended member is covered too)', { ...unattended, preview_digest: previewDigest(unattended) }),
    { name: 'the same envelope as a JSON text with its members in another order and other whitespace', envelope_json: reordered(e), preview_digest: e.preview_digest },
  ];
  const claim = (name: string, why: string, env: object) => ({ name, why, envelope: env });
  const invalid = [
    claim('a bit flipped in the digest', 'the digest of this envelope differs from its preview_digest in one bit', { ...e, preview_digest: flipHex(e.preview_digest, -1) }),
    claim('the summary changed by one bit', 'the approver would see another text than the one approved', { ...e, summary: flipAt(e.summary, '10.0.0.12') }),
    claim('a parameter changed', 'ip 10.0.0.13 is not what the digest covers', { ...e, params: { ...e.params, ip: '10.0.0.13' } }),
    claim('a warning dropped', 'the digest covers every warning shown', { ...e, warnings: [] }),
    claim('the unattended member added', 'the digest covers the optional members: adding one is a change', { ...e, unattended: true }),
    claim('digest over the members in insertion order', 'the digest is over JCS; JSON.stringify of the envelope is another text', { ...e, preview_digest: sha256Hex(JSON.stringify(body)) }),
    claim('digest over the envelope with its preview_digest member', 'the member is left out of what it covers', { ...e, preview_digest: sha256Hex(canonicalize({ ...body, preview_digest: '' })) }),
    { ...claim('a summary with a lone surrogate', 'JCS refuses it, so the envelope matches no digest', { ...e, summary: 'db\ud800' }), refused: true },
  ];
  return { ...header('preview digest', '#12-preview-digest'), formula: 'preview_digest = hex(SHA-256(UTF8(JCS(envelope without its preview_digest member))))', valid, invalid };
}
