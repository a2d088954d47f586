/*
 * The C floor of `npm run bench`: the same counting-sort grid as PointGrid2D /
 * PointGrid3D, compiled with -O3 -march=native, so the tables show how far the
 * JavaScript is from what the machine can do with the same algorithm.
 *
 *   grid <mode> <points.bin> <radius>
 *
 * mode "within2": every point's neighbours within radius (itself included),
 *   one query per point in index order, each neighbour counted inline.
 * mode "withininto2": the queries of "within2" as the JS rows of
 *   withinInto run them: each a call the compiler does not inline, which
 *   writes the neighbours' indices into one reused buffer and returns their
 *   number; the caller's loop then reads them back for the fingerprint.
 * mode "pairs2": every pair within radius once, as PointGrid2D.forEachPair:
 *   cells sorted by x, then the half stencil swept in x order (the rest of
 *   the cell and the next cell in its row as one run, the three cells of the
 *   row above as another; hashed grids look those cells up). The fingerprint
 *   counts each pair in both directions plus every point with itself, to
 *   compare with within2.
 * mode "visit2": the pairs of "pairs2", each handed to a visitor through a function pointer the compiler cannot
 *   see through (as forEachPair calls a user's callback), original indices lower first; same fingerprint.
 * mode "csr3": every point's neighbours within radius (itself excluded) as
 *   CSR rows in index order, as workload 3.
 * mode "collect2": the pairs of "pairs2" written out as PointGrid2D.pairs
 *   writes them: flat (i, j) original indices with i < j, into one buffer.
 * mode "csr2": those pairs turned into CSR rows in index order (rows counted,
 *   then each pair written into both rows), as PointGrid2D.neighbors.
 * mode "collect3": the pairs of the 3D half stencil of "csr3" (dense) written
 *   out flat as PointGrid3D.pairs writes them; no CSR.
 * mode "count2": the pairs of "pairs2" counted the fastest way found for C,
 *   the way a hand-written C grid counts them: dense up to 16n + 4096 cells
 *   (a hashed grid past that), cells not sorted, every candidate of the half
 *   stencil's runs tested without a branch, so that the compiler vectorizes
 *   the test (AMD EPYC, 2026-12-03, one process each: about 2x faster than
 *   pairs2 on 1e6 uniform points, 3.3x on the places as lon/lat, where the
 *   dense grid also saves the lookups). Only counting gains: a visitor call
 *   per pair is a branch per candidate, so "visit2" keeps the sweep.
 * mode "visitdense2": "visit2" on the grid of "count2" (dense up to 16n +
 *   4096 cells), the visitor floor for a caller who sizes the dense grid
 *   for the data (PointGrid2D's maxDenseCells).
 * The fingerprints of collect2 and csr2 are those of pairs2 (each pair in
 * both directions plus every point with itself), that of collect3 the one of
 * csr3 (each pair in both directions), so each compares with its JS rows.
 *
 * points.bin holds little-endian float64 coordinates, interleaved. The job
 * runs once untimed (page faults, caches) then `timed runs` times (default
 * 1), each timed run reusing the memory of the runs before; the program
 * prints a line "<ms> <count> <checksum>" per timed run, where checksum is
 * the sum over every reported (i, j) of (i + 1) * (j + 1) modulo 2^32, of
 * which the harness keeps the low 30 bits for its fingerprint.
 *
 * Build (as PointGrid2D / PointGrid3D): cells of width cellSize = radius from
 * the points' minimum corner; when the bounding box has at most 4n + 4096
 * cells (16n + 4096 for count2 and visitdense2) they are indexed densely (row-major), otherwise only occupied cells
 * are kept in an open-addressing table (load <= 1/2) of cell coordinates ->
 * dense ids. Counting sort of the points by cell, coordinates copied into
 * cell order. within2: per point, the 3 rows of 3 cells around it (dense:
 * each row one contiguous run of sorted points). csr3 (dense): the half
 * stencil, each unordered pair tested once and collected, rows counted, then
 * scattered into CSR, as PointGrid3D.neighbors does; csr3 (hashed): one
 * 27-cell query per point.
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  int dim;
  int64_t n;
  double cell;
  int32_t *slots; /* table slot -> cell id, -1 empty */
  uint32_t mask;
  int64_t *keys;     /* cell id -> coordinates, dim per cell */
  int32_t *start;    /* cell id -> first sorted entry; cells + 1 values */
  int32_t *pointCell; /* point -> cell id */
  int32_t *sorted;   /* sorted entry -> point index */
  double *sortedPos; /* sorted entry -> coordinates */
  int32_t cells;
  int dense;
  double densePerPoint; /* dense when the box has at most densePerPoint * n + 4096 cells */
  double origin[3];
  int64_t extent[3]; /* dense: cells per axis */
} grid_t;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static inline uint32_t mix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

