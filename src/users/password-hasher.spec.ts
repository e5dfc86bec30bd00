import { ConcurrencyGate, hashPassword, verifyPassword } from './password-hasher';

describe('ConcurrencyGate', () => {
  it('runs at most `limit` tasks at once, in arrival order, and frees a place when one fails', async () => {
    const gate = new ConcurrencyGate(2);
    const started: number[] = [];
    const release: Array<() => void> = [];
    let peak = 0;
    const task = (n: number) =>
      gate.run(async () => {
        started.push(n);
        peak = Math.max(peak, gate.active);
        await new Promise<void>((resolve) => release.push(resolve));
        if (n === 1) throw new Error('task 1 fails');
        return n;
      });
    const results = [1, 2, 3, 4].map((n) => task(n).catch((e: Error) => e.message));
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([1, 2]);
    release[0]!(); // task 1 fails: its place goes to task 3
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([1, 2, 3]);
    release[1]!();
    release[2]!();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([1, 2, 3, 4]);
    release[3]!();
    expect(await Promise.all(results)).toEqual(['task 1 fails', 2, 3, 4]);
    expect(peak).toBe(2);
    expect(gate.active).toBe(0);
  });
});

describe('password hashing', () => {
  it('stores argon2id with m=19 MiB, t=2, p=1 and verifies only the right password', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(await verifyPassword(hash, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(hash, 'correct horse batterY')).toBe(false);
    expect(await verifyPassword('not a hash', 'x')).toBe(false);
  });
});
