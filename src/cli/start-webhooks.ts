/**
 * The operator's WebhookPort for `start`: the admission server (server/admission-server.ts) with the
 * certificate of `--admission-server-certs-dir` (`tls.crt`, `tls.key`, and `ca.crt` as the CA bundle
 * when present) or, without one, a certificate made at start; and the registration of its webhooks
 * (kube/webhook-registration.ts) through the Service flags of shell-operator, or through a URL:
 * `--admission-server-url`, and on the sandbox the server's own address. The client CAs of
 * `--validating-webhook-client-ca` and `--conversion-webhook-client-ca` are read at start.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { KubeConfig } from '../kube/kube-config.js';
import { WebhookRegistrar, type WebhookEndpoint } from '../kube/webhook-registration.js';
import type { WebhookPort } from '../operator/ports.js';
import { generateTls } from '../sandbox/tls.js';
import { AdmissionServer } from '../server/admission-server.js';
import { UserError, errorMessage } from '../util/errors.js';
import { parsePort } from './env.js';
import type { StartOptions } from './start.js';

export type WebhookFlags = Pick<
  StartOptions,
  | 'admissionServerListenPort'
  | 'admissionServerCertsDir'
  | 'admissionServerUrl'
  | 'validatingWebhookConfigurationName'
  | 'validatingWebhookServiceName'
  | 'conversionWebhookServiceName'
  | 'validatingWebhookClientCa'
  | 'conversionWebhookClientCa'
>;

interface Certificate {
  cert: string;
  key: string;
  caBundle: string;
}

function readCerts(dir: string): Certificate {
  const read = (file: string) => {
    try {
      return readFileSync(join(dir, file), 'utf8');
    } catch (e) {
      throw new UserError(`--admission-server-certs-dir ${dir}: cannot read ${file}: ${errorMessage(e)}`);
    }
  };
  const cert = read('tls.crt');
  return { cert, key: read('tls.key'), caBundle: existsSync(join(dir, 'ca.crt')) ? read('ca.crt') : cert };
}

/** The certificates of the PEM files of a client CA flag; a file that cannot be read or holds none stops the start. */
function readClientCas(flag: string, files: readonly string[]): X509Certificate[] {
  return files.flatMap((file) => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new UserError(`${flag} ${file}: cannot read the client CA: ${errorMessage(e)}`);
    }
    const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    if (!blocks.length) throw new UserError(`${flag} ${file}: no PEM certificate in the client CA file`);
    return blocks.map((pem, i) => {
      try {
        return new X509Certificate(pem);
      } catch (e) {
        throw new UserError(`${flag} ${file}: certificate ${i + 1} of the client CA file does not parse: ${errorMessage(e)}`);
      }
    });
  });
}

export function webhookPort(f: WebhookFlags, o: { kc: KubeConfig; namespace: string; sandbox: boolean; log: Logger }): WebhookPort {
  // on the sandbox any free port: the webhooks are registered with the server's own address
  const port = parsePort(f.admissionServerListenPort ?? (o.sandbox ? '0' : '9651'), '--admission-server-listen-port');
  const host = o.sandbox ? '127.0.0.1' : '0.0.0.0';
  const clientCas = {
    admission: readClientCas('--validating-webhook-client-ca', f.validatingWebhookClientCa),
    conversion: readClientCas('--conversion-webhook-client-ca', f.conversionWebhookClientCa),
  };
  let server: AdmissionServer | undefined;
  let registrar: WebhookRegistrar | undefined;
  return {
    serve: async (handlers) => {
      const services = [f.validatingWebhookServiceName, f.conversionWebhookServiceName].flatMap((s) => [s, `${s}.${o.namespace}`, `${s}.${o.namespace}.svc`]);
      let certs: Certificate;
      if (f.admissionServerCertsDir) certs = readCerts(f.admissionServerCertsDir);
      else {
        const made = generateTls(services);
        certs = { cert: made.serverCert, key: made.serverKey, caBundle: made.caCert };
        if (!o.sandbox) o.log.warn('admission server: no --admission-server-certs-dir: serving a certificate made at start (its CA goes into the webhook configurations)');
      }
      server = new AdmissionServer({ host, port, cert: certs.cert, key: certs.key, handlers, clientCas, onBadRequest: (path, problem) => o.log.error({ path, error: problem }, 'admission server: bad request') });
      await server.start();
      const address = server.address;
      o.log.info({ address: `https://${host}:${address.port}` }, 'admission server listening');
      const url = f.admissionServerUrl || (o.sandbox ? `https://127.0.0.1:${address.port}` : '');
      const endpoint: WebhookEndpoint = url
        ? { kind: 'url', base: url, caBundle: certs.caBundle }
        : { kind: 'service', namespace: o.namespace, admissionService: f.validatingWebhookServiceName, conversionService: f.conversionWebhookServiceName, caBundle: certs.caBundle };
      registrar = new WebhookRegistrar({ kc: o.kc, configurationName: f.validatingWebhookConfigurationName, endpoint });
    },
    register: async (w, recheck) => {
      if (!registrar) throw new Error('webhooks registered before the admission server started');
      return registrar.register(w, recheck);
    },
    stop: async () => {
      await server?.stop();
    },
  };
}
