/**
 * The fuzz suite's shared runner: seeded fast-check properties that run in a
 * worker thread under a watchdog, so that a case that never returns fails the
 * test and names itself instead of hanging the whole run.
 *
 * How a fuzz file is laid out:
 *
 * - `something.cases.ts` exports `suites`, a record of functions that each
 *   call {@link fuzz} or {@link example} once or more (synchronously), or
 *   async functions that await {@link fuzzAsync}. They run in the worker.
 * - `something.test.ts` calls {@link runSuite} per suite inside an `it`, with
 *   {@link SUITE_TIMEOUT} as the test's timeout.
 *
 * Runs and seeds:
 *
 * - CI runs each property `ciRuns` times (the caller sizes it so the whole
 *   fuzz folder takes about two minutes on the 2-core machine), from a seed
 *   fixed by the property's name: every CI run checks the same cases.
 * - `FUZZ_RUNS=n` runs every property n times instead (the long local mode,
 *   `npm run fuzz` sets it), `FUZZ_SEED=s` starts from another seed, and
 *   `FUZZ_SEED=s FUZZ_PATH=p` replays the one case a failure names; a
 *   property over command sequences ({@link commandSequences}) needs
 *   `FUZZ_REPLAY=r` too, which the failure's replay line gives.
 *
 * The watchdog is a safety net, not a timing assertion: every case is sized
 * so that its work is bounded (small point sets, bounded sizes), and only a
 * case that makes no progress for {@link stallSeconds} seconds (a hang) fails.
 *
 * @module
 */

import fc from 'fast-check';

/** Test timeout for an `it` that calls {@link runSuite}: generous, the watchdog fails a hang well before it. */
export const SUITE_TIMEOUT = 600_000;

function envNumber(name: string, least = 0): number | undefined {
  const text = typeof process === 'undefined' ? undefined : process.env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < least)
    throw new Error(`${name} must be an integer >= ${least}, got ${text}`);
  return value;
}

/** Cases per property: FUZZ_RUNS when set (the long local mode), else `ciRuns`. */
export function fuzzRuns(ciRuns: number): number {
  return envNumber('FUZZ_RUNS') ?? ciRuns;
}

/** Seconds without a finished case after which {@link runSuite} calls the suite hung: FUZZ_STALL, default 60. */
export function stallSeconds(): number {
  return envNumber('FUZZ_STALL') ?? 60;
}

/**
 * `fc.commands(commands, constraints)` with FUZZ_REPLAY as its replay path:
 * fast-check replays a shrunk command sequence from the seed and path only
 * together with the commands' own replay path (the `replayPath` comment of
 * the counterexample), which {@link fuzz}'s replay line prints.
 */
export function commandSequences<C>(
  commands: fc.Arbitrary<C>[],
  constraints: { maxCommands: number; size: fc.SizeForArbitrary },
): fc.Arbitrary<Iterable<C>> {
  const replayPath = typeof process === 'undefined' ? undefined : process.env.FUZZ_REPLAY || undefined;
  // (C is a Command or an AsyncCommand, which fc.commands takes through two overloads.)
  const arbitraries = commands as unknown as fc.Arbitrary<fc.Command<object, unknown>>[];
  return fc.commands(arbitraries, { ...constraints, replayPath }) as unknown as fc.Arbitrary<Iterable<C>>;
}