static inline uint32_t hash_cell(const int64_t *c, int dim) {
  uint32_t h = (uint32_t)c[0] * 0x9e3779b1u ^ (uint32_t)c[1] * 0x7feb352du;
  if (dim == 3) h ^= (uint32_t)c[2] * 0x2c1b3c6du;
  return mix32(h);
}

static inline int32_t find_cell(const grid_t *g, const int64_t *c) {
  uint32_t s = hash_cell(c, g->dim) & g->mask;
  for (;;) {
    int32_t id = g->slots[s];
    if (id < 0) return -1;
    const int64_t *k = g->keys + (int64_t)id * g->dim;
    if (k[0] == c[0] && k[1] == c[1] && (g->dim == 2 || k[2] == c[2])) return id;
    s = (s + 1) & g->mask;
  }
}

static void grid_build(grid_t *g, const double *pos) {
  int dim = g->dim;
  int64_t n = g->n;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int64_t i = 0; i < n; i++)
    for (int a = 0; a < dim; a++) {
      double v = pos[i * dim + a];
      if (v < lo[a]) lo[a] = v;
      if (v > hi[a]) hi[a] = v;
    }
  double box = 1;
  for (int a = 0; a < dim; a++) {
    g->origin[a] = lo[a];
    g->extent[a] = (int64_t)floor((hi[a] - lo[a]) / g->cell) + 1;
    box *= (double)g->extent[a];
  }
  g->dense = box <= g->densePerPoint * (double)n + 4096;
  if (g->dense) {
    g->cells = (int32_t)box;
    memset(g->start, 0, sizeof(int32_t) * (g->cells + 1));
    for (int64_t i = 0; i < n; i++) {
      int64_t c = 0;
      for (int a = dim - 1; a >= 0; a--) c = c * g->extent[a] + (int64_t)floor((pos[i * dim + a] - g->origin[a]) / g->cell);
      g->pointCell[i] = (int32_t)c;
      g->start[c]++;
    }
  } else {
    uint32_t size = 16;
    while (size < 2 * n) size <<= 1;
    g->mask = size - 1;
    memset(g->slots, 0xff, sizeof(int32_t) * size);
    g->cells = 0;
    int64_t c[3] = {0, 0, 0};
    for (int64_t i = 0; i < n; i++) {
      for (int a = 0; a < dim; a++) c[a] = (int64_t)floor((pos[i * dim + a] - g->origin[a]) / g->cell);
      uint32_t s = hash_cell(c, dim) & g->mask;
      int32_t id;
      for (;;) {
        id = g->slots[s];
        if (id < 0) {
          id = g->cells++;
          g->slots[s] = id;
          memcpy(g->keys + (int64_t)id * dim, c, sizeof(int64_t) * dim);
          g->start[id] = 0;
          break;
        }
        const int64_t *k = g->keys + (int64_t)id * dim;
        if (k[0] == c[0] && k[1] == c[1] && (dim == 2 || k[2] == c[2])) break;
        s = (s + 1) & g->mask;
      }
      g->pointCell[i] = id;
      g->start[id]++;
    }
  }
  int32_t sum = 0;
  for (int32_t id = 0; id < g->cells; id++) {
    sum += g->start[id];
    g->start[id] = sum;
  }
  g->start[g->cells] = sum;
  for (int64_t i = n - 1; i >= 0; i--) {
    int32_t e = --g->start[g->pointCell[i]];
    g->sorted[e] = (int32_t)i;
    memcpy(g->sortedPos + (int64_t)e * dim, pos + i * dim, sizeof(double) * dim);
  }
}

static uint64_t result_count;
static uint32_t result_sum;
static int32_t *csr_offsets;
static int32_t *csr_indices;
static int64_t csr_capacity;
static int32_t *within_out; /* withininto2: one query's indices, n at most */

/* The sorted entries from..to within r2 of (x, y) of one query of within2 / withininto2: with out == NULL each is
 * summed into *sum with weight (the query's index + 1), otherwise its index is written to out[found...]. Returns
 * found plus their number. Always inlined, so that each caller gets its own loop with the other branch gone. */
static inline __attribute__((always_inline)) int64_t scan_run(const grid_t *g, int32_t from, int32_t to, double x,
                                                                double y, double r2, int32_t *out, int64_t found,
                                                                uint32_t weight, uint32_t *sum) {
  for (int32_t e = from; e < to; e++) {
    double dx = g->sortedPos[2 * e] - x, dy = g->sortedPos[2 * e + 1] - y;
    int in = dx * dx + dy * dy <= r2;
    if (out) {
      /* Written whatever the test says and kept by counting it: no branch to mispredict. */
      out[found] = g->sorted[e];
      found += in;
    } else if (in) {
      *sum += weight * (uint32_t)(g->sorted[e] + 1);
      found++;
    }
  }
  return found;
}

