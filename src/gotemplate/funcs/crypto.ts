/** Sprig crypto functions: hashes are in strings.ts; here passwords, AES, keys and certificates. */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  scryptSync,
  sign,
  type KeyObject,
} from 'node:crypto';
import bcryptjs from 'bcryptjs';
import forge from 'node-forge';
import type { ExecContext, FuncDef, PrivateKeyType } from '../exec.js';
import { GoInt, fromUtf8, utf8 } from '../values.js';
import { base64ErrorAt } from './strings.js';

const S = 'string';
const I = 'int';
const ANY = 'interface {}';
const d = (params: string[], fn: FuncDef['fn'], variadic?: string): FuncDef => (variadic ? { params, variadic, fn } : { params, fn });

const TEMPLATES: Record<string, string[]> = {
  maximum: ['anoxxxxxxxxxxxxxxxxx', 'axxxxxxxxxxxxxxxxxno'],
  long: [
    'CvcvnoCvcvCvcv', 'CvcvCvcvnoCvcv', 'CvcvCvcvCvcvno', 'CvccnoCvcvCvcv', 'CvccCvcvnoCvcv', 'CvccCvcvCvcvno',
    'CvcvnoCvccCvcv', 'CvcvCvccnoCvcv', 'CvcvCvccCvcvno', 'CvcvnoCvcvCvcc', 'CvcvCvcvnoCvcc', 'CvcvCvcvCvccno',
    'CvccnoCvccCvcv', 'CvccCvccnoCvcv', 'CvccCvccCvcvno', 'CvcvnoCvccCvcc', 'CvcvCvccnoCvcc', 'CvcvCvccCvccno',
    'CvccnoCvcvCvcc', 'CvccCvcvnoCvcc', 'CvccCvcvCvccno',
  ],
  medium: ['CvcnoCvc', 'CvcCvcno'],
  short: ['Cvcn'],
  basic: ['aaanaaan', 'aannaaan', 'aaannaaa'],
  pin: ['nnnn'],
};
const CHARS: Record<string, string> = {
  V: 'AEIOU',
  C: 'BCDFGHJKLMNPQRSTVWXYZ',
  v: 'aeiou',
  c: 'bcdfghjklmnpqrstvwxyz',
  A: 'AEIOUBCDFGHJKLMNPQRSTVWXYZ',
  a: 'AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz',
  n: '0123456789',
  o: "@&%?,=[]_:-+*$#!'^~;()/.",
  x: 'AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()',
};
const SEED = 'com.lyndir.masterpassword';

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

// Master Password's key depends only on the password and the user name (scrypt, 64 MiB, the slow
// part); the site, counter and template only feed the HMAC. Charts derive many passwords from one
// master password, so the last few keys are kept.
const masterKeys = new Map<string, Buffer>();
const MASTER_KEYS_KEPT = 8;

function masterKey(password: string, user: string): Buffer {
  const id = `${user.length}:${user}:${password}`;
  let key = masterKeys.get(id);
  if (key) {
    masterKeys.delete(id); // most recently used last
  } else {
    const salt = Buffer.concat([Buffer.from(SEED), u32(Buffer.byteLength(user)), Buffer.from(user)]);
    key = scryptSync(Buffer.from(password), salt, 64, { N: 32768, r: 8, p: 2, maxmem: 128 * 1024 * 1024 });
    if (masterKeys.size >= MASTER_KEYS_KEPT) masterKeys.delete(masterKeys.keys().next().value!);
  }
  masterKeys.set(id, key);
  return key;
}

function derivePassword(counter: number, type: string, password: string, user: string, site: string): string {
  const templates = TEMPLATES[type];
  if (!templates) return `cannot find password template ${type}`;
  const msg = Buffer.concat([Buffer.from(SEED), u32(Buffer.byteLength(site)), Buffer.from(site), u32(counter)]);
  const seed = createHmac('sha256', masterKey(password, user)).update(msg).digest();
  const temp = templates[seed[0] % templates.length];
  let out = '';
  for (let i = 0; i < temp.length; i++) {
    const chars = CHARS[temp[i]];
    out += chars[seed[i + 1] % chars.length];
  }
  return out;
}

function aesKey(password: string): Buffer {
  const k = Buffer.alloc(32);
  Buffer.from(password).copy(k, 0, 0, 32);
  return k;
}

