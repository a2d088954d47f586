/** Small helpers the text formats share: tokens, numbers, and how numbers are written back. */

import { InputError } from '../errors.js';

/** The whitespace-separated tokens of a line. */
export function tokens(line: string): string[] {
  const trimmed = line.trim();
  return trimmed === '' ? [] : trimmed.split(/\s+/);
}

/** `token` as a finite number, or an InputError naming the file, line and what was expected. */
export function finiteNumber(token: string | undefined, file: string, line: number, what: string): number {
  const value = token === undefined || token === '' ? Number.NaN : Number(token);
  if (!Number.isFinite(value)) {
    throw new InputError(
      file,
      `line ${line}`,
      token === undefined ? `${what} is missing` : `${what} is not a finite number: ${JSON.stringify(token)}`,
    );
  }
  return value;
}

/**
 * A number as text that reads back as the same float64 (JavaScript's shortest
 * round-trip form), with -0 written as 0.
 */
export function numberText(value: number): string {
  return String(value + 0);
}