/* One query of within2 / withininto2: the points within r of (x, y), itself included, through scan_run. */
static inline __attribute__((always_inline)) int64_t query2(const grid_t *g, double x, double y, double r,
                                                              int32_t *out, uint32_t weight, uint32_t *sum) {
  double r2 = r * r;
  int64_t found = 0;
  int64_t x0 = (int64_t)floor((x - r - g->origin[0]) / g->cell), x1 = (int64_t)floor((x + r - g->origin[0]) / g->cell);
  int64_t y0 = (int64_t)floor((y - r - g->origin[1]) / g->cell), y1 = (int64_t)floor((y + r - g->origin[1]) / g->cell);
  if (g->dense) {
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 >= g->extent[0]) x1 = g->extent[0] - 1;
    if (y1 >= g->extent[1]) y1 = g->extent[1] - 1;
    /* Cells x0..x1 of a row are one contiguous run of sorted points. */
    for (int64_t cy = y0; cy <= y1; cy++)
      found = scan_run(g, g->start[cy * g->extent[0] + x0], g->start[cy * g->extent[0] + x1 + 1], x, y, r2, out, found,
                       weight, sum);
    return found;
  }
  for (int64_t cy = y0; cy <= y1; cy++)
    for (int64_t cx = x0; cx <= x1; cx++) {
      int64_t c[3] = {cx, cy, 0};
      int32_t id = find_cell(g, c);
      if (id >= 0) found = scan_run(g, g->start[id], g->start[id + 1], x, y, r2, out, found, weight, sum);
    }
  return found;
}

static void run_within2(grid_t *g, const double *pos, double r) {
  grid_build(g, pos);
  uint64_t count = 0;
  uint32_t sum = 0;
  for (int64_t i = 0; i < g->n; i++) count += query2(g, pos[2 * i], pos[2 * i + 1], r, NULL, (uint32_t)(i + 1), &sum);
  result_count = count;
  result_sum = sum;
}

/* withininto2's query, as a library's withinInto: the indices written to out, their number returned. Not inlined,
 * so that its caller pays a call per query and reads the indices back, as a program calling a library does. */
static __attribute__((noinline)) int64_t within_into2(const grid_t *g, double x, double y, double r, int32_t *out) {
  return query2(g, x, y, r, out, 0, NULL);
}

static void run_withininto2(grid_t *g, const double *pos, double r) {
  grid_build(g, pos);
  uint64_t count = 0;
  uint32_t sum = 0;
  for (int64_t i = 0; i < g->n; i++) {
    int64_t found = within_into2(g, pos[2 * i], pos[2 * i + 1], r, within_out);
    for (int64_t k = 0; k < found; k++) sum += (uint32_t)(i + 1) * (uint32_t)(within_out[k] + 1);
    count += found;
  }
  result_count = count;
  result_sum = sum;
}

/* Sorts each cell's points by x (insertion sort: cells hold a handful), as
 * PointGrid2D's build does, so a sweep can stop at the first point too far
 * right. 2D only. */
static void sort_cells_by_x(grid_t *g) {
  double *p = g->sortedPos;
  int32_t *idx = g->sorted;
  for (int32_t c = 0; c < g->cells; c++) {
    int32_t from = g->start[c], to = g->start[c + 1];
    for (int32_t s = from + 1; s < to; s++) {
      double x = p[2 * s], y = p[2 * s + 1];
      int32_t i = idx[s], t = s;
      for (; t > from && p[2 * t - 2] > x; t--) {
        p[2 * t] = p[2 * t - 2];
        p[2 * t + 1] = p[2 * t - 1];
        idx[t] = idx[t - 1];
      }
      p[2 * t] = x;
      p[2 * t + 1] = y;
      idx[t] = i;
    }
  }
}

/* Tests sorted point s against the x-sorted run [*from, to): skips (and
 * remembers, for the next s, which lies further right) the points more than
 * r to the left, and stops at the first more than r to the right. */
static inline void sweep2(const grid_t *g, int32_t s, int32_t *from, int32_t to, double r2, uint64_t *count,
                          uint32_t *sum) {
  const double *p = g->sortedPos;
  double x = p[2 * s], y = p[2 * s + 1];
  uint32_t i1 = (uint32_t)g->sorted[s] + 1;
  int32_t t = *from;
  while (t < to && p[2 * t] < x && (p[2 * t] - x) * (p[2 * t] - x) > r2) t++;
  *from = t;
  for (; t < to; t++) {
    double dx = p[2 * t] - x;
    if (dx * dx > r2) break;
    double dy = p[2 * t + 1] - y;
    if (dx * dx + dy * dy <= r2) {
      (*count)++;
      *sum += 2u * i1 * ((uint32_t)g->sorted[t] + 1);
    }
  }
}