function encryptAES(password: string, text: string): string {
  if (text === '') return '';
  const content = Buffer.from(utf8(text));
  const pad = 16 - (content.length % 16);
  const padded = Buffer.concat([content, Buffer.alloc(pad, pad)]);
  const iv = randomBytes(16);
  const c = createCipheriv('aes-256-cbc', aesKey(password), iv);
  c.setAutoPadding(false);
  return Buffer.concat([iv, c.update(padded), c.final()]).toString('base64');
}

function decryptAES(password: string, b64: string): string {
  if (b64 === '') return '';
  const at = base64ErrorAt(b64);
  if (at >= 0) throw new Error(`illegal base64 data at input byte ${at}`);
  const clean = b64.replace(/[\r\n]/g, '');
  const crypt = Buffer.from(clean, 'base64');
  if (crypt.length < 16) throw new Error(`runtime error: slice bounds out of range [:16] with capacity ${(clean.length / 4) * 3}`);
  if ((crypt.length - 16) % 16 !== 0) throw new Error('crypto/cipher: input not full blocks');
  const iv = crypt.subarray(0, 16);
  const dc = createDecipheriv('aes-256-cbc', aesKey(password), iv);
  dc.setAutoPadding(false);
  const out = Buffer.concat([dc.update(crypt.subarray(16)), dc.final()]);
  const n = out[out.length - 1] ?? 0;
  return fromUtf8(out.subarray(0, Math.max(out.length - n, 0)));
}

function bcrypt(s: string): string {
  return bcryptjs.hashSync(s, 10).replace(/^\$2b\$/, '$2a$');
}

/** A new private key from node:crypto (the default of the `generateKey` option). */
export function generatePrivateKey(type: PrivateKeyType, bits: number): KeyObject {
  switch (type) {
    case 'rsa':
      return generateKeyPairSync('rsa', { modulusLength: bits }).privateKey;
    case 'ecdsa':
      return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    case 'ed25519':
      return generateKeyPairSync('ed25519').privateKey;
    case 'dsa':
      return generateKeyPairSync('dsa', { modulusLength: bits, divisorLength: 256 }).privateKey;
  }
}

function newKey(ctx: ExecContext, type: PrivateKeyType, bits: number): KeyObject {
  return (ctx.opts.generateKey ?? generatePrivateKey)(type, bits);
}

function genPrivateKey(ctx: ExecContext, typ: string): string {
  switch (typ) {
    case '':
    case 'rsa':
      return pemForKey(newKey(ctx, 'rsa', 4096));
    case 'ecdsa':
      return pemForKey(newKey(ctx, 'ecdsa', 256));
    case 'ed25519':
      return pemForKey(newKey(ctx, 'ed25519', 256));
    case 'dsa':
      return pemForKey(newKey(ctx, 'dsa', 2048)).replace(/PRIVATE KEY/g, 'DSA PRIVATE KEY');
  }
  return 'Unknown type ' + typ;
}

/** sprig's certificate struct: {Cert, Key} */
export class Certificate {
  get goTypeName(): string {
    return 'sprig.certificate';
  }
  constructor(
    public Cert: string,
    public Key: string,
  ) {}
}

interface KeyPair {
  key: KeyObject; // private
  pem: string; // as sprig returns it (PKCS#1 / SEC1 / PKCS#8)
}

/** The PEM Sprig writes: PKCS#1 for RSA, SEC 1 for ECDSA, PKCS#8 otherwise. */
function pemForKey(k: KeyObject): string {
  switch (k.asymmetricKeyType) {
    case 'rsa':
      return k.export({ type: 'pkcs1', format: 'pem' }).toString();
    case 'ec':
      return k.export({ type: 'sec1', format: 'pem' }).toString();
    default:
      return k.export({ type: 'pkcs8', format: 'pem' }).toString();
  }
}

function rsaKeys(ctx: ExecContext): KeyPair {
  const key = newKey(ctx, 'rsa', 2048);
  return { key, pem: pemForKey(key) };
}

function keysFromPem(pem: string): KeyPair {
  if (!/-----BEGIN [A-Z0-9 ]+-----/.test(pem)) throw new Error('parsing private key: no PEM data in input');
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (e) {
    throw new Error('parsing private key: unsupported key type', { cause: e });
  }
  return { key, pem: pemForKey(key) };
}

const asn1 = forge.asn1;
const derOf = (node: forge.asn1.Asn1): Buffer => Buffer.from(asn1.toDer(node).getBytes(), 'binary');

