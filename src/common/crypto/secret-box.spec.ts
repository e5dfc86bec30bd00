import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = SecretBox.withKey(randomBytes(32));

  it('round-trips a value and never stores it in clear', () => {
    const sealed = box.encrypt('Bearer s3cr3t-value');
    expect(sealed).not.toContain('s3cr3t');
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(box.decrypt(sealed)).toBe('Bearer s3cr3t-value');
  });

  it('uses a fresh IV each time', () => {
    expect(box.encrypt('same')).not.toBe(box.encrypt('same'));
  });

  it('refuses a tampered value or another key', () => {
    const sealed = box.encrypt('value');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('other').toString('base64url');
    expect(() => box.decrypt(parts.join('.'))).toThrow();
    expect(() => SecretBox.withKey(randomBytes(32)).decrypt(sealed)).toThrow();
  });
});
