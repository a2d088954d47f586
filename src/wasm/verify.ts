/**
 * Mode 'verify' (see setKernelMode): the comparisons of a call's answer on
 * the kernels with the JavaScript path's, and the Error that reports the
 * first difference. Each call site answers on both paths (see verifying and
 * onJavaScript in kernels.ts) and hands both answers here.
 *
 * @module
 */

/** The Error mode 'verify' throws when the kernels' answer to `what` differs from the JavaScript path's. */
export function verifyError(what: string, detail: string): Error {
  return new Error(
    `spatialhash: kernel mode 'verify': ${what} differs between the WebAssembly kernels and the JavaScript path: ${detail}. Please report it, with the data if you can; setKernelMode('javascript') gives the JavaScript path's answer meanwhile`,
  );
}

/** Numbers a comparison can read by index: typed arrays and plain arrays. */
type Numbers = ArrayLike<number>;

/** The first index below `length` where `a` and `b` differ (NaN equal to NaN), or -1. */
export function firstDifference(a: Numbers, b: Numbers, length: number): number {
  for (let i = 0; i < length; i++) {
    const x = a[i];
    const y = b[i];
    if (x !== y && !(Number.isNaN(x) && Number.isNaN(y))) return i;
  }
  return -1;
}

/** Throws the error of {@link verifyError} unless `kernels` and `javascript` hold the same `name` (lengths included). */
export function verifySame(what: string, name: string, kernels: Numbers, javascript: Numbers): void {
  if (kernels.length !== javascript.length) {
    throw verifyError(what, `${name} has ${kernels.length} entries on the kernels, ${javascript.length} in JavaScript`);
  }
  const at = firstDifference(kernels, javascript, kernels.length);
  if (at >= 0)
    throw verifyError(what, `${name}[${at}] is ${kernels[at]} on the kernels, ${javascript[at]} in JavaScript`);
}

/**
 * Compares two answers of a query that writes what it finds into a target
 * (as far as it fits) and returns how many there are: the counts, and the
 * entries written.
 */
export function verifyFound(
  what: string,
  count: number,
  target: Uint32Array,
  javascriptCount: number,
  javascriptTarget: Uint32Array,
): void {
  if (count !== javascriptCount) {
    throw verifyError(what, `it finds ${count} points on the kernels, ${javascriptCount} in JavaScript`);
  }
  const at = firstDifference(target, javascriptTarget, Math.min(count, target.length));
  if (at >= 0) {
    throw verifyError(
      what,
      `the ${at}-th point found is ${target[at]} on the kernels, ${javascriptTarget[at]} in JavaScript`,
    );
  }
}
