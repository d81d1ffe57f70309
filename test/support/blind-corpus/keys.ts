/** Private key material: PEM (PKCS#1, SEC1, PKCS#8), OpenSSH, WireGuard, OpenVPN static keys. */
import type { KindSpec } from './types.js';
import { fqdn, ip, lsLine, text, user } from './context.js';
import { opensshEd25519, pemBlock, pemBody, type PemKind } from './pem.js';

function pemKind(kind: string, pk: PemKind): KindSpec {
  return {
    kinds: [kind],
    make(r) {
      const body = pemBody(r, pk);
      const key = pemBlock(pk, body);
      const shape = r.int(0, 2);
      if (shape === 0) return { name: `cat /etc/ssl/private/${fqdn(r)}.key`, secrets: [{ kind, value: body }], text: key + '\n' };
      if (shape === 1) {
        // haproxy's combined PEM: the public certificate first, then the key.
        return { name: 'cat /etc/haproxy/certs/site.pem', secrets: [{ kind, value: body }], text: `${pemBlock('cert', pemBody(r, 'cert'))}\n${pk === 'ec' ? '-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n' : ''}${key}\n` };
      }
      return { name: 'openssl pkey -in key.pem (after ls)', secrets: [{ kind, value: body }],
        text: `${lsLine(r, '-rw-------', 'root', 'key.pem')}\n${lsLine(r, '-rw-r--r--', 'root', 'cert.pem')}\n${key}\n` };
    },
  };
}

const openssh: KindSpec = {
  kinds: ['openssh-private-key'],
  make(r) {
    const u = user(r);
    const k = opensshEd25519(r, `${u}@${fqdn(r)}`);
    const block = `-----BEGIN OPENSSH PRIVATE KEY-----\n${k.body}\n-----END OPENSSH PRIVATE KEY-----`;
    return { name: `cat ~${u}/.ssh/id_ed25519 ~${u}/.ssh/id_ed25519.pub`, secrets: [{ kind: 'openssh-private-key', value: k.body }], text: `${block}\n${k.publicLine}\n` };
  },
};

const wgKey = (r: { b64(n: number): string }): string => r.b64(32);

const wgPrivate: KindSpec = {
  kinds: ['wireguard-private-key'],
  make(r) {
    const v = wgKey(r);
    if (r.chance(0.5)) {
      return { name: 'cat /etc/wireguard/wg0.conf', secrets: [{ kind: 'wireguard-private-key', value: v }],
        text: text(['[Interface]', `Address = 10.${r.int(0, 200)}.0.1/24`, 'ListenPort = 51820', `PrivateKey = ${v}`, 'PostUp = nft add rule inet filter forward iifname wg0 accept', '',
          '[Peer]', `# ${user(r)} laptop`, `PublicKey = ${wgKey(r)}`, `AllowedIPs = 10.${r.int(0, 200)}.0.2/32`, '', '[Peer]', '# phone', `PublicKey = ${wgKey(r)}`, `AllowedIPs = 10.${r.int(0, 200)}.0.3/32`]) };
    }
    return { name: 'wg showconf wg0', secrets: [{ kind: 'wireguard-private-key', value: v }],
      text: text(['[Interface]', 'ListenPort = 51820', 'FwMark = 0xca6c', `PrivateKey = ${v}`, '', '[Peer]', `PublicKey = ${wgKey(r)}`, `AllowedIPs = 0.0.0.0/0`, `Endpoint = ${ip(r)}:51820`, 'PersistentKeepalive = 25']) };
  },
};

const wgPsk: KindSpec = {
  kinds: ['wireguard-preshared-key'],
  make(r) {
    const v = wgKey(r);
    if (r.chance(0.5)) {
      return { name: 'wg show wg0 preshared-keys', secrets: [{ kind: 'wireguard-preshared-key', value: v }], text: text([`${wgKey(r)}\t${v}`, `${wgKey(r)}\t(none)`]) };
    }
    return { name: 'cat /etc/systemd/network/90-wg1.netdev', secrets: [{ kind: 'wireguard-preshared-key', value: v }],
      text: text(['[NetDev]', 'Name=wg1', 'Kind=wireguard', '', '[WireGuard]', 'PrivateKeyFile=/etc/systemd/network/wg1.key', 'ListenPort=51821', '', '[WireGuardPeer]',
        `PublicKey=${wgKey(r)}`, `PresharedKey=${v}`, `Endpoint=${fqdn(r)}:51821`, 'AllowedIPs=10.99.0.0/24']) };
  },
};

const ovpn: KindSpec = {
  kinds: ['openvpn-static-key'],
  make(r) {
    const body = Array.from({ length: 16 }, () => r.hex(32)).join('\n');
    const block = `-----BEGIN OpenVPN Static key V1-----\n${body}\n-----END OpenVPN Static key V1-----`;
    if (r.chance(0.5)) return { name: 'cat /etc/openvpn/server/ta.key', secrets: [{ kind: 'openvpn-static-key', value: body }], text: `#\n# 2048 bit OpenVPN static key\n#\n${block}\n` };
    return { name: 'cat client.ovpn', secrets: [{ kind: 'openvpn-static-key', value: body }],
      text: text(['client', 'dev tun', 'proto udp', `remote ${fqdn(r)} 1194`, 'resolv-retry infinite', 'nobind', 'persist-key', 'persist-tun', 'remote-cert-tls server', 'cipher AES-256-GCM', 'verb 3',
        '<ca>', pemBlock('cert', pemBody(r, 'cert')), '</ca>', '<tls-crypt>', block, '</tls-crypt>']) };
  },
};

export const keySpecs: KindSpec[] = [pemKind('pem-rsa-private-key', 'rsa'), pemKind('pem-ec-private-key', 'ec'), pemKind('pem-pkcs8-private-key', 'pkcs8'), openssh, wgPrivate, wgPsk, ovpn];
