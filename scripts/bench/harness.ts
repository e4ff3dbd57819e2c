/** Interleaved A/B(/C…) runs: every iteration runs each variant once, in a rotating order. */
import { log } from './stats';

export interface Variant {
  readonly name: string;
  /** One run; returns the measured milliseconds (the variant decides what is timed). */
  run(): Promise<number>;
}

/**
 * Runs `warmup + runs` iterations. Iteration i runs the variants rotated by i (A B, B A, … for
 * two), so neither side always goes first after the other's clean-up. Warm-up iterations are
 * not counted.
 * @returns the counted samples per variant name
 */
export async function interleave(label: string, variants: readonly Variant[], runs: number, warmup: number): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = Object.fromEntries(variants.map((v) => [v.name, [] as number[]]));
  const total = warmup + runs;
  for (let i = 0; i < total; i++) {
    const k = variants.length;
    const order = variants.map((_, j) => variants[(j + i) % k]!);
    for (const v of order) {
      const ms = await v.run();
      if (i >= warmup) out[v.name]!.push(ms);
    }
    if ((i + 1) % 4 === 0 || i + 1 === total) log(`${label}: ${i + 1}/${total} iterations (${warmup} warm-up)`);
  }
  return out;
}
