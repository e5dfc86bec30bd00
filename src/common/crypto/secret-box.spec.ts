import { randomBytes } from 'node:crypto';
import { SecretBox, UnreadableSecretError } from './secret-box';

describe('SecretBox', () => {
  const box = SecretBox.withKey(randomBytes(32));
  const place = 'subscriptions:1:header_value';

  it('round-trips a value in its place and never stores it in clear', () => {
    const sealed = box.seal('Bearer s3cr3t-value', place);
    expect(sealed).not.toContain('s3cr3t');
    expect(sealed.startsWith('v2.')).toBe(true);
    expect(box.open(sealed, place)).toBe('Bearer s3cr3t-value');
  });

  it('uses a fresh IV each time', () => {
    expect(box.seal('same', place)).not.toBe(box.seal('same', place));
  });

  it('refuses a tampered value, another key, or another place', () => {
    const sealed = box.seal('value', place);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('other').toString('base64url');
    expect(() => box.open(parts.join('.'), place)).toThrow(UnreadableSecretError);
    expect(() => SecretBox.withKey(randomBytes(32)).open(sealed, place)).toThrow(UnreadableSecretError);
    expect(() => box.open(sealed, 'subscriptions:2:header_value')).toThrow(UnreadableSecretError);
    expect(() => box.open(sealed, 'subscriptions:1:signing_secret')).toThrow(UnreadableSecretError);
  });

  it('opens a value sealed without a place (v1) only through openUnbound', () => {
    const unbound = box.sealUnbound('old');
    expect(unbound.startsWith('v1.')).toBe(true);
    expect(box.openUnbound(unbound)).toBe('old');
    expect(() => box.open(unbound, place)).toThrow(UnreadableSecretError);
    expect(() => box.openUnbound(box.seal('new', place))).toThrow(UnreadableSecretError);
  });
});
