/** Wi-Fi secrets: wpa_supplicant, NetworkManager, hostapd PSKs and 802.1X passwords. */
import type { Rng } from './rng.js';
import type { KindSpec, Secret } from './types.js';
import { text, user } from './context.js';

const ssid = (r: Rng): string => r.pick(['HomeNet', 'Office-5G', 'WAREHOUSE_IOT', 'lab-wlan', 'Guest-Corp', 'FRITZ!Box 7590 XQ']);
/** Passphrases people give Wi-Fi: 8..63 printable characters; kept free of quotes and spaces. */
const passphrase = (r: Rng): string => r.chance(0.5) ? r.password() : `${r.word()}${r.word()}${r.int(1000, 9999)}`;

const wpa: KindSpec = {
  kinds: ['wpa-supplicant-psk'],
  make(r) {
    const s = ssid(r);
    const p = passphrase(r);
    if (r.chance(0.5)) {
      const hex = r.hex(64);
      // wpa_passphrase prints the plain passphrase as a comment next to the derived key.
      const secrets: Secret[] = [{ kind: 'wpa-supplicant-psk', value: p }, { kind: 'wpa-supplicant-psk', value: hex }];
      return { name: `wpa_passphrase '${s}'`, secrets, text: text(['network={', `\tssid="${s}"`, `\t#psk="${p}"`, `\tpsk=${hex}`, '}']) };
    }
    return { name: 'cat /etc/wpa_supplicant/wpa_supplicant-wlan0.conf', secrets: [{ kind: 'wpa-supplicant-psk', value: p }],
      text: text(['ctrl_interface=DIR=/var/run/wpa_supplicant GROUP=netdev', 'update_config=1', 'country=DE', '', 'network={', `    ssid="${s}"`, `    psk="${p}"`, '    key_mgmt=WPA-PSK', '    priority=10', '}']) };
  },
};

const nm: KindSpec = {
  kinds: ['networkmanager-psk'],
  make(r) {
    const s = ssid(r);
    const p = passphrase(r);
    if (r.chance(0.5)) {
      return { name: `cat '/etc/NetworkManager/system-connections/${s}.nmconnection'`, secrets: [{ kind: 'networkmanager-psk', value: p }],
        text: text(['[connection]', `id=${s}`, `uuid=${r.uuid()}`, 'type=wifi', 'interface-name=wlp2s0', `timestamp=${r.int(1700000000, 1790000000)}`, '', '[wifi]', 'mode=infrastructure', `ssid=${s}`, '',
          '[wifi-security]', 'auth-alg=open', 'key-mgmt=wpa-psk', `psk=${p}`, '', '[ipv4]', 'method=auto', '', '[ipv6]', 'addr-gen-mode=stable-privacy', 'method=auto', '', '[proxy]']) };
    }
    return { name: `nmcli -s connection show '${s}' | grep -i wireless`, secrets: [{ kind: 'networkmanager-psk', value: p }],
      text: text([`802-11-wireless.ssid:                    ${s}`, '802-11-wireless.mode:                    infrastructure', '802-11-wireless.band:                    --',
        '802-11-wireless-security.key-mgmt:       wpa-psk', '802-11-wireless-security.auth-alg:       --', '802-11-wireless-security.proto:          --',
        `802-11-wireless-security.psk:            ${p}`, '802-11-wireless-security.psk-flags:      0 (none)', '802-11-wireless-security.pmf:            0 (default)']) };
  },
};

const hostapd: KindSpec = {
  kinds: ['hostapd-passphrase'],
  make(r) {
    const p = passphrase(r);
    return { name: 'cat /etc/hostapd/hostapd.conf', secrets: [{ kind: 'hostapd-passphrase', value: p }],
      text: text(['interface=wlan0', 'driver=nl80211', `ssid=${ssid(r)}`, 'hw_mode=g', `channel=${r.pick([1, 6, 11])}`, 'ieee80211n=1', 'wmm_enabled=1', 'macaddr_acl=0',
        'auth_algs=1', 'ignore_broadcast_ssid=0', 'wpa=2', `wpa_passphrase=${p}`, 'wpa_key_mgmt=WPA-PSK', 'wpa_pairwise=TKIP', 'rsn_pairwise=CCMP', 'country_code=DE']) };
  },
};

const eap: KindSpec = {
  kinds: ['eap-password'],
  make(r) {
    const p = r.password();
    const u = user(r);
    if (r.chance(0.5)) {
      return { name: 'cat /etc/wpa_supplicant/wpa_supplicant.conf', secrets: [{ kind: 'eap-password', value: p }],
        text: text(['ctrl_interface=/run/wpa_supplicant', 'network={', '    ssid="eduroam"', '    key_mgmt=WPA-EAP', '    eap=PEAP', `    identity="${u}@uni.example.edu"`,
          '    anonymous_identity="anonymous@uni.example.edu"', `    password="${p}"`, '    ca_cert="/etc/ssl/certs/USERTrust_RSA_Certification_Authority.pem"', '    phase2="auth=MSCHAPV2"', '}']) };
    }
    return { name: "nmcli -s -g 802-1x.identity,802-1x.password connection show 'Corp-WiFi'", secrets: [{ kind: 'eap-password', value: p }], text: text([u, p]) };
  },
};

export const wifiSpecs: KindSpec[] = [wpa, nm, hostapd, eap];
