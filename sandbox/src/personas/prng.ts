/**
 * A small seeded pseudo-random generator. Every synthetic value in the sandbox comes from one of
 * these, so the same seed always yields the same bank data.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** Float in [min, max). */
  float(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** `count` distinct items in random order (all of them when count exceeds the list). */
  sample<T>(items: readonly T[], count: number): T[];
  digits(length: number): string;
  hex(length: number): string;
  /** An independent stream, so adding draws in one place does not shift the others. */
  fork(label: string): Rng;
}

/** 32-bit hash of a string (cyrb53 folded to 32 bits). */
export function hashString(input: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < input.length; i += 1) {
    const ch = input.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h1 ^ h2) >>> 0;
}

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function createRng(seed: string): Rng {
  const next = mulberry32(hashString(seed));
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => {
    if (items.length === 0) throw new Error('cannot pick from an empty list');
    return items[int(0, items.length - 1)] as T;
  };
  return {
    next,
    int,
    float: (min, max) => min + next() * (max - min),
    chance: (probability) => next() < probability,
    pick,
    sample: <T>(items: readonly T[], count: number): T[] => {
      const pool = [...items];
      const out: T[] = [];
      while (out.length < count && pool.length > 0) {
        const [item] = pool.splice(int(0, pool.length - 1), 1);
        out.push(item as T);
      }
      return out;
    },
    digits: (length) => {
      let out = '';
      for (let i = 0; i < length; i += 1) out += String(int(0, 9));
      return out;
    },
    hex: (length) => {
      let out = '';
      for (let i = 0; i < length; i += 1) out += int(0, 15).toString(16);
      return out;
    },
    fork: (label) => createRng(`${seed}/${label}`),
  };
}

/** A 24-hex-digit identifier (the shape of the provider's object ids) derived from a seed. */
export function seededId(seed: string): string {
  return createRng(`id:${seed}`).hex(24);
}
