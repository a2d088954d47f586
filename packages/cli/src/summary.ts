/**
 * What a run is asked (a weld or dedupe job) and what it reports: counts in
 * and out, what was merged and dropped, and the time, printed as one line of
 * text (or JSON with --json).
 *
 * @module
 */

import type { Progress } from './progress.js';

/** What `weld` asks of a format module. */
export interface WeldJob {
  input: string;
  output: string;
  tolerance: number;
  /** Per attribute name, the difference at which two vertices may still merge (0 when missing: equal). */
  tolerances: ReadonlyMap<string, number>;
  /** Attribute names not compared. */
  ignore: ReadonlySet<string>;
  progress: Progress;
}

/** What `dedupe` asks of a format module. */
export interface DedupeJob {
  input: string;
  output: string;
  radius: number;
  /** Move each kept point to its cluster's mean. */
  mean: boolean;
  progress: Progress;
}

/**
 * Vertices an attribute kept apart, by one rule for every format: a vertex
 * counts for an attribute when, welded by position alone (weld's rule on the
 * positions only, in the same order), it would join a vertex whose value of
 * that attribute is farther from its own than the attribute's tolerance. A
 * vertex that differs in several attributes counts once for each (not only
 * for the first compared), so `--ignore` of every attribute listed gives the
 * weld by position alone: the flags the summary names merge them all. The
 * list is empty exactly when the attributes changed nothing. The counts are
 * weldByDistance's report (spatialhash/gltf-transform's
 * WeldByDistanceReport): glTF's directly, PLY's and OBJ's through
 * weld-vertices.ts, which welds them with weldByDistance too.
 */
export interface KeptApart {
  /** The attribute's name as the options take it (`normal`, `color`, `NORMAL`, `TEXCOORD_0`, a PLY property). */
  attribute: string;
  vertices: number;
}

/** Counts a format module returns for one run. */
export interface Counts {
  /** Format as detected, e.g. `binary STL`, `ASCII PLY`, `GLB`. */
  format: string;
  /** Vertices (weld) or points (dedupe) read. */
  in: number;
  /** Vertices or points written. */
  out: number;
  /** Vertices or points that joined an earlier representative (each one merged pair). */
  merged: number;
  /** Triangles, faces or lines dropped because they collapsed (weld only). */
  dropped: number;
  /** Unused vertices removed (glTF compaction), not counted as merged. */
  unused?: number;
  /** Weld: the attributes that kept vertices within the tolerance apart, when any did. */
  keptApart?: KeptApart[];
  /** Seconds spent in each phase (in --json only: the bench compares the readers with the libraries'). */
  timings: Timings;
}

/** Seconds a run spent reading its input (pass 1), welding or merging, and writing (pass 2). */
export interface Timings {
  reading: number;
  welding: number;
  writing: number;
}

/**
 * Times the phases of a run: `lap(phase)` ends the phase in progress;
 * `welded` seconds of it, when given, were welding done along the way
 * (a dedupe that welds while it reads) and count as such.
 */
export function stopwatch(): { lap(phase: keyof Timings, welded?: number): void; timings: Timings } {
  const timings: Timings = { reading: 0, welding: 0, writing: 0 };
  let last = performance.now();
  return {
    timings,
    lap(phase, welded = 0) {
      const now = performance.now();
      timings[phase] += (now - last) / 1000 - welded;
      timings.welding += welded;
      last = now;
    },
  };
}

/** Counts plus what the run was. */
export interface Summary extends Counts {
  command: 'weld' | 'dedupe';
  input: string;
  output: string;
  /** The tolerance (weld) or radius (dedupe). */
  distance: number;
  seconds: number;
}

const number = (n: number) => n.toLocaleString('en-US');

/** One line for a person. */
export function formatSummary(s: Summary): string {
  const what = s.command === 'weld' ? 'vertices' : 'points';
  const parts = [
    `${s.command} ${s.input} -> ${s.output} (${s.format}, ${s.command === 'weld' ? 'tolerance' : 'radius'} ${s.distance})`,
    `${what} in ${number(s.in)}, out ${number(s.out)}`,
    `${number(s.merged)} merged`,
  ];
  if (s.unused !== undefined && s.unused > 0) parts.push(`${number(s.unused)} unused removed`);
  if (s.command === 'weld') parts.push(`${number(s.dropped)} collapsed dropped`);
  if (s.keptApart !== undefined && s.keptApart.length > 0) {
    const which = s.keptApart.map((k) => `${k.attribute} ${number(k.vertices)}`).join(', ');
    const flags = s.keptApart.map((k) => `--ignore ${k.attribute}`).join(' ');
    parts.push(`kept apart by attributes though within the tolerance: ${which} (${flags} merges them)`);
  }
  parts.push(`${s.seconds.toFixed(2)} s`);
  return parts.join('; ');
}
