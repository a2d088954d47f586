// Uses every public entry of the root export under the strictest consumer settings; run as ES module.
import {
  DEFAULT_MAX_CELLS_PER_ITEM,
  type NeighborLists,
  type NumericArray,
  PointGrid2D,
  PointGrid3D,
  type PointGridOptions,
  PointHash2D,
  PointHash3D,
  type PointHashData,
  type PointHashOptions,
  type RayHit,
  SpatialHash2D,
  SpatialHash3D,
  type SpatialHashOptions,
  type WeldMeshResult,
  weld,
  weldMesh,
} from 'spatialhash';

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`consumer check failed: ${what}`);
}

interface Enemy {
  name: string;
}
const options: SpatialHashOptions = { cellSize: 10, maxCellsPerItem: DEFAULT_MAX_CELLS_PER_ITEM };
const hash = new SpatialHash2D<Enemy>(options);
const a: Enemy = { name: 'a' };
hash.insert(a, 0, 0, 5, 5);
hash.insert({ name: 'b' }, 50, 50);
const found: Enemy[] = [];
hash.queryRadius(1, 1, 2, found);
check(found.length === 1 && found[0]?.name === 'a', 'queryRadius');
const hit: RayHit<Enemy> | undefined = hash.raycast(-10, 1, 1, 0);
check(hit?.item === a, 'raycast');
const hash3 = new SpatialHash3D<number>({ cellSize: 1 });
hash3.insert(7, 0, 0, 0);
check(hash3.nearest(1, 1, 1, 1)[0] === 7, 'nearest 3D');

const pointOptions: PointHashOptions = { cellSize: 4 };
const points = new PointHash2D<string>(pointOptions);
const idA = points.insert('a', 0, 0);
points.insert('b', 3, 0, { category: 2 });
check(points.queryRadius(0, 0, 3, [], 2).join() === 'b', 'PointHash2D queryRadius with a mask');
let pointPairs = 0;
points.forEachPair(3, () => {
  pointPairs++;
});
check(pointPairs === 1 && points.itemById(idA) === 'a', 'PointHash2D forEachPair');
const snapshot: PointHashData = points.toData();
check(PointHash2D.from<string>(snapshot).nearest(2.9, 0)[0] === 'b', 'PointHash2D from');
const points3 = new PointHash3D<number>({ cellSize: 1 });
points3.insert(5, 1, 2, 3);
check(points3.positionById(0).join() === '1,2,3', 'PointHash3D positionById');

const positions: NumericArray = new Float32Array([0, 0, 0.5, 0, 10, 10]);
const gridOptions: PointGridOptions = { cellSize: 1 };
const grid = new PointGrid2D(positions, gridOptions);
const lists: NeighborLists = grid.neighbors(1);
const firstNeighbour: number | undefined = lists.indices[0];
check(firstNeighbour === 1, 'neighbors');
const into = new Uint32Array(4);
check(grid.withinInto(0, 0, 1, into) === 2, 'withinInto');
const grid3 = new PointGrid3D([0, 0, 0, 1, 1, 1], { cellSize: 2 });
let pairs = 0;
grid3.forEachPair(2, () => {
  pairs++;
});
check(pairs === 1, 'forEachPair');

check(weld([0, 0, 0, 0, 0, 1e-9], 1e-6).count === 1, 'weld');
const soup = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]);
const mesh: WeldMeshResult<Float32Array> = weldMesh(soup, undefined, 1e-6);
const welded: Float32Array = mesh.positions;
check(welded.length === 12 && mesh.indices.length === 6, 'weldMesh');
console.log('ESM consumer: ok');
