// Plain require() from a .cjs file: Node's "require" condition must give the CommonJS build.
const assert = require('node:assert');
const { PointGrid3D, SpatialHash2D, weld } = require('spatialhash');

const grid = new PointGrid3D(new Float64Array([0, 0, 0, 0.5, 0, 0, 9, 9, 9]), { cellSize: 1 });
assert.deepStrictEqual(grid.within(0, 0, 0, 1), [0, 1]);
const hash = new SpatialHash2D({ cellSize: 4 });
hash.insert('x', 1, 1, 2, 2);
assert.deepStrictEqual(hash.queryBox(0, 0, 1, 1), ['x']);
assert.strictEqual(weld([0, 0, 0, 0, 0, 0], 0).count, 1);
assert.ok(require.resolve('spatialhash').endsWith('/dist/cjs/index.js'));

// The pool from CommonJS: its workers start from the CommonJS build's own worker script.
const { PointGridWorkers } = require('spatialhash/workers');
const shared = new PointGrid3D(new Float64Array([0, 0, 0, 0.5, 0, 0, 9, 9, 9, 9.2, 9, 9]), {
  cellSize: 1,
  shared: true,
});
const pool = new PointGridWorkers({ threads: 2 });
pool
  .pairs(shared, 1)
  .then((pairs) => assert.deepStrictEqual(Array.from(pairs), Array.from(shared.pairs(1))))
  .finally(() => pool.close())
  .then(() => console.log('require() consumer: ok'));
