// The same package from CommonJS TypeScript: `import x = require()` compiles to require() and resolves the
// package's "require" condition and its own declarations.
import spatialhash = require('spatialhash');

const grid = new spatialhash.PointGrid2D(new Float64Array([0, 0, 0.5, 0]), { cellSize: 1 });
const near: number[] = grid.within(0, 0, 1);
if (near.length !== 2) throw new Error('CommonJS consumer: within');
const hash = new spatialhash.SpatialHash2D<string>({ cellSize: 4 });
hash.insert('x', 1, 1);
if (hash.queryPoint(1, 1)[0] !== 'x') throw new Error('CommonJS consumer: queryPoint');
console.log('CommonJS (.cts) consumer: ok');
