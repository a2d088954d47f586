// The WebAssembly kernels of spatialhash (src/wasm/kernels.ts loads them):
// the concrete instances of the generic loops, one per coordinate type.
// Positions P and coordinate copies C are float64 or float32.

import { bounds } from './build';
import { countHashed } from './hashed';
import { withinMany } from './within';

// The build's loops and their instances (generated from src/templates/build.template.ts).
export * from './build-loops';
export { setGrid } from './grid';
// The pair search and its instances (generated from src/templates/pairs.template.ts).
export * from './pair-search';
export { fillRows, fillRowsTrusted, originalPairs, rowStarts } from './rows';
export { gatherWindow, sortWindow, written } from './within';
// The within searches' instances (generated from src/templates/within.template.ts).
export * from './within-rows';
export { fillLookup, orderCells } from './hashed';
export { setWeldTable, weldExact } from './weld';
// weld's near search and its instances (generated from src/templates/weld.template.ts).
export * from './weld-near';

export function bounds64(pos: usize, n: i32, d: i32, out: usize): i32 {
  return bounds<f64>(pos, n, d, out);
}
export function bounds32(pos: usize, n: i32, d: i32, out: usize): i32 {
  return bounds<f32>(pos, n, d, out);
}
export function countHashed64(pos: usize, n: i32, d: i32, ox: f64, oy: f64, oz: f64, w: f64, cellOf: usize, table: usize, mask: u32, keys: usize, counts: usize): i32 {
  return countHashed<f64>(pos, n, d, ox, oy, oz, w, cellOf, table, mask, keys, counts);
}
export function countHashed32(pos: usize, n: i32, d: i32, ox: f64, oy: f64, oz: f64, w: f64, cellOf: usize, table: usize, mask: u32, keys: usize, counts: usize): i32 {
  return countHashed<f32>(pos, n, d, ox, oy, oz, w, cellOf, table, mask, keys, counts);
}
export function withinMany64(queries: usize, d: i32, order: usize, k: i32, end: i32, first: i32, radius: f64, results: usize, capacity: i32, rowStart: usize, rowCount: usize): i32 {
  return withinMany<f64>(queries, d, order, k, end, first, radius, results, capacity, rowStart, rowCount);
}
export function withinMany32(queries: usize, d: i32, order: usize, k: i32, end: i32, first: i32, radius: f64, results: usize, capacity: i32, rowStart: usize, rowCount: usize): i32 {
  return withinMany<f32>(queries, d, order, k, end, first, radius, results, capacity, rowStart, rowCount);
}
