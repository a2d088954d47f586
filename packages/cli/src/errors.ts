/**
 * The two ways a run fails: the command line was wrong (exit code 2), or an
 * input could not be read or an output written (exit code 1). Messages name the
 * file and, for a malformed input, where in it (byte offset or line) and what
 * is wrong, so a user can open the file there.
 *
 * @module
 */

/** A command line the tool cannot run: exit code 2, with the usage hint. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A malformed, truncated or unsupported input: exit code 1. */
export class InputError extends Error {
  override name = 'InputError';

  /**
   * @param file the path as the user gave it.
   * @param where `offset N` or `line N` (and what was being read there), or '' when the whole file is meant.
   * @param problem what is wrong, in words.
   */
  constructor(
    readonly file: string,
    readonly where: string,
    readonly problem: string,
  ) {
    super(where === '' ? `${file}: ${problem}` : `${file}: ${where}: ${problem}`);
  }
}
