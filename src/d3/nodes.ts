/**
 * Between the nodes and the grids: a tick reads the positions and
 * velocities of the simulation's axes into typed arrays once, and writes the
 * velocities back once (a pass between reads and writes only the arrays).
 *
 * @module
 */
import type { CollideGrids } from './grids.js';
import type { CollideNode } from './types.js';

/** Copies the nodes' positions and velocities on the simulation's axes into the grids' arrays. */
export function readNodes(g: CollideGrids, nodes: readonly CollideNode[], n: number, dims: 1 | 2 | 3): void {
  const { X, Y, Z, VX, VY, VZ } = g;
  if (dims === 1) {
    Y.fill(0, 0, n);
    VY.fill(0, 0, n);
  }
  for (let i = 0; i < n; i++) {
    const node = nodes[i] as CollideNode;
    X[i] = node.x as number;
    VX[i] = node.vx as number;
    if (dims === 1) continue;
    Y[i] = node.y as number;
    VY[i] = node.vy as number;
    if (dims === 2) continue;
    Z[i] = node.z as number;
    VZ[i] = node.vz as number;
  }
}

/** Writes the velocities back to every node that can collide (the others were not touched). */
export function writeNodes(g: CollideGrids, nodes: readonly CollideNode[], n: number, dims: 1 | 2 | 3): void {
  const { VX, VY, VZ, classOf } = g;
  for (let i = 0; i < n; i++) {
    if (classOf[i] < 0) continue;
    const node = nodes[i] as CollideNode;
    node.vx = VX[i];
    if (dims === 1) continue;
    node.vy = VY[i];
    if (dims === 2) continue;
    node.vz = VZ[i];
  }
}
