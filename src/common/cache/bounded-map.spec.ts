import { BoundedMap } from './bounded-map';

describe('BoundedMap', () => {
  it('holds at most `max` entries, starting over when a new key arrives at the limit', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    map.set('b', 3); // an existing key: no reset
    expect([...map]).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
    map.set('c', 4);
    expect([...map]).toEqual([['c', 4]]);
  });
});
