/**
 * A Bloom filter of sessionIds: answers "certainly never added" or "maybe added" in a fixed
 * amount of memory, however many ids go in. Checking a file for repeated ids with it costs a
 * few hashes per line and no per-id memory; only when it says "maybe" does an exact (and
 * slower) check have to run. The chance of a false "maybe" stays tiny while the filter has
 * more than ~30 bits per id.
 */
export class SessionIdFilter {
  private readonly words: Uint32Array;
  /** How many blocks of 512 bits (16 words) the filter has. */
  private readonly blocks: number;

  /** `bits` is rounded up to whole blocks, between 2^16 and 2^27 (16 MiB). */
  constructor(bits: number) {
    this.blocks = Math.ceil(Math.min(MAX_BITS, Math.max(2 ** 16, bits)) / 512);
    this.words = new Uint32Array(this.blocks * 16);
  }

  /** A filter sized for the ids a file of `fileBytes` can hold: 32 bits for each ~60 bytes, the shortest a session line can be. */
  static forFile(fileBytes: number): SessionIdFilter {
    return new SessionIdFilter((fileBytes / 60) * 32);
  }

  /** Adds `id`; returns whether it may have been added before (false: certainly not). */
  add(id: string): boolean {
    return this.probe(id, true);
  }

  /** Whether `id` may have been added (false: certainly not). */
  has(id: string): boolean {
    return this.probe(id, false);
  }

  private probe(id: string, set: boolean): boolean {
    // Two 32-bit hashes of the id (FNV-1a and a multiplicative one, each finished by murmur3's
    // mixer). The first picks a 512-bit block: one cache line, so one memory fetch per id. The
    // seven bits within it are 9-bit slices of 64 bits drawn from both hashes; fewer (double
    // hashing modulo 512 has only 18 bits) would make distinct ids collide by the birthday
    // paradox, dozens per million.
    let h1 = 0x811c9dc5;
    let h2 = 0x01000193;
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    }
    h1 = mix(h1);
    h2 = mix(h2);
    const h3 = mix(h2 ^ Math.imul(h1, 0x9e3779b1));
    const base = ((h1 >>> 0) % this.blocks) << 4;
    const words = this.words;
    let present = true;
    for (let k = 0; k < HASHES; k++) {
      const bit = (k < 3 ? h2 >>> (9 * k) : k < 6 ? h3 >>> (9 * (k - 3)) : (h2 >>> 27) | ((h3 >>> 27) << 5)) & 511;
      const word = base + (bit >>> 5);
      const flag = 1 << (bit & 31);
      if ((words[word]! & flag) === 0) {
        present = false;
        if (!set) return false;
        words[word] = words[word]! | flag;
      }
    }
    return present;
  }
}

const HASHES = 7;

/**
 * 16 MiB: ~2.5 million ids at 50 bits each. Past that, false "maybe"s grow (~1 in 500 ids at
 * 10 million) and cost a second read of the file, not memory.
 */
const MAX_BITS = 2 ** 27;

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
