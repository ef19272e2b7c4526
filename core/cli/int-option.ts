import { InvalidArgumentError } from "commander";

/**
 * A commander argument parser for a positive whole number (`--max 5`). Anything else (`abc`, `1.5`,
 * `0`, `-2`) throws commander's InvalidArgumentError naming the option, which the CLI reports as a
 * usage error (exit 2).
 */
export function positiveIntOption(flag: string): (value: string) => number {
  return (value: string) => {
    const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError(`${flag} needs a positive integer, got "${value}"`);
    return n;
  };
}
