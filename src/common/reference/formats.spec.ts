import { isCnpj, isCpf, ISO_DATE_TIME, PHONE_NUMBER } from './formats';
import { renderRole, UserRole } from './enums';

describe('reference formats', () => {
  it('accepts valid CPFs and rejects bad check digits, formatting and repeated digits', () => {
    expect(isCpf('52998224725')).toBe(true);
    expect(isCpf('11144477735')).toBe(true);
    expect(isCpf('52998224724')).toBe(false);
    expect(isCpf('529.982.247-25')).toBe(false);
    expect(isCpf('11111111111')).toBe(false);
    expect(isCpf('5299822472')).toBe(false);
    expect(isCpf(52998224725)).toBe(false);
  });

  it('accepts valid CNPJs and rejects bad check digits, formatting and repeated digits', () => {
    expect(isCnpj('11222333000181')).toBe(true);
    expect(isCnpj('11444777000161')).toBe(true);
    expect(isCnpj('11222333000182')).toBe(false);
    expect(isCnpj('11.222.333/0001-81')).toBe(false);
    expect(isCnpj('00000000000000')).toBe(false);
  });

  it('matches the date-time and phone formats', () => {
    expect(ISO_DATE_TIME.test(new Date().toISOString())).toBe(true);
    expect(ISO_DATE_TIME.test('2026-01-01T00:00:00Z')).toBe(false);
    expect(PHONE_NUMBER.test('11987654321')).toBe(true);
    expect(PHONE_NUMBER.test('(11) 98765-4321')).toBe(false);
  });

  it('renders roles for /auth/me, ROLE_CLIENT as ROLE_USER', () => {
    expect(renderRole(UserRole.ROLE_PARTNER)).toBe('[[ROLE_PARTNER]]');
    expect(renderRole(UserRole.ROLE_BRANCH)).toBe('[[ROLE_BRANCH]]');
    expect(renderRole(UserRole.ROLE_CLIENT)).toBe('[[ROLE_USER]]');
  });
});
