/**
 * Reading inputs in chunks and writing outputs through a temporary file. The
 * readers never hold a whole file: a 500 MB STL is read 4 MiB at a time into
 * the arrays the weld needs. The writer buffers into a temporary file beside
 * the output and renames it over the output only once everything is written,
 * so a failed run never leaves a half-written output (a rename within one
 * folder is atomic on the platforms Node runs on).
 *
 * Temporary files are named `.<output name>.<pid>.<base36 ms><n>.tmp`, so
 * that whoever finds one knows whose it is: a run removes its own on any
 * error, the main thread (cli.ts) removes them on SIGINT, SIGTERM and SIGHUP,
 * and the next run into a folder removes those of processes no longer alive
 * (left by SIGKILL or a power cut). The replaced output keeps its mode, and
 * an output that is a symbolic link has its target replaced, the link kept.
 *
 * @module
 */

import {
  accessSync,
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError, systemError } from './errors.js';

const CHUNK = 4 << 20;

/** An input file read sequentially in chunks, with the byte offset of everything it hands out. */
export class ChunkReader {
  readonly size: number;
  private readonly fd: number;
  /** Bytes of the file read so far (the offset of the end of the last chunk). */
  private read = 0;

  constructor(readonly file: string) {
    try {
      this.fd = openSync(file, 'r');
    } catch (error) {
      throw new InputError(file, '', `cannot open: ${(error as Error).message}`);
    }
    this.size = fstatSync(this.fd).size;
  }

  /** Reads up to `bytes` bytes at `position` into `target` (from its start); returns how many were read. */
  readAt(target: Uint8Array, position: number, bytes = target.length): number {
    let done = 0;
    while (done < bytes) {
      const got = readSync(this.fd, target, done, bytes - done, position + done);
      if (got === 0) break;
      done += got;
    }
    return done;
  }

  /**
   * Calls `visit(chunk, offset)` for consecutive chunks of whole records of
   * `recordSize` bytes from `start` to `end`; `chunk` is only valid during the call.
   */
  forEachChunk(start: number, end: number, recordSize: number, visit: (chunk: Buffer, offset: number) => void): void {
    const perChunk = Math.max(1, Math.floor(CHUNK / recordSize)) * recordSize;
    const buffer = Buffer.allocUnsafe(perChunk);
    for (let offset = start; offset < end; offset += perChunk) {
      const want = Math.min(perChunk, end - offset);
      const got = this.readAt(buffer, offset, want);
      if (got < want) {
        throw new InputError(this.file, `offset ${offset + got}`, `the file ends early (it changed while being read?)`);
      }
      this.read = offset + got;
      visit(buffer.subarray(0, got), offset);
    }
  }

