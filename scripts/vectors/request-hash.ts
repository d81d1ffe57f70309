/** request-hash.json: docs/protocol.md §11. No key: a hash over the action name and the canonical parameters. */
import { canonicalize } from '../../src/protocol/canonical.js';
import { requestHash, requestHashInput, sha256Hex } from '../../src/protocol/hash.js';
import { flipHex, header, hex } from './common.js';

/** [name, action, the JSON text a client might send]: the examples of §11, then nesting. */
const INPUTS: [string, string, string][] = [
  ['empty parameters', 'HostInfo', '{}'],
  ['key ordering, input A', 'AddAuthorizedKey', '{"user":"deploy","key":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d deploy@laptop"}'],
  ['key ordering, input B (same hash as A)', 'AddAuthorizedKey', '{"key":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d deploy@laptop","user":"deploy"}'],
  ['key ordering and whitespace, input A', 'AddHostsEntry', '{"names":["db.internal","db"],"ip":"10.0.0.12"}'],
  ['key ordering and whitespace, input B (same hash as A)', 'AddHostsEntry', '{ "ip" : "10.0.0.12", "names" : [ "db.internal", "db" ] }'],
  ['non-ASCII keys sort by UTF-16 code units', 'Example', '{"\\u00e9":1,"a":2,"\\u20ac":3,"Z":4,"\\ud83d\\ude00":5,"\\ufb33":6}'],
  ['string escapes', 'Example', '{"s":"tab\\there \\"q\\" back\\\\slash \\u0001 \\u001f \\u007f \\u00e9 \\u2028 \\/"}'],
  ['numbers in ECMAScript form', 'Example', '{"n":[1e21,1E21,0.1,-0,-0.0,1e-7,0.000001,1.0,100.000,9007199254740993,5e-324,-1.5e300]}'],
  ['nested objects and arrays keep array order, sort every object', 'Example', '{"b":{"d":1,"c":[{"f":null,"e":true},[]]},"a":false,"":"empty key"}'],
];

const sha = (b: Buffer) => sha256Hex(b);

export function requestHashVectors(): unknown {
  const valid = INPUTS.map(([name, action, input]) => {
    const params = JSON.parse(input) as unknown;
    const jcs = canonicalize(params);
    return { name, action_name: action, input_json: input, params_jcs_utf8: jcs, params_jcs_hex: hex(jcs), hashed_bytes_hex: hex(requestHashInput(action, params)), request_hash: requestHash(action, params) };
  });
  const hostsA = INPUTS[3]!;
  const hostsB = INPUTS[4]!;
  const hosts = requestHash(hostsA[1], JSON.parse(hostsA[2]));
  const empty = requestHash('HostInfo', {});
  const claim = (name: string, why: string, action: string, input: string, claimed: string) => ({ name, why, action_name: action, input_json: input, claimed_request_hash: claimed });
  const invalid = [
    claim('a bit flipped in the hash', 'the hash of these parameters differs from the claimed one in one bit', hostsA[1], hostsA[2], flipHex(hosts, 31)),
    claim('no 0x00 between the action name and the parameters', 'the separator makes the framing injective; a hash without it is another hash', hostsA[1], hostsA[2], sha(Buffer.from(hostsA[1] + canonicalize(JSON.parse(hostsA[2])), 'utf8'))),
    claim('hashed over the bytes as sent', 'the hash covers JCS of the parsed parameters, never the request text', hostsB[1], hostsB[2], sha(Buffer.concat([Buffer.from(hostsB[1] + '\0'), Buffer.from(hostsB[2])]))),
    claim('members in insertion order, not sorted', 'JCS sorts object members; JSON.stringify keeps the order they came in', hostsA[1], hostsA[2], sha(Buffer.from(`${hostsA[1]}\0${JSON.stringify(JSON.parse(hostsA[2]))}`))),
    claim('a number in the spelling it was sent in', 'JCS writes 1e21 as 1e+21', 'Example', '{"n":[1e21]}', sha(Buffer.from('Example\0{"n":[1e21]}'))),
    claim('the same parameters under another action name', 'the action name is hashed too', 'ListUsers', '{}', empty),
    claim('one parameter changed by one bit', 'ip 10.0.0.13 is not ip 10.0.0.12', hostsA[1], '{"names":["db.internal","db"],"ip":"10.0.0.13"}', hosts),
    claim('a number sent as a string', '"1" and 1 are different values', 'Example', '{"n":"1"}', requestHash('Example', { n: 1 })),
    { name: 'a string with a lone surrogate', why: 'JCS refuses it: a hash must never cover something other than what was sent', action_name: 'Example', input_json: '{"s":"\\ud800"}', refused: true },
    { name: 'a key with a lone surrogate', why: 'JCS refuses it', action_name: 'Example', input_json: '{"\\udc00":1}', refused: true },
  ];
  return { ...header('request hash', '#11-request-hash'), formula: 'request_hash = hex(SHA-256(UTF8(action_name) || 0x00 || UTF8(JCS(params))))', valid, invalid };
}