/* The half stencil of cell c (non-empty): the end of the run holding the rest of the cell and the next cell in its
 * row (dense), and the [start, end) ranges of the other cells (the row above; hashed: 4 cells looked up). Returns
 * how many numbers it wrote into ranges. */
static inline int gather2(const grid_t *g, int32_t c, int32_t *runEnd, int32_t *ranges) {
  int count = 0;
  int64_t ex = g->extent[0], ey = g->extent[1];
  if (g->dense) {
    int64_t cx = c % ex, cy = c / ex;
    int64_t left = cx > 0 ? cx - 1 : 0, right = (cx + 1 < ex ? cx + 1 : ex - 1) + 1;
    *runEnd = g->start[cy * ex + right];
    if (cy + 1 < ey) {
      ranges[count++] = g->start[(cy + 1) * ex + left];
      ranges[count++] = g->start[(cy + 1) * ex + right];
    }
  } else {
    *runEnd = g->start[c + 1];
    const int64_t *k = g->keys + 2 * (int64_t)c;
    int64_t near[4][3] = {{k[0] + 1, k[1], 0}, {k[0] - 1, k[1] + 1, 0}, {k[0], k[1] + 1, 0}, {k[0] + 1, k[1] + 1, 0}};
    for (int q = 0; q < 4; q++) {
      int32_t id = find_cell(g, near[q]);
      if (id < 0) continue;
      ranges[count++] = g->start[id];
      ranges[count++] = g->start[id + 1];
    }
  }
  return count;
}

static int32_t *pair_buffer;
static int64_t pair_capacity;
static int64_t pair_used;
static int32_t *row_count;
/* Whether test_range counts each pair into row_count as it goes (csr3). */
static int count_rows = 1;

static void grow_pairs(int64_t more) {
  if (pair_used + more <= pair_capacity) return;
  while (pair_used + more > pair_capacity) pair_capacity *= 2;
  pair_buffer = realloc(pair_buffer, sizeof(int32_t) * pair_capacity);
  if (!pair_buffer) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
}

/* sweep2, writing each pair found into pair_buffer as original indices, lower first (as PointGrid2D.pairs). */
static inline void collect_sweep2(const grid_t *g, int32_t s, int32_t *from, int32_t to, double r2) {
  const double *p = g->sortedPos;
  double x = p[2 * s], y = p[2 * s + 1];
  int32_t i = g->sorted[s];
  int32_t t = *from;
  while (t < to && p[2 * t] < x && (p[2 * t] - x) * (p[2 * t] - x) > r2) t++;
  *from = t;
  for (; t < to; t++) {
    double dx = p[2 * t] - x;
    if (dx * dx > r2) break;
    double dy = p[2 * t + 1] - y;
    if (dx * dx + dy * dy <= r2) {
      grow_pairs(2);
      int32_t j = g->sorted[t];
      pair_buffer[pair_used++] = i < j ? i : j;
      pair_buffer[pair_used++] = i < j ? j : i;
    }
  }
}

/* The half stencil of run_pairs2, every pair collected into pair_buffer. */
static void collect_pairs2(grid_t *g, const double *pos, double r) {
  grid_build(g, pos);
  sort_cells_by_x(g);
  double r2 = r * r;
  pair_used = 0;
  for (int32_t c = 0; c < g->cells; c++) {
    int32_t from = g->start[c], to = g->start[c + 1];
    if (from == to) continue;
    int32_t runEnd, ranges[8];
    int count = gather2(g, c, &runEnd, ranges);
    for (int32_t s = from; s < to; s++) {
      int32_t next = s + 1;
      collect_sweep2(g, s, &next, runEnd, r2);
      for (int q = 0; q < count; q += 2) collect_sweep2(g, s, &ranges[q], ranges[q + 1], r2);
    }
  }
}

/* CSR rows in index order from the collected pairs: count the rows, prefix sums, write each pair into both. */
static void csr_from_pairs(int64_t n) {
  memset(row_count, 0, sizeof(int32_t) * n);
  for (int64_t k = 0; k < pair_used; k++) row_count[pair_buffer[k]]++;
  int64_t used = 0;
  csr_offsets[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    used += row_count[i];
    csr_offsets[i + 1] = (int32_t)used;
    row_count[i] = csr_offsets[i];
  }
  if (used > csr_capacity) {
    csr_capacity = used;
    csr_indices = realloc(csr_indices, sizeof(int32_t) * csr_capacity);
    if (!csr_indices) {
      fprintf(stderr, "out of memory\n");
      exit(1);
    }
  }
  for (int64_t k = 0; k < pair_used; k += 2) {
    int32_t i = pair_buffer[k], j = pair_buffer[k + 1];
    csr_indices[row_count[i]++] = j;
    csr_indices[row_count[j]++] = i;
  }
}