  /**
   * Calls `visit(line, number)` for every line from byte `start` (1-based line
   * numbers, counting from `firstLine`), without its end of line (\n or \r\n).
   * Bytes are read as latin1, one character per byte, so that writing a line
   * back as latin1 reproduces its bytes exactly, UTF-8 included. Returning
   * false from `visit` stops the walk.
   */
  forEachLine(start: number, firstLine: number, visit: (line: string, number: number) => boolean | undefined): void {
    const buffer = Buffer.allocUnsafe(CHUNK);
    let carry = '';
    let number = firstLine;
    for (let offset = start; offset < this.size; ) {
      const got = this.readAt(buffer, offset, Math.min(CHUNK, this.size - offset));
      if (got === 0) break;
      offset += got;
      this.read = offset;
      const text = carry + buffer.toString('latin1', 0, got);
      let from = 0;
      for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', from)) {
        const end = newline > from && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
        if (visit(text.slice(from, end), number++) === false) return;
        from = newline + 1;
      }
      carry = text.slice(from);
    }
    if (carry.length > 0) {
      const end = carry.charCodeAt(carry.length - 1) === 13 ? carry.length - 1 : carry.length;
      visit(carry.slice(0, end), number);
    }
  }

  /** How far the last walk got, in bytes: for the progress bar. */
  get position(): number {
    return this.read;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * For the tests that signal or kill a running command: this many
 * milliseconds of sleep once a temporary file is complete and before it is
 * renamed, so that the test finds it there. 0 (no pause) unless the
 * environment variable SPATIALHASH_TEST_HOLD_MS says otherwise.
 */
const HOLD_MS = Number(process.env.SPATIALHASH_TEST_HOLD_MS ?? 0) || 0;

/** Temporary files of this tool: `.<name>.<pid>.<stamp>.tmp` (see the module notes). */
const TEMPORARY = /^\..+\.(\d+)\.[0-9a-z]+\.tmp$/;

let made = 0;

/** A fresh temporary name beside `file`, for this process. */
export function temporaryName(file: string): string {
  return join(
    dirname(file),
    `.${basename(file)}.${process.pid}.${Date.now().toString(36)}${(made++).toString(36)}.tmp`,
  );
}

/** Whether a process of this id exists (EPERM: it does, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/**
 * Removes this tool's temporary files in `folder` whose process is `pid`, or,
 * without `pid`, whose process is no longer alive (runs killed by SIGKILL).
 * Only regular files with the tool's name pattern; errors are ignored (a
 * folder we cannot list holds nothing we could remove).
 */
export function removeTemporaries(folder: string, pid?: number): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const match = TEMPORARY.exec(name);
    if (match === null) continue;
    const owner = Number(match[1]);
    if (pid === undefined ? owner === process.pid || alive(owner) : owner !== pid) continue;
    const path = join(folder, name);
    try {
      if (lstatSync(path).isFile()) rmSync(path, { force: true });
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}

/**
 * Where writing `file` lands: the file itself, or for a symbolic link the
 * file it points to (links followed to the end, dangling ones included), so
 * that the link survives and its target is replaced.
 */
export function outputTarget(file: string): string {
  let target = resolve(file);
  for (let hops = 0; hops < 40; hops++) {
    let link: Stats;
    try {
      link = lstatSync(target);
    } catch {
      return target;
    }
    if (!link.isSymbolicLink()) return target;
    target = resolve(dirname(target), readlinkSync(target));
  }
  throw new InputError(file, '', 'cannot write: too many symbolic links');
}

/**
 * Checks that `output` can be written before anything is read: not a folder,
 * in a folder that exists and is writable. Throws an InputError naming the
 * output (or its folder) and the reason.
 */
export function checkOutputPlace(output: string): void {
  const target = outputTarget(output);
  try {
    if (statSync(target).isDirectory()) throw new InputError(output, '', 'cannot write: it is a folder, not a file');
  } catch (error) {
    if (error instanceof InputError) throw error;
    // Missing: the usual case.
  }
  const folder = dirname(target);
  let stats: Stats;
  try {
    stats = statSync(folder);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT') throw new InputError(output, '', `cannot write: the folder ${folder} does not exist`);
    throw systemError(output, `cannot write in the folder ${folder}`, error);
  }
  if (!stats.isDirectory()) throw new InputError(output, '', `cannot write: ${folder} is not a folder`);
  try {
    accessSync(folder, constants.W_OK);
  } catch (error) {
    throw systemError(output, `cannot write in the folder ${folder}`, error);
  }
}

/**
 * An output written to a temporary file beside it (same folder, so the final
 * rename stays on one file system) and renamed over it by {@link commit};
 * {@link abort} removes the temporary file.
 */
export class AtomicOutput {
  readonly temporary: string;
  private fd: number;
  private readonly buffer = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  /** Bytes written so far. */
  written = 0;

  /** The file the rename replaces: `file`, or the target of the symbolic link `file` is. */
  readonly target: string;

  constructor(readonly file: string) {
    checkOutputPlace(file);
    this.target = outputTarget(file);
    removeTemporaries(dirname(this.target));
    this.temporary = temporaryName(this.target);
    let replaced: Stats | undefined;
    try {
      replaced = statSync(this.target);
    } catch {
      // A new file: the default mode (0666 less the umask).
    }
    try {
      this.fd = openSync(this.temporary, 'wx', replaced === undefined ? 0o666 : replaced.mode & 0o7777);
    } catch (error) {
      throw systemError(file, 'cannot write', error);
    }
    if (replaced !== undefined) keepOwnerAndMode(this.fd, replaced);
  }

  /** Writes raw bytes. */
  bytes(data: Uint8Array): void {
    if (data.length > this.buffer.length - this.used) this.flush();
    if (data.length >= this.buffer.length) {
      this.writeAll(data);
    } else {
      this.buffer.set(data, this.used);
      this.used += data.length;
    }
    this.written += data.length;
  }

  /** Writes text as latin1 (one byte per character: lines read by ChunkReader come back unchanged). */
  text(text: string): void {
    if (text.length > this.buffer.length - this.used) this.flush();
    if (text.length >= this.buffer.length) {
      this.writeAll(Buffer.from(text, 'latin1'));
    } else {
      this.used += this.buffer.write(text, this.used, 'latin1');
    }
    this.written += text.length;
  }

  /** Room for `bytes` bytes in the buffer, returned as a view to fill; call {@link advance} after. */
  reserve(bytes: number): Buffer {
    if (bytes > this.buffer.length - this.used) this.flush();
    return this.buffer.subarray(this.used, this.used + bytes);
  }

  advance(bytes: number): void {
    this.used += bytes;
    this.written += bytes;
  }

  /** Bytes a single {@link reserve} can hand out. */
  get capacity(): number {
    return this.buffer.length;
  }

  private flush(): void {
    if (this.used > 0) this.writeAll(this.buffer.subarray(0, this.used));
    this.used = 0;
  }

  private writeAll(data: Uint8Array): void {
    try {
      for (let done = 0; done < data.length; ) {
        done += writeSync(this.fd, data, done, data.length - done);
      }
    } catch (error) {
      throw systemError(this.file, 'cannot write', error);
    }
  }

  /** Flushes and closes the temporary file: then only {@link rename} is left (for outputs of several files). */
  finish(): void {
    if (this.fd < 0) return;
    this.flush();
    try {
      closeSync(this.fd);
    } catch (error) {
      throw systemError(this.file, 'cannot write', error);
    }
    this.fd = -1;
  }

  /** Renames the finished temporary file over the output (the link's target, for a symbolic link). */
  rename(): void {
    if (HOLD_MS > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, HOLD_MS);
    try {
      renameSync(this.temporary, this.target);
    } catch (error) {
      throw systemError(this.file, 'cannot replace', error);
    }
  }

  /** Flushes, closes and renames the temporary file over the output. */
  commit(): void {
    this.finish();
    this.rename();
  }

  /** Closes and removes the temporary file; the output is left as it was. */
  abort(): void {
    if (this.fd >= 0) {
      try {
        closeSync(this.fd);
      } catch {
        // Already closed or never opened: nothing to release.
      }
      this.fd = -1;
    }
    rmSync(this.temporary, { force: true });
  }
}

/** Runs `write` on a new {@link AtomicOutput} for `file`: committed when it returns, removed when it throws. */
export function writeAtomically<T>(file: string, write: (out: AtomicOutput) => T): T {
  const out = new AtomicOutput(file);
  try {
    const result = write(out);
    out.commit();
    return result;
  } catch (error) {
    out.abort();
    throw error;
  }
}

/**
 * Gives the temporary file the mode (and, where allowed, the owner) of the
 * file it will replace: a 0600 output stays 0600. The mode given to open is
 * cut by the umask, so it is set again here.
 */
function keepOwnerAndMode(fd: number, replaced: Stats): void {
  try {
    fchmodSync(fd, replaced.mode & 0o7777);
  } catch {
    // A file system without modes (FAT): nothing to keep.
  }
  const { uid, gid } = fstatSync(fd);
  if (uid !== replaced.uid || gid !== replaced.gid) {
    try {
      fchownSync(fd, replaced.uid, replaced.gid);
    } catch {
      // Only root may give a file away: the output is then ours, as any new file is.
    }
  }
}
