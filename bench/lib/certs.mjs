// A throw-away CA and a server certificate for 127.0.0.1/localhost, made at run time. Keys come from
// node:crypto (native, milliseconds); node-forge only builds and signs the X.509 certificates.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';

function rsaKeys() {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  return {
    publicKey: forge.pki.publicKeyFromPem(publicKey),
    privateKey: forge.pki.privateKeyFromPem(privateKey),
    privateKeyPem: privateKey,
  };
}

function baseCertificate(publicKey, days) {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  // A positive serial in minimal DER: the first byte 0x01. ('0' + random hex made the first byte
  // 0x00, and when the random part also began with 0x00 the certificate held a padded INTEGER that
  // OpenSSL refuses: 'illegal padding', a bench that failed to start about once in 256.)
  cert.serialNumber = '01' + randomBytes(15).toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + days * 86_400_000);
  return cert;
}

/** Writes ca.pem, receiver-key.pem and receiver-cert.pem into `dir`; returns their paths. */
export function writeReceiverCertificates(dir) {
  const ca = rsaKeys();
  const caCert = baseCertificate(ca.publicKey, 2);
  const caName = [{ name: 'commonName', value: 'partner-integration-service bench CA' }];
  caCert.setSubject(caName);
  caCert.setIssuer(caName);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  caCert.sign(ca.privateKey, forge.md.sha256.create());

  const server = rsaKeys();
  const cert = baseCertificate(server.publicKey, 1);
  cert.setSubject([{ name: 'commonName', value: 'localhost' }]);
  cert.setIssuer(caName);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
      ],
    },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(ca.privateKey, forge.md.sha256.create());

  const paths = {
    ca: join(dir, 'ca.pem'),
    key: join(dir, 'receiver-key.pem'),
    cert: join(dir, 'receiver-cert.pem'),
  };
  writeFileSync(paths.ca, forge.pki.certificateToPem(caCert));
  writeFileSync(paths.key, server.privateKeyPem, { mode: 0o600 });
  writeFileSync(paths.cert, forge.pki.certificateToPem(cert));
  return paths;
}