function sigAlg(key: KeyObject): { oid: string; params: boolean; hash: string | null } {
  switch (key.asymmetricKeyType) {
    case 'ec':
      return { oid: '1.2.840.10045.4.3.2', params: false, hash: 'sha256' };
    case 'ed25519':
      return { oid: '1.3.101.112', params: false, hash: null };
    default:
      return { oid: '1.2.840.113549.1.1.11', params: true, hash: 'sha256' };
  }
}

function algId(a: { oid: string; params: boolean }): forge.asn1.Asn1 {
  const parts = [asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(a.oid).getBytes())];
  if (a.params) parts.push(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, ''));
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, parts);
}

function makeCert(
  cn: string,
  ips: unknown[],
  dns: unknown[],
  days: number,
  isCA: boolean,
  keys: KeyPair,
  signer?: { cert: forge.pki.Certificate; key: KeyObject },
): Certificate {
  // Build the TBSCertificate with forge (dummy RSA key), then put in the real public key and the
  // signature algorithm, and sign with node:crypto (RSA, ECDSA and Ed25519 keys all work).
  const cert = forge.pki.createCertificate();
  const dummy = forge.pki.setRsaPublicKey(new forge.jsbn.BigInteger('3'), new forge.jsbn.BigInteger('3'));
  cert.publicKey = dummy;
  cert.serialNumber = serial();
  const now = new Date();
  cert.validity.notBefore = now;
  cert.validity.notAfter = new Date(now.getTime() + days * 86400000);
  cert.setSubject([{ name: 'commonName', value: cn }]);
  cert.setIssuer(signer ? signer.cert.subject.attributes : [{ name: 'commonName', value: cn }]);
  const altNames: any[] = [];
  for (const ip of ips ?? []) altNames.push({ type: 7, ip: String(ip) });
  for (const n of dns ?? []) altNames.push({ type: 2, value: String(n) });
  const exts: any[] = [
    { name: 'keyUsage', keyEncipherment: true, digitalSignature: true, keyCertSign: isCA },
    { name: 'basicConstraints', cA: isCA, critical: true },
  ];
  if (!isCA) exts.push({ name: 'extKeyUsage', serverAuth: true, clientAuth: true });
  if (altNames.length) exts.push({ name: 'subjectAltName', altNames });
  cert.setExtensions(exts);
  const signKey = signer?.key ?? keys.key;
  const alg = sigAlg(signKey);
  (cert as any).siginfo.algorithmOid = forge.pki.oids.sha256WithRSAEncryption;
  (cert as any).signatureOid = forge.pki.oids.sha256WithRSAEncryption;
  const tbs = (forge.pki as any).getTBSCertificate(cert);
  const spkiDer = createPublicKey(keys.key).export({ type: 'spki', format: 'der' });
  // children: [version, serial, signature, issuer, validity, subject, spki, extensions]
  tbs.value[2] = algId(alg);
  tbs.value[6] = asn1.fromDer(spkiDer.toString('binary'));
  const tbsDer = derOf(tbs);
  const sig = sign(alg.hash, tbsDer, signKey);
  const full = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    tbs,
    algId(alg),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, '\x00' + sig.toString('binary')),
  ]);
  const b64 = derOf(full).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return new Certificate(`-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`, keys.pem);
}

/**
 * A random serial below 2^128 (as sprig's), as the hex of its minimal DER INTEGER content: no leading
 * zero byte unless the next one has its high bit set (a redundant one is rejected by OpenSSL 3,
 * ERR_OSSL_ASN1_ILLEGAL_PADDING, as soon as the certificate is parsed).
 */
function serial(): string {
  let hex = randomBytes(16).toString('hex').replace(/^(00)+/, '');
  if (hex === '') hex = '00';
  return parseInt(hex.slice(0, 2), 16) >= 0x80 ? `00${hex}` : hex;
}

function caFrom(ca: unknown): { cert: forge.pki.Certificate; key: KeyObject } {
  const c = ca as Certificate;
  if (!c || typeof c.Cert !== 'string') throw new Error('error parsing CA certificate');
  return { cert: forge.pki.certificateFromPem(c.Cert), key: keysFromPem(c.Key).key };
}

