// The admission server with shell-operator's client CA flags: AdmissionReviews must come with a client
// certificate signed by a CA of --validating-webhook-client-ca, ConversionReviews with one of
// --conversion-webhook-client-ca; a kind without a CA asks for none, nor does /healthz. A CA file
// that cannot be read, or holds no certificate, stops the start naming the flag and the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { startArgs } from '../helpers/operator-process.js';
import { generateTls } from '../../src/sandbox/tls.js';
import { AdmissionServer } from '../../src/server/admission-server.js';

interface Client {
  cert: string;
  key: string;
}

function call(port: number, ca: string, method: string, path: string, client?: Client): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = method === 'POST' ? JSON.stringify({ request: { uid: 'u' } }) : '';
    const req = request({ host: '127.0.0.1', port, path, method, ca, agent: false, ...(client ?? {}), headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function serve(clientCas?: { admission: X509Certificate[]; conversion: X509Certificate[] }) {
  const tls = generateTls(['127.0.0.1']);
  const reply = async () => ({ status: 200, body: { response: { allowed: true } } });
  const server = new AdmissionServer({ host: '127.0.0.1', port: 0, cert: tls.serverCert, key: tls.serverKey, handlers: { admit: reply, convert: reply }, ...(clientCas ? { clientCas } : {}) });
  await server.start();
  return { server, port: server.address.port, ca: tls.caCert };
}

test('reviews of each kind need a client certificate of their own CAs; healthz and kinds without a CA need none', async (t) => {
  const one = generateTls([], { clientAuth: true });
  const two = generateTls([], { clientAuth: true });
  const client = (m: typeof one): Client => ({ cert: m.serverCert, key: m.serverKey });
  const { server, port, ca } = await serve({ admission: [new X509Certificate(one.caCert)], conversion: [new X509Certificate(two.caCert)] });
  t.after(() => server.stop());
  assert.equal(await call(port, ca, 'POST', '/hooks/policy'), 403);
  assert.equal(await call(port, ca, 'POST', '/hooks/policy', client(two)), 403);
  assert.equal(await call(port, ca, 'POST', '/hooks/policy', client(one)), 200);
  assert.equal(await call(port, ca, 'POST', '/crontabs.stable.example.com'), 403);
  assert.equal(await call(port, ca, 'POST', '/crontabs.stable.example.com', client(one)), 403);
  assert.equal(await call(port, ca, 'POST', '/crontabs.stable.example.com', client(two)), 200);
  assert.equal(await call(port, ca, 'GET', '/healthz'), 200);

  // only the admission webhooks guarded: conversions need no certificate
  const half = await serve({ admission: [new X509Certificate(one.caCert)], conversion: [] });
  t.after(() => half.server.stop());
  assert.equal(await call(half.port, half.ca, 'POST', '/crontabs.stable.example.com'), 200);
  assert.equal(await call(half.port, half.ca, 'POST', '/hooks/policy'), 403);
});

test('a client CA file that cannot be read or holds no certificate stops the start naming the flag and the file', () => {
  const root = makeTree({ 'global-hooks/.keep': '', 'modules/.keep': '', 'not-a-ca.pem': 'hello\n' });
  const start = (extra: string[], env: NodeJS.ProcessEnv = {}) => {
    const r = spawnSync(process.execPath, startArgs(root, extra), { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    return r;
  };
  const missing = start(['--validating-webhook-client-ca', join(root, 'missing.pem')]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /--validating-webhook-client-ca .*missing\.pem: cannot read the client CA: ENOENT/);
  // the environment's list (comma-separated) is read as shell-operator reads it
  const empty = start([], { CONVERSION_WEBHOOK_CLIENT_CA: `${join(root, 'not-a-ca.pem')}` });
  assert.equal(empty.status, 1);
  assert.match(empty.stderr, /--conversion-webhook-client-ca .*not-a-ca\.pem: no PEM certificate in the client CA file/);
});
