/** ANSI styles, or identity functions when colour is off. */
export interface Palette {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  magenta(s: string): string;
}

const CODES: Record<keyof Palette, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  magenta: [35, 39],
};

/** The styles: SGR escapes when `color` is on, plain text otherwise. */
export function palette(color: boolean): Palette {
  const style = (open: number, close: number) => (color ? (s: string) => `\u001b[${open}m${s}\u001b[${close}m` : (s: string) => s);
  return Object.fromEntries(Object.entries(CODES).map(([name, [open, close]]) => [name, style(open, close)])) as unknown as Palette;
}

/**
 * Whether to colour output written to `stream`: only on a terminal, never when `NO_COLOR` is set
 * (https://no-color.org) or `TERM=dumb`.
 */
export function useColor(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR) return false;
  return Boolean((stream as { isTTY?: boolean }).isTTY) && env.TERM !== "dumb";
}
