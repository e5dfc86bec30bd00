import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';

export interface KeyAndCert {
  key: string;
  cert: string;
}

export interface TestCa {
  /** PEM of the CA certificate: what the dispatcher is told to trust. */
  certPem: string;
  /** The CA certificate in a file, for NODE_EXTRA_CA_CERTS of child processes. */
  certFile: string;
  /** A server certificate for 127.0.0.1 and localhost, signed by the CA. */
  server: KeyAndCert;
  /** A self-signed certificate for the same names, which nobody trusts. */
  untrusted: KeyAndCert;
}

// RSA keys from node:crypto (native, fast); certificates from node-forge.
function keyPair(): { privatePem: string; keys: forge.pki.rsa.KeyPair } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return {
    privatePem,
    keys: {
      privateKey: forge.pki.privateKeyFromPem(privatePem) as forge.pki.rsa.PrivateKey,
      publicKey: forge.pki.publicKeyFromPem(publicPem) as forge.pki.rsa.PublicKey,
    },
  };
}

function certificate(
  subjectCn: string,
  publicKey: forge.pki.PublicKey,
  signer: { key: forge.pki.rsa.PrivateKey; cert?: forge.pki.Certificate },
  isCa: boolean,
  dnsNames = ['localhost'],
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = '01' + randomBytes(8).toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  const subject = [{ name: 'commonName', value: subjectCn }];
  cert.setSubject(subject);
  cert.setIssuer(signer.cert ? signer.cert.subject.attributes : subject);
  cert.setExtensions(
    isCa
      ? [
          { name: 'basicConstraints', cA: true, critical: true },
          { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
          { name: 'subjectKeyIdentifier' },
        ]
      : [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
          { name: 'extKeyUsage', serverAuth: true },
          {
            name: 'subjectAltName',
            altNames: [...dnsNames.map((value) => ({ type: 2, value })), { type: 7, ip: '127.0.0.1' }],
          },
        ],
  );
  cert.sign(signer.key, forge.md.sha256.create());
  return cert;
}

let cached: TestCa | undefined;
let caSigner: { key: forge.pki.rsa.PrivateKey; cert: forge.pki.Certificate } | undefined;

/** A server certificate for `name` (and 127.0.0.1), signed by this file's CA. */
export function serverCertificateFor(name: string): KeyAndCert {
  testCa();
  const server = keyPair();
  const cert = certificate(name, server.keys.publicKey, caSigner!, false, [name]);
  return { key: server.privatePem, cert: forge.pki.certificateToPem(cert) };
}

/** One CA per test file (generated at test time), with a server certificate it signed. */
export function testCa(): TestCa {
  if (cached) return cached;
  const ca = keyPair();
  const caCert = certificate('PIS Test CA', ca.keys.publicKey, { key: ca.keys.privateKey }, true);
  caSigner = { key: ca.keys.privateKey, cert: caCert };
  const server = keyPair();
  const serverCert = certificate(
    'localhost',
    server.keys.publicKey,
    { key: ca.keys.privateKey, cert: caCert },
    false,
  );
  const rogue = keyPair();
  const rogueCert = certificate('localhost', rogue.keys.publicKey, { key: rogue.keys.privateKey }, false);
  const certPem = forge.pki.certificateToPem(caCert);
  const certFile = join(mkdtempSync(join(tmpdir(), 'pis-test-ca-')), 'ca.pem');
  writeFileSync(certFile, certPem);
  cached = {
    certPem,
    certFile,
    server: { key: server.privatePem, cert: forge.pki.certificateToPem(serverCert) },
    untrusted: { key: rogue.privatePem, cert: forge.pki.certificateToPem(rogueCert) },
  };
  return cached;
}