/* Fingerprint of pairs2 over the collected pairs (both directions, plus every point with itself). */
static void pairs_fingerprint(int64_t n) {
  uint32_t sum = 0;
  for (int64_t k = 0; k < pair_used; k += 2)
    sum += 2u * ((uint32_t)pair_buffer[k] + 1) * ((uint32_t)pair_buffer[k + 1] + 1);
  for (int64_t i = 0; i < n; i++) sum += (uint32_t)(i + 1) * (uint32_t)(i + 1);
  result_count = (uint64_t)pair_used + (uint64_t)n;
  result_sum = sum;
}

static void run_collect2(grid_t *g, const double *pos, double r) {
  collect_pairs2(g, pos, r);
  pairs_fingerprint(g->n);
}

static void run_csr2(grid_t *g, const double *pos, double r) {
  collect_pairs2(g, pos, r);
  csr_from_pairs(g->n);
  uint32_t sum = 0;
  for (int64_t i = 0; i < g->n; i++) {
    sum += (uint32_t)(i + 1) * (uint32_t)(i + 1);
    for (int32_t k = csr_offsets[i]; k < csr_offsets[i + 1]; k++) sum += (uint32_t)(i + 1) * (uint32_t)(csr_indices[k] + 1);
  }
  result_count = (uint64_t)csr_offsets[g->n] + (uint64_t)g->n;
  result_sum = sum;
}

static void run_pairs2(grid_t *g, const double *pos, double r) {
  grid_build(g, pos);
  sort_cells_by_x(g);
  double r2 = r * r;
  uint64_t pairs = 0;
  uint32_t sum = 0;
  for (int32_t c = 0; c < g->cells; c++) {
    int32_t from = g->start[c], to = g->start[c + 1];
    if (from == to) continue;
    int32_t runEnd, ranges[8];
    int count = gather2(g, c, &runEnd, ranges);
    for (int32_t s = from; s < to; s++) {
      int32_t next = s + 1;
      sweep2(g, s, &next, runEnd, r2, &pairs, &sum);
      for (int q = 0; q < count; q += 2) sweep2(g, s, &ranges[q], ranges[q + 1], r2, &pairs, &sum);
    }
  }
  for (int64_t i = 0; i < g->n; i++) sum += (uint32_t)(i + 1) * (uint32_t)(i + 1);
  result_count = 2 * pairs + (uint64_t)g->n;
  result_sum = sum;
}

/* The visitor of mode "visit2", called through a function pointer per pair as a library's forEachPair calls a
 * user's callback: it adds the pair to the fingerprint, as the JS rows' counting visitors do. */
typedef struct {
  uint64_t pairs;
  uint32_t sum;
} visit_state_t;

typedef void (*pair_visitor_t)(int32_t i, int32_t j, void *state);

__attribute__((noinline)) static void count_pair(int32_t i, int32_t j, void *state) {
  visit_state_t *v = (visit_state_t *)state;
  v->pairs++;
  v->sum += 2u * ((uint32_t)i + 1) * ((uint32_t)j + 1);
}

/* Read through a volatile: the compiler cannot see which function it is, so it cannot inline the call. */
static pair_visitor_t volatile pair_visitor = count_pair;

/* sweep2, each pair found handed to `visit` as original indices, lower first (as PointGrid2D.forEachPair). */
static inline void visit_sweep2(const grid_t *g, int32_t s, int32_t *from, int32_t to, double r2,
                                pair_visitor_t visit, void *state) {
  const double *p = g->sortedPos;
  double x = p[2 * s], y = p[2 * s + 1];
  int32_t i = g->sorted[s];
  int32_t t = *from;
  while (t < to && p[2 * t] < x && (p[2 * t] - x) * (p[2 * t] - x) > r2) t++;
  *from = t;
  for (; t < to; t++) {
    double dx = p[2 * t] - x;
    if (dx * dx > r2) break;
    double dy = p[2 * t + 1] - y;
    if (dx * dx + dy * dy <= r2) {
      int32_t j = g->sorted[t];
      visit(i < j ? i : j, i < j ? j : i, state);
    }
  }
}