/** FNV-1a of a name: the fixed seed of a property in CI. */
function seedOf(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** The seed of a property: FUZZ_SEED when set, else one fixed by its name. */
export function fuzzSeed(name: string): number {
  // Seeds are 32-bit signed (seedOf's h | 0), so a replayed one may be negative.
  return envNumber('FUZZ_SEED', -(2 ** 31)) ?? seedOf(name);
}

/** Where progress goes: the worker's parent port when running under {@link runSuite}, else nowhere. */
let report: ((message: unknown) => void) | undefined;

/** Called by the worker entry (run-suite.ts) with the function that posts to the test's thread. */
export function setReporter(post: (message: unknown) => void): void {
  report = post;
}

/** Shortens a case's description for a progress message. */
function brief(value: unknown): string {
  const text = fc.stringify(value);
  return text.length > 2000 ? `${text.slice(0, 2000)}... (${text.length} characters)` : text;
}

/**
 * Checks `check` on `fuzzRuns(ciRuns)` values of `arbitrary`, seeded by
 * `fuzzSeed(name)`. `check` throws on a wrong answer (vitest's expect does).
 * Each case is announced to the watchdog before it runs. A failure is shrunk
 * and rethrown with the property's name, the seed and path to replay it, and
 * the smallest failing case.
 */
export function fuzz<T>(name: string, arbitrary: fc.Arbitrary<T>, check: (value: T) => void, ciRuns: number): void {
  const { seed, path, numRuns, announce } = settings(name, ciRuns);
  const property = fc.property(arbitrary, (value) => {
    announce(value);
    check(value);
  });
  finish(name, fc.check(property, { seed, numRuns, path, endOnFailure: false }));
}

/** {@link fuzz} for a `check` that returns a promise (a command line run in-process, a file written). */
export async function fuzzAsync<T>(
  name: string,
  arbitrary: fc.Arbitrary<T>,
  check: (value: T) => Promise<void>,
  ciRuns: number,
): Promise<void> {
  const { seed, path, numRuns, announce } = settings(name, ciRuns);
  const property = fc.asyncProperty(arbitrary, async (value) => {
    announce(value);
    await check(value);
  });
  finish(name, await fc.check(property, { seed, numRuns, path, endOnFailure: false }));
}

/** A property's seed, replay path and number of runs, and how its cases are announced to the watchdog. */
function settings(name: string, ciRuns: number) {
  const seed = fuzzSeed(name);
  const path = typeof process === 'undefined' ? undefined : process.env.FUZZ_PATH || undefined;
  let cases = 0;
  const announce = (value: unknown) => {
    cases++;
    report?.({ kind: 'case', name, index: cases, value: brief(value) });
  };
  return { seed, path, numRuns: fuzzRuns(ciRuns), announce };
}

/** Rethrows a failed check's details as one readable error, or reports the property done. */
function finish<T>(name: string, details: fc.RunDetails<[T]>): void {
  if (details.failed) {
    const counterexample = details.counterexample === null ? '(none)' : brief(details.counterexample[0]);
    const cause =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    // A command sequence's own replay path (see commandSequences), from fast-check's printout of it.
    const whole = details.counterexample === null ? '' : fc.stringify(details.counterexample[0]);
    const commands = /\/\*replayPath="([^"]*)"\*\//.exec(whole);
    const replay = commands === null ? '' : ` FUZZ_REPLAY='${commands[1]}'`;
    throw new Error(
      `fuzz property "${name}" failed after ${details.numRuns} case(s); replay with FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath}${replay}\n` +
        `case: ${counterexample}\n${cause}`,
    );
  }
  report?.({ kind: 'done', name, runs: details.numRuns });
}

/**
 * Runs one fixed case (a regression example) under the watchdog: announced
 * by `name` first, so a hang names it. `check` throws on a wrong answer.
 */
export function example(name: string, check: () => void): void {
  report?.({ kind: 'case', name, index: 1, value: '(example)' });
  check();
  report?.({ kind: 'done', name, runs: 1 });
}

/** A message from the worker. */
interface Progress {
  kind: 'case' | 'done' | 'finished' | 'failed';
  name?: string;
  index?: number;
  value?: string;
  runs?: number;
  error?: string;
}

/**
 * Runs `suite` of the cases module at `module` (see the module notes) in a
 * worker thread, and resolves when every property in it passed. Rejects with
 * the failure of a property, or, when no case finishes for
 * `options.stallSeconds` (default {@link stallSeconds}) seconds, terminates
 * the worker and rejects naming the case that never returned.
 */
export async function runSuite(module: URL, suite: string, options: { stallSeconds?: number } = {}): Promise<void> {
  const { Worker } = await import('node:worker_threads');
  const { createRequire } = await import('node:module');
  const { existsSync } = await import('node:fs');
  const entry = new URL('./run-suite.ts', import.meta.url).href;
  let api = 'tsx/esm/api';
  const esm = createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  if (existsSync(esm)) api = new URL(`file://${esm}`).href;
  // Node 20 runs no --import hooks for a worker's entry: register tsx's loader, then import the entry.
  const code = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(code, { eval: true, workerData: { module: module.href, suite } });
  const stall = (options.stallSeconds ?? stallSeconds()) * 1000;
  return new Promise<void>((resolve, reject) => {
    let last = '(before the first case)';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (error?: Error) => {
      clearTimeout(timer);
      worker.removeAllListeners();
      void worker.terminate();
      if (error === undefined) resolve();
      else reject(error);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => settle(new Error(`fuzz suite "${suite}" made no progress for ${stall / 1000} s: hung in ${last}`)),
        stall,
      );
    };
    arm();
    worker.on('message', (message: Progress) => {
      if (message.kind === 'case') {
        last = `property "${message.name}" case ${message.index}: ${message.value}`;
        arm();
      } else if (message.kind === 'done') {
        arm();
      } else if (message.kind === 'finished') {
        settle();
      } else if (message.kind === 'failed') {
        settle(new Error(message.error));
      }
    });
    worker.on('error', (error: unknown) => settle(error instanceof Error ? error : new Error(String(error))));
    worker.on('exit', (code) => settle(new Error(`fuzz suite "${suite}" worker exited (code ${code}) in ${last}`)));
  });
}
