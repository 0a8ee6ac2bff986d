/**
 * SipHash-2-4 (Aumasson and Bernstein, 2012) with a 64-bit output, on BigInt: Task Bench draws
 * its random dependencies (random_nearest) as siphash(input, key 1..15,0) / 2^64, so Locus's
 * copy of its patterns needs the same function bit for bit. Not on a hot path (graph
 * generation only). Cost: O(input bytes).
 */

const MASK = (1n << 64n) - 1n;
const rotl = (x: bigint, b: bigint): bigint => ((x << b) | (x >> (64n - b))) & MASK;

/** Little-endian 64-bit word of `bytes` at `i`. */
function word(bytes: Uint8Array, i: number): bigint {
  let v = 0n;
  for (let k = 7; k >= 0; k--) v = (v << 8n) | BigInt(bytes[i + k]!);
  return v;
}

/** SipHash-2-4 of `input` under the 16-byte `key`, as an unsigned 64-bit BigInt. */
export function siphash24(input: Uint8Array, key: Uint8Array): bigint {
  const k0 = word(key, 0);
  const k1 = word(key, 8);
  let v0 = 0x736f6d6570736575n ^ k0;
  let v1 = 0x646f72616e646f6dn ^ k1;
  let v2 = 0x6c7967656e657261n ^ k0;
  let v3 = 0x7465646279746573n ^ k1;
  const round = (): void => {
    v0 = (v0 + v1) & MASK;
    v1 = rotl(v1, 13n) ^ v0;
    v0 = rotl(v0, 32n);
    v2 = (v2 + v3) & MASK;
    v3 = rotl(v3, 16n) ^ v2;
    v0 = (v0 + v3) & MASK;
    v3 = rotl(v3, 21n) ^ v0;
    v2 = (v2 + v1) & MASK;
    v1 = rotl(v1, 17n) ^ v2;
    v2 = rotl(v2, 32n);
  };
  const n = input.length;
  const whole = n - (n % 8);
  for (let i = 0; i < whole; i += 8) {
    const m = word(input, i);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  let last = BigInt(n & 0xff) << 56n;
  for (let k = n - whole - 1; k >= 0; k--) last |= BigInt(input[whole + k]!) << BigInt(8 * k);
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xffn;
  for (let r = 0; r < 4; r++) round();
  return (v0 ^ v1 ^ v2 ^ v3) & MASK;
}