/* Mode "visit2": the search of pairs2, a visitor called through a function pointer for every pair. */
static void run_visit2(grid_t *g, const double *pos, double r) {
  grid_build(g, pos);
  sort_cells_by_x(g);
  double r2 = r * r;
  visit_state_t state = {0, 0};
  pair_visitor_t visit = pair_visitor;
  for (int32_t c = 0; c < g->cells; c++) {
    int32_t from = g->start[c], to = g->start[c + 1];
    if (from == to) continue;
    int32_t runEnd, ranges[8];
    int count = gather2(g, c, &runEnd, ranges);
    for (int32_t s = from; s < to; s++) {
      int32_t next = s + 1;
      visit_sweep2(g, s, &next, runEnd, r2, visit, &state);
      for (int q = 0; q < count; q += 2) visit_sweep2(g, s, &ranges[q], ranges[q + 1], r2, visit, &state);
    }
  }
  uint32_t sum = state.sum;
  for (int64_t i = 0; i < g->n; i++) sum += (uint32_t)(i + 1) * (uint32_t)(i + 1);
  result_count = 2 * state.pairs + (uint64_t)g->n;
  result_sum = sum;
}

/* The candidates [from, to) of sorted point s, each tested without a branch (count2): the hit is a 0 or 1 that
 * the count and the fingerprint are multiplied by, so the loop has no data-dependent branch and vectorizes. */
static inline void count_run2(const grid_t *g, int32_t s, int32_t from, int32_t to, double r2, uint64_t *count,
                              uint32_t *sum) {
  const double *p = g->sortedPos;
  const int32_t *idx = g->sorted;
  double x = p[2 * s], y = p[2 * s + 1];
  uint32_t i1 = 2u * ((uint32_t)idx[s] + 1);
  uint32_t hits = 0, fold = 0;
  for (int32_t t = from; t < to; t++) {
    double dx = p[2 * t] - x, dy = p[2 * t + 1] - y;
    uint32_t hit = dx * dx + dy * dy <= r2;
    hits += hit;
    fold += (0u - hit) & ((uint32_t)idx[t] + 1);
  }
  *count += hits;
  *sum += i1 * fold;
}

/* Mode "count2": the half stencil of gather2 on unsorted cells, every candidate tested (see count_run2). */
static void run_count2(grid_t *g, const double *pos, double r) {
  grid_build(g, pos);
  double r2 = r * r;
  uint64_t pairs = 0;
  uint32_t sum = 0;
  for (int32_t c = 0; c < g->cells; c++) {
    int32_t from = g->start[c], to = g->start[c + 1];
    if (from == to) continue;
    int32_t runEnd, ranges[8];
    int count = gather2(g, c, &runEnd, ranges);
    for (int32_t s = from; s < to; s++) {
      count_run2(g, s, s + 1, runEnd, r2, &pairs, &sum);
      for (int q = 0; q < count; q += 2) count_run2(g, s, ranges[q], ranges[q + 1], r2, &pairs, &sum);
    }
  }
  for (int64_t i = 0; i < g->n; i++) sum += (uint32_t)(i + 1) * (uint32_t)(i + 1);
  result_count = 2 * pairs + (uint64_t)g->n;
  result_sum = sum;
}

static inline void test_range(const grid_t *g, int32_t s, int32_t from, int32_t to, double r2) {
  const double *p = g->sortedPos;
  double x = p[3 * s], y = p[3 * s + 1], z = p[3 * s + 2];
  for (int32_t t = from; t < to; t++) {
    double dx = p[3 * t] - x, dy = p[3 * t + 1] - y, dz = p[3 * t + 2] - z;
    if (dx * dx + dy * dy + dz * dz <= r2) {
      if (pair_used + 2 > pair_capacity) {
        pair_capacity *= 2;
        pair_buffer = realloc(pair_buffer, sizeof(int32_t) * pair_capacity);
        if (!pair_buffer) {
          fprintf(stderr, "out of memory\n");
          exit(1);
        }
      }
      int32_t i = g->sorted[s], j = g->sorted[t];
      if (count_rows) {
        pair_buffer[pair_used++] = i;
        pair_buffer[pair_used++] = j;
        row_count[i]++;
        row_count[j]++;
      } else {
        pair_buffer[pair_used++] = i < j ? i : j;
        pair_buffer[pair_used++] = i < j ? j : i;
      }
    }
  }
}

/* Dense half stencil with reach 1: the rest of the cell and the next cell in
 * its row (one run), the row above (x - 1 .. x + 1, one run), and the 3 rows
 * of the layer above (one run each). Each unordered pair is tested once. */
/* The search of csr3_dense, pairs only (into pair_buffer; row counts when count_rows). */
static void pairs3_dense(grid_t *g, double r);