const n = (v: unknown): number => Number(v instanceof GoInt ? v.v : (v as bigint));
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export const cryptoFuncs: Record<string, FuncDef> = {
  derivePassword: d(['uint32', S, S, S, S], ([c, t, p, u, s]) => derivePassword(n(c), t, p, u, s)),
  encryptAES: d([S, S], ([p, t]) => encryptAES(p, t)),
  decryptAES: d([S, S], ([p, t]) => decryptAES(p, t)),
  bcrypt: d([S], ([s]) => bcrypt(s)),
  // Sprig 3.3.0's (Helm 3.19's): username and password, bcrypt; the hash-algorithm argument exists only
  // on Sprig's master branch, in no release
  htpasswd: d([S, S], ([u, p]) => (u.includes(':') ? `invalid username: ${u}` : `${u}:${bcrypt(p)}`)),
  genPrivateKey: d([S], ([t], ctx) => genPrivateKey(ctx, t)),
  randBytes: d([I], ([c]) => {
    if (n(c) < 0) throw new Error('runtime error: makeslice: len out of range');
    return randomBytes(n(c)).toString('base64');
  }),
  genCA: d([S, I], ([cn, days], ctx) => makeCert(cn, [], [], n(days), true, rsaKeys(ctx))),
  genCAWithKey: d([S, I, S], ([cn, days, key]) => makeCert(cn, [], [], n(days), true, keysFromPem(key))),
  genSelfSignedCert: d([S, '[]interface {}', '[]interface {}', I], ([cn, ips, dns, days], ctx) =>
    makeCert(cn, list(ips), list(dns), n(days), false, rsaKeys(ctx)),
  ),
  genSelfSignedCertWithKey: d([S, '[]interface {}', '[]interface {}', I, S], ([cn, ips, dns, days, key]) =>
    makeCert(cn, list(ips), list(dns), n(days), false, keysFromPem(key)),
  ),
  genSignedCert: d([S, '[]interface {}', '[]interface {}', I, 'sprig.certificate'], ([cn, ips, dns, days, ca], ctx) =>
    makeCert(cn, list(ips), list(dns), n(days), false, rsaKeys(ctx), caFrom(ca)),
  ),
  genSignedCertWithKey: d([S, '[]interface {}', '[]interface {}', I, 'sprig.certificate', S], ([cn, ips, dns, days, ca, key]) =>
    makeCert(cn, list(ips), list(dns), n(days), false, keysFromPem(key), caFrom(ca)),
  ),
  buildCustomCert: d([S, S], ([c, k]) => {
    const cert = Buffer.from(c, 'base64').toString('utf8');
    const key = Buffer.from(k, 'base64').toString('utf8');
    try {
      forge.pki.certificateFromPem(cert);
    } catch {
      throw new Error('unable to decode certificate');
    }
    try {
      createPrivateKey(key);
    } catch {
      throw new Error('unable to decode private key');
    }
    return new Certificate(cert, key);
  }),
  getHostByName: d([S], () => ''),
  urlParse: d([S], ([s]) => urlParse(s)),
  urlJoin: d(['map[string]interface {}'], ([m]) => urlJoin(m ?? {})),
};
void ANY;

function urlParse(s: string): Record<string, unknown> {
  const bad = /%(?![0-9A-Fa-f]{2})(.{0,2})/.exec(s.split('#')[0]);
  if (bad) throw new Error(`unable to parse url: parse ${JSON.stringify(s)}: invalid URL escape ${JSON.stringify(bad[0])}`);
  const m = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:\/\/(?:([^@/?#]*)@)?([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(s);
  if (!m) throw new Error(`unable to parse url: ${s}`);
  const scheme = (m[1] ?? '').toLowerCase();
  let path = m[4] ?? '';
  let opaque = '';
  if (scheme && m[3] === undefined && path !== '' && !path.startsWith('/')) {
    opaque = path;
    path = '';
  }
  return {
    scheme,
    host: m[3] ?? '',
    hostname: (m[3] ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, ''),
    path: decodeURIComponentSafe(path),
    query: m[5] ?? '',
    opaque,
    fragment: decodeURIComponentSafe(m[6] ?? ''),
    userinfo: m[2] ?? '',
  };
}
function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
function urlJoin(m: Record<string, unknown>): string {
  const g = (k: string): string => (typeof m[k] === 'string' ? (m[k] as string) : '');
  let out = '';
  if (g('scheme')) out += g('scheme') + ':';
  if (g('opaque')) out += g('opaque');
  else {
    if (g('scheme') || g('host') || g('userinfo')) {
      if (g('host') || g('path') || g('userinfo')) out += '//';
      if (g('userinfo')) out += g('userinfo') + '@';
      out += g('host');
    }
    let p = g('path');
    if (p && p[0] !== '/' && g('host')) p = '/' + p;
    out += encodeURI(p).replace(/%25/g, '%');
  }
  if (g('query')) out += '?' + g('query');
  if (g('fragment')) out += '#' + encodeURIComponent(g('fragment'));
  return out;
}
