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

/** Node's file-system error codes in words. */
const SYSTEM_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'the file system is read-only',
  EEXIST: 'it exists already',
  EMFILE: 'too many open files',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EBUSY: 'the file is busy',
  EXDEV: 'it is on another file system',
};

/**
 * An InputError (exit code 1, one line) for a failed file-system call on
 * `file`: what was being done, and the system's reason in words with its
 * code, never the temporary file's path or a stack.
 *
 * @param action e.g. `cannot read`, `cannot write`.
 */
export function systemError(file: string, action: string, error: unknown): InputError {
  const code = (error as { code?: unknown }).code;
  const reason =
    typeof code === 'string' && code in SYSTEM_PROBLEMS
      ? `${SYSTEM_PROBLEMS[code]} (${code})`
      : error instanceof Error
        ? error.message
        : String(error);
  return new InputError(file, '', `${action}: ${reason}`);
}