static void csr3_dense(grid_t *g, double r) {
  pairs3_dense(g, r);
  int64_t used = 0;
  csr_offsets[0] = 0;
  for (int64_t i = 0; i < g->n; i++) {
    used += row_count[i];
    csr_offsets[i + 1] = (int32_t)used;
    row_count[i] = csr_offsets[i]; /* now the row's write cursor */
  }
  if (used > csr_capacity) {
    csr_capacity = used;
    csr_indices = realloc(csr_indices, sizeof(int32_t) * csr_capacity);
    if (!csr_indices) {
      fprintf(stderr, "out of memory\n");
      exit(1);
    }
  }
  for (int64_t k = 0; k < pair_used; k += 2) {
    int32_t i = pair_buffer[k], j = pair_buffer[k + 1];
    csr_indices[row_count[i]++] = j;
    csr_indices[row_count[j]++] = i;
  }
}

static void pairs3_dense(grid_t *g, double r) {
  double r2 = r * r;
  int64_t ex = g->extent[0], ey = g->extent[1], ez = g->extent[2], layer = ex * ey;
  int32_t *start = g->start;
  pair_used = 0;
  memset(row_count, 0, sizeof(int32_t) * g->n);
  for (int64_t cz = 0; cz < ez; cz++)
    for (int64_t cy = 0; cy < ey; cy++)
      for (int64_t cx = 0; cx < ex; cx++) {
        int64_t c = cz * layer + cy * ex + cx;
        int32_t from = start[c], to = start[c + 1];
        if (from == to) continue;
        int64_t left = cx > 0 ? cx - 1 : 0, right = (cx + 1 < ex ? cx + 1 : ex - 1) + 1;
        int32_t runEnd = start[cz * layer + cy * ex + right];
        int32_t ranges[20];
        int count = 0;
        if (cy + 1 < ey) {
          int64_t row = cz * layer + (cy + 1) * ex;
          ranges[count++] = start[row + left];
          ranges[count++] = start[row + right];
        }
        if (cz + 1 < ez)
          for (int64_t oy = cy > 0 ? cy - 1 : 0; oy <= cy + 1 && oy < ey; oy++) {
            int64_t row = (cz + 1) * layer + oy * ex;
            ranges[count++] = start[row + left];
            ranges[count++] = start[row + right];
          }
        for (int32_t s = from; s < to; s++) {
          test_range(g, s, s + 1, runEnd, r2);
          for (int k = 0; k < count; k += 2) test_range(g, s, ranges[k], ranges[k + 1], r2);
        }
      }
}

static void run_collect3(grid_t *g, const double *pos, double r) {
  grid_build(g, pos);
  if (!g->dense) {
    fprintf(stderr, "collect3 needs a dense grid\n");
    exit(2);
  }
  count_rows = 0;
  pairs3_dense(g, r);
  uint32_t sum = 0;
  for (int64_t k = 0; k < pair_used; k += 2)
    sum += 2u * ((uint32_t)pair_buffer[k] + 1) * ((uint32_t)pair_buffer[k + 1] + 1);
  result_count = (uint64_t)pair_used;
  result_sum = sum;
}

static void csr3_hashed(grid_t *g, const double *pos, double r);

static void run_csr3(grid_t *g, const double *pos, double r) {
  grid_build(g, pos);
  if (g->dense) {
    csr3_dense(g, r);
  } else {
    csr3_hashed(g, pos, r);
  }
  /* The fingerprint is one pass over the output; the JS side pays the same. */
  uint32_t sum = 0;
  for (int64_t i = 0; i < g->n; i++)
    for (int32_t k = csr_offsets[i]; k < csr_offsets[i + 1]; k++) sum += (uint32_t)(i + 1) * (uint32_t)(csr_indices[k] + 1);
  result_count = (uint64_t)csr_offsets[g->n];
  result_sum = sum;
}

