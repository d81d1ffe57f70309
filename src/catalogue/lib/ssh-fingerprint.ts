/**
 * The fingerprint of an SSH public key as `ssh-keygen -lf` prints it, for families (they reach
 * code outside the catalogue only through lib/). The one implementation lives in
 * src/protocol/ssh-fingerprint.ts, which the CLI uses too.
 */
export { sshKeyFingerprint, fingerprintText, type KeyFingerprint } from '../../protocol/ssh-fingerprint.js';
