import { createRng, seededId } from './prng';

describe('seeded random numbers', () => {
  it('when two generators share a seed, then they draw the same sequence', () => {
    const a = createRng('seed');
    const b = createRng('seed');
    expect(Array.from({ length: 20 }, () => a.next())).toEqual(Array.from({ length: 20 }, () => b.next()));
  });

  it('when seeds differ, then the sequences differ', () => {
    expect(createRng('one').digits(12)).not.toBe(createRng('two').digits(12));
  });

  it('when a stream is forked, then drawing from the fork leaves the parent sequence unchanged', () => {
    const plain = createRng('seed');
    const forked = createRng('seed');
    forked.fork('side').digits(50);
    expect(forked.next()).toBe(plain.next());
  });

  it('when integers are drawn, then they stay within the inclusive bounds', () => {
    const rng = createRng('bounds');
    const values = Array.from({ length: 500 }, () => rng.int(3, 7));
    expect(Math.min(...values)).toBe(3);
    expect(Math.max(...values)).toBe(7);
  });

  it('when an id is derived from a seed, then it is 24 hex digits and stable', () => {
    expect(seededId('x')).toMatch(/^[0-9a-f]{24}$/);
    expect(seededId('x')).toBe(seededId('x'));
  });
});