static void csr3_hashed(grid_t *g, const double *pos, double r) {
  double r2 = r * r;
  int64_t used = 0;
  csr_offsets[0] = 0;
  for (int64_t i = 0; i < g->n; i++) {
    double x = pos[3 * i], y = pos[3 * i + 1], z = pos[3 * i + 2];
    int64_t x0 = (int64_t)floor((x - r - g->origin[0]) / g->cell), x1 = (int64_t)floor((x + r - g->origin[0]) / g->cell);
    int64_t y0 = (int64_t)floor((y - r - g->origin[1]) / g->cell), y1 = (int64_t)floor((y + r - g->origin[1]) / g->cell);
    int64_t z0 = (int64_t)floor((z - r - g->origin[2]) / g->cell), z1 = (int64_t)floor((z + r - g->origin[2]) / g->cell);
    for (int64_t cz = z0; cz <= z1; cz++) {
      for (int64_t cy = y0; cy <= y1; cy++) {
        for (int64_t cx = x0; cx <= x1; cx++) {
          int64_t c[3] = {cx, cy, cz};
          int32_t id = find_cell(g, c);
          if (id < 0) continue;
          int32_t end = g->start[id + 1];
          if (used + (end - g->start[id]) > csr_capacity) {
            csr_capacity = csr_capacity * 2 + (end - g->start[id]);
            csr_indices = realloc(csr_indices, sizeof(int32_t) * csr_capacity);
            if (!csr_indices) {
              fprintf(stderr, "out of memory\n");
              exit(1);
            }
          }
          for (int32_t e = g->start[id]; e < end; e++) {
            double dx = g->sortedPos[3 * e] - x, dy = g->sortedPos[3 * e + 1] - y, dz = g->sortedPos[3 * e + 2] - z;
            if (dx * dx + dy * dy + dz * dz <= r2 && g->sorted[e] != i) csr_indices[used++] = g->sorted[e];
          }
        }
      }
    }
    csr_offsets[i + 1] = (int32_t)used;
  }
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: %s within2|withininto2|pairs2|visit2|count2|visitdense2|collect2|csr2|csr3|collect3 <points.bin> <radius> [timed runs]\n",
            argv[0]);
    return 2;
  }
  const char *mode = argv[1];
  int pairs2 = strcmp(mode, "pairs2") == 0;
  int visit2 = strcmp(mode, "visit2") == 0;
  int count2 = strcmp(mode, "count2") == 0, visitdense2 = strcmp(mode, "visitdense2") == 0;
  int collect2 = strcmp(mode, "collect2") == 0, csr2 = strcmp(mode, "csr2") == 0;
  int collect3 = strcmp(mode, "collect3") == 0;
  int withininto2 = strcmp(mode, "withininto2") == 0;
  int dim = strcmp(mode, "within2") == 0 || withininto2 || pairs2 || visit2 || count2 || visitdense2 || collect2 || csr2 ? 2 : strcmp(mode, "csr3") == 0 || collect3 ? 3 : 0;
  if (!dim) {
    fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
  }
  double r = atof(argv[3]);
  int timed = argc == 5 ? atoi(argv[4]) : 1;
  if (timed < 1 || timed > 1000) {
    fprintf(stderr, "timed runs must be 1 to 1000, got %s\n", argv[4]);
    return 2;
  }
  FILE *f = fopen(argv[2], "rb");
  if (!f) {
    perror(argv[2]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  double *pos = malloc(bytes);
  if (!pos || fread(pos, 1, bytes, f) != (size_t)bytes) {
    fprintf(stderr, "cannot read %s\n", argv[2]);
    return 1;
  }
  fclose(f);
  grid_t g;
  g.dim = dim;
  g.n = bytes / (int64_t)sizeof(double) / dim;
  g.cell = r;
  g.densePerPoint = count2 || visitdense2 ? 16 : 4;
  uint32_t size = 16;
  while (size < 2 * g.n) size <<= 1;
  g.slots = malloc(sizeof(int32_t) * size);
  g.keys = malloc(sizeof(int64_t) * dim * (g.n + 1));
  /* Dense grids have up to densePerPoint * n + 4096 cells. */
  g.start = malloc(sizeof(int32_t) * ((int64_t)g.densePerPoint * g.n + 4096 + 2));
  g.pointCell = malloc(sizeof(int32_t) * g.n);
  g.sorted = malloc(sizeof(int32_t) * g.n);
  g.sortedPos = malloc(sizeof(double) * dim * g.n);
  csr_offsets = malloc(sizeof(int32_t) * (g.n + 1));
  csr_capacity = g.n * 8 + 16;
  csr_indices = malloc(sizeof(int32_t) * csr_capacity);
  pair_capacity = g.n * 8 + 16;
  pair_buffer = malloc(sizeof(int32_t) * pair_capacity);
  row_count = malloc(sizeof(int32_t) * g.n);
  within_out = malloc(sizeof(int32_t) * g.n);
  for (int run = 0; run <= timed; run++) {
    double t0 = now_ms();
    if (pairs2) run_pairs2(&g, pos, r);
    else if (visit2 || visitdense2) run_visit2(&g, pos, r);
    else if (count2) run_count2(&g, pos, r);
    else if (collect2) run_collect2(&g, pos, r);
    else if (csr2) run_csr2(&g, pos, r);
    else if (collect3) run_collect3(&g, pos, r);
    else if (withininto2) run_withininto2(&g, pos, r);
    else if (dim == 2) run_within2(&g, pos, r);
    else run_csr3(&g, pos, r);
    double ms = now_ms() - t0;
    /* Run 0 is untimed: page faults and caches, as the JS rows' warm-up. */
    if (run > 0) printf("%.4f %llu %u\n", ms, (unsigned long long)result_count, result_sum);
  }
  return 0;
}
