/**
 * spatialhash: find what is near what, fast.
 *
 * @packageDocumentation
 */
export type { NumericArray } from './validate.js';
