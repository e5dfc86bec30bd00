import { BodyBudget, bodyReservation } from './body-budget';

describe('BodyBudget', () => {
  it('admits bodies up to the budget and refuses the one that would go past it', () => {
    const budget = new BodyBudget(100);
    expect(budget.tryReserve(60)).toBe(true);
    expect(budget.tryReserve(40)).toBe(true);
    expect(budget.inUse).toBe(100);
    expect(budget.tryReserve(1)).toBe(false);
    expect(budget.inUse).toBe(100);
  });

  it('admits again once a reservation is given back', () => {
    const budget = new BodyBudget(100);
    expect(budget.tryReserve(100)).toBe(true);
    expect(budget.tryReserve(10)).toBe(false);
    budget.release(100);
    expect(budget.inUse).toBe(0);
    expect(budget.tryReserve(10)).toBe(true);
  });

  it('always admits an empty body, even when full', () => {
    const budget = new BodyBudget(10);
    expect(budget.tryReserve(10)).toBe(true);
    expect(budget.tryReserve(0)).toBe(true);
  });
});

describe('bodyReservation', () => {
  const LIMIT = 1000;

  it.each<[Record<string, string>, number]>([
    [{}, 0],
    [{ 'content-length': '0' }, 0],
    [{ 'content-length': '250' }, 250],
    [{ 'content-length': '1000' }, 1000],
    // Over the limit: Fastify refuses it with 413 before reading a byte.
    [{ 'content-length': '1001' }, 0],
    [{ 'content-length': 'abc' }, 0],
    // Chunked: its length is not known, so the most the parser accepts.
    [{ 'transfer-encoding': 'chunked' }, LIMIT],
  ])('%j reserves %d bytes', (headers, expected) => {
    expect(bodyReservation(headers, LIMIT)).toBe(expected);
  });
});
