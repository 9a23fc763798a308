/**
 * A self-signed certificate authority and a server certificate for the sandbox's HTTPS listener.
 *
 * ECDSA P-256 keys (made in about a millisecond, where an RSA key takes hundreds) and X.509 v3
 * certificates written in DER by hand: a few fixed structures, signed with node:crypto.
 */
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

export interface TlsMaterial {
  caCert: string;
  serverCert: string;
  serverKey: string;
}

// ---- DER

function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, body]);
}

const seq = (...c: Buffer[]): Buffer => der(0x30, ...c);
const set = (...c: Buffer[]): Buffer => der(0x31, ...c);
const octets = (b: Buffer): Buffer => der(0x04, b);
const bits = (b: Buffer, unused = 0): Buffer => der(0x03, Buffer.from([unused]), b);
const TRUE = der(0x01, Buffer.from([0xff]));

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [a * 40 + b];
  for (const v of rest) {
    const groups: number[] = [];
    for (let x = v; ; x = Math.floor(x / 128)) {
      groups.unshift((x & 0x7f) | (groups.length ? 0x80 : 0));
      if (x < 128) break;
    }
    out.push(...groups);
  }
  return der(0x06, Buffer.from(out));
}

/** A positive INTEGER from big-endian bytes, minimally encoded. */
function integer(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0 && b[i + 1] < 0x80) i++;
  const v = b.subarray(i);
  return der(0x02, v[0] >= 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}

function time(d: Date): Buffer {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '') + 'Z';
  // RFC 5280: UTCTime through 2049, GeneralizedTime from 2050
  return d.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(digits.slice(2))) : der(0x18, Buffer.from(digits));
}

const commonName = (cn: string): Buffer => seq(set(seq(oid('2.5.4.3'), der(0x0c, Buffer.from(cn)))));

const extension = (id: string, value: Buffer, critical = false): Buffer =>
  critical ? seq(oid(id), TRUE, octets(value)) : seq(oid(id), octets(value));

/** The key identifier of RFC 5280 §4.2.1.2 (1): SHA-1 of the subjectPublicKey bits. */
function keyId(spki: Buffer): Buffer {
  // SubjectPublicKeyInfo ::= SEQUENCE { algorithm SEQUENCE, subjectPublicKey BIT STRING }
  const contentStart = (b: Buffer, at: number): number => (b[at + 1] < 0x80 ? at + 2 : at + 2 + (b[at + 1] & 0x7f));
  const skip = (b: Buffer, at: number): number => {
    const start = contentStart(b, at);
    const lenBytes = b[at + 1] < 0x80 ? 0 : b[at + 1] & 0x7f;
    const len = lenBytes ? b.readUIntBE(at + 2, lenBytes) : b[at + 1];
    return start + len;
  };
  const algEnd = skip(spki, contentStart(spki, 0));
  const bitString = spki.subarray(contentStart(spki, algEnd) + 1, skip(spki, algEnd)); // after the unused-bits byte
  return createHash('sha1').update(bitString).digest();
}

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

interface CertSpec {
  subject: string;
  issuer: string;
  /** The subject's key (private or public). */
  publicKey: KeyObject;
  signingKey: KeyObject;
  issuerKeyId: Buffer;
  notBefore: Date;
  notAfter: Date;
  extensions: Buffer[];
}

function certificate(c: CertSpec): string {
  const serial = randomBytes(16);
  serial[0] = serial[0] & 0x7f || 1;
  const spki = createPublicKey(c.publicKey).export({ type: 'spki', format: 'der' });
  const tbs = seq(
    der(0xa0, integer(Buffer.from([2]))), // v3
    integer(serial),
    ECDSA_SHA256,
    commonName(c.issuer),
    seq(time(c.notBefore), time(c.notAfter)),
    commonName(c.subject),
    spki,
    der(
      0xa3,
      seq(
        ...c.extensions,
        extension('2.5.29.14', octets(keyId(spki))), // subjectKeyIdentifier
        extension('2.5.29.35', seq(der(0x80, c.issuerKeyId))), // authorityKeyIdentifier
      ),
    ),
  );
  const signature = sign('sha256', tbs, c.signingKey);
  const body = seq(tbs, ECDSA_SHA256, bits(signature)).toString('base64');
  return `-----BEGIN CERTIFICATE-----\n${body.replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  // IPv6: expand "::"
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** Makes a CA and a server certificate valid for the given host names and addresses. */
export function generateTls(hosts: string[], opts: { clientAuth?: boolean } = {}): TlsMaterial {
  const notBefore = new Date(Date.now() - 60 * 60 * 1000);
  const notAfter = new Date(Date.now() + 10 * 365 * 24 * 60 * 60 * 1000);
  const ecKey = (): KeyObject => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;

  const caKey = ecKey();
  const caName = 'addon-operator-sandbox-ca';
  const caKeyId = keyId(createPublicKey(caKey).export({ type: 'spki', format: 'der' }));
  const caCert = certificate({
    subject: caName,
    issuer: caName,
    publicKey: caKey,
    signingKey: caKey,
    issuerKeyId: caKeyId,
    notBefore,
    notAfter,
    extensions: [
      extension('2.5.29.19', seq(TRUE), true), // basicConstraints: CA
      extension('2.5.29.15', bits(Buffer.from([0x86]), 1), true), // keyUsage: digitalSignature, keyCertSign, cRLSign
    ],
  });

  const serverKey = ecKey();
  const all = new Set(['localhost', '127.0.0.1', '::1', ...hosts.filter((h) => h && h !== '0.0.0.0' && h !== '::')]);
  const altNames = [...all].map((h) => (isIP(h) ? der(0x87, ipBytes(h)) : der(0x82, Buffer.from(h))));
  const serverCert = certificate({
    subject: 'addon-operator-sandbox',
    issuer: caName,
    publicKey: serverKey,
    signingKey: caKey,
    issuerKeyId: caKeyId,
    notBefore,
    notAfter,
    extensions: [
      extension('2.5.29.19', seq()), // basicConstraints: not a CA
      extension('2.5.29.15', bits(Buffer.from([0x80]), 7), true), // keyUsage: digitalSignature
      // extKeyUsage: serverAuth (and clientAuth when asked: a client certificate)
      extension('2.5.29.37', seq(oid('1.3.6.1.5.5.7.3.1'), ...(opts.clientAuth ? [oid('1.3.6.1.5.5.7.3.2')] : []))),
      extension('2.5.29.17', seq(...altNames)), // subjectAltName
    ],
  });

  return { caCert, serverCert, serverKey: serverKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
