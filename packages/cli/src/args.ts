/**
 * The command line's words, read by a parser of our own rather than Node's
 * parseArgs: an option that takes a value takes the next word whatever it
 * looks like (`--tolerance -1` is the value -1, then refused as negative,
 * where parseArgs called it "ambiguous"), an unknown option gets a
 * did-you-mean, and every message is ours. An option of one value given twice
 * (`-t 0.01 --tolerance 0.1`, or the same one repeated) is an error naming
 * both, where parseArgs let the last one win: of two distances, one is a
 * mistake. Only --attribute-tolerance and --ignore repeat. No other module is loaded here,
 * so the main thread (cli.ts) can read the output's folder without loading
 * the formats.
 *
 * @module
 */

import { UsageError } from './errors.js';

/** What each option is: a flag, or one that takes a value (repeatable or not). */
const OPTIONS = {
  output: { value: true, short: 'o' },
  tolerance: { value: true, short: 't' },
  radius: { value: true, short: 'r' },
  'attribute-tolerance': { value: true, repeat: true },
  ignore: { value: true, repeat: true },
  mean: {},
  force: {},
  decompress: {},
  json: {},
  quiet: { short: 'q' },
  debug: {},
  help: { short: 'h' },
  version: {},
} as const satisfies Record<string, { value?: true; repeat?: true; short?: string }>;

type Spec = typeof OPTIONS;
type Name = keyof Spec;
type ValueName = { [K in Name]: Spec[K] extends { value: true } ? K : never }[Name];
type RepeatName = { [K in Name]: Spec[K] extends { repeat: true } ? K : never }[Name];

/** The command line read: each option's value(s) or whether a flag was given, and the other words. */
export interface Parsed {
  values: { [K in ValueName]?: K extends RepeatName ? string[] : string } & {
    [K in Exclude<Name, ValueName>]?: boolean;
  };
  positionals: string[];
}

const SHORT = new Map<string, Name>(
  Object.entries(OPTIONS).flatMap(([name, spec]) => ('short' in spec ? [[spec.short, name as Name]] : [])),
);

/** Edit distance between two short words (option names). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/** The option a mistyped name most likely meant: the one it abbreviates, else the nearest within 2 edits. */
export function suggestion(name: string): string | undefined {
  const names = Object.keys(OPTIONS);
  const prefixed = names.filter((known) => known.startsWith(name));
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = 3;
  for (const known of names) {
    const d = editDistance(name, known);
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best;
}

function unknown(word: string, name: string): UsageError {
  const near = suggestion(name);
  return new UsageError(`unknown option ${word}${near === undefined ? '' : `; did you mean --${near}?`}`);
}

/** Reads `args` (without node and the script) into options and positionals; throws UsageError. */
export function parseCommandLine(args: readonly string[]): Parsed {
  const values: Record<string, string | string[] | boolean> = {};
  const positionals: string[] = [];
  // How each single-valued option was first given, for the message when it comes again.
  const first = new Map<Name, string>();
  for (let k = 0; k < args.length; k++) {
    const word = args[k]!;
    let name: Name;
    let inline: string | undefined;
    if (word === '--') {
      positionals.push(...args.slice(k + 1));
      break;
    }
    if (word.startsWith('--')) {
      const equals = word.indexOf('=');
      const given = equals < 0 ? word.slice(2) : word.slice(2, equals);
      if (!Object.hasOwn(OPTIONS, given)) throw unknown(word, given);
      name = given as Name;
      inline = equals < 0 ? undefined : word.slice(equals + 1);
    } else if (word.startsWith('-') && word.length > 1) {
      const short = SHORT.get(word[1]!);
      if (short === undefined) throw unknown(word, word.slice(1));
      name = short;
      // -t0.01 as well as -t 0.01; flags stand alone.
      if (word.length > 2) inline = word.slice(2);
    } else {
      positionals.push(word);
      continue;
    }
    const spec = OPTIONS[name] as { value?: true; repeat?: true };
    const label = word.startsWith('--') ? `--${name}` : word.slice(0, 2);
    if (!spec.value) {
      if (inline !== undefined) throw new UsageError(`${label} takes no value, got ${JSON.stringify(word)}`);
      values[name] = true;
      continue;
    }
    // The next word is the value whatever it looks like (a negative number included): checked where it is used.
    const value = inline ?? args[++k];
    if (value === undefined) throw new UsageError(`${label} needs a value`);
    const given = `${label} ${value}`;
    if (spec.repeat) values[name] = [...((values[name] as string[] | undefined) ?? []), value];
    else if (first.has(name)) {
      // Not the last one wins: two distances (-t 0.01 ... --tolerance 0.1) are a mistake to point at, not a pick.
      throw new UsageError(`--${name} is given twice (${first.get(name)}, then ${given}): give it once`);
    } else {
      values[name] = value;
      first.set(name, given);
    }
  }
  return { values, positionals } as Parsed;
}

/** A plain decimal number: digits, an optional fraction and exponent (no hex, binary, Infinity or blanks). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The distance an option gives (`--tolerance`, `--radius`, an attribute's
 * tolerance): a finite decimal number >= 0.
 *
 * @param label how the message names it, e.g. `--tolerance`.
 */
export function readDistance(label: string, text: string): number {
  if (!DECIMAL.test(text)) {
    throw new UsageError(`${label} must be a decimal number >= 0 (e.g. 0.001 or 1e-4), got ${JSON.stringify(text)}`);
  }
  const value = Number(text);
  if (!Number.isFinite(value)) throw new UsageError(`${label} must be finite, got ${text}`);
  if (value < 0) throw new UsageError(`${label} must be >= 0, got ${text}`);
  return value;
}
