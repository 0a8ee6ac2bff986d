/**
 * LU with partial pivoting of a tall panel stored as a column of square tiles (LAPACK's
 * dgetf2 on an m x b panel, m = tiles x b), and the row interchanges it implies on another
 * column of tiles (dlaswp). Row r of the panel is row r mod b of tile floor(r / b). Float64.
 *
 * getf2, for each column c: p = argmax_{r >= c} |A[r, c]|; swap rows c and p of the panel;
 * A[r, c] /= A[c, c] for r > c; A[r, j] -= A[r, c] A[c, j] for r > c, c < j < b.
 */

/** Factorizes the panel in place; ipiv[c] = the panel row swapped with row c. Throws on a zero pivot. */
export function panelGetrf(tiles: readonly Float64Array[], b: number, ipiv: Int32Array): void {
  const m = tiles.length * b;
  const at = (r: number) => tiles[(r / b) | 0]!;
  for (let c = 0; c < b; c++) {
    let p = c;
    let best = Math.abs(at(c)[(c % b) + c * b]!);
    for (let r = c + 1; r < m; r++) {
      const v = Math.abs(at(r)[(r % b) + c * b]!);
      if (v > best) {
        best = v;
        p = r;
      }
    }
    if (best === 0) throw new Error(`getrf: the matrix is singular (column ${c} of the panel is zero)`);
    ipiv[c] = p;
    if (p !== c) swapRows(tiles, b, c, p);
    const diagTile = at(c);
    const pivot = diagTile[(c % b) + c * b]!;
    for (let r = c + 1; r < m; r++) {
      const t = at(r);
      const i = r % b;
      const l = t[i + c * b]! / pivot;
      t[i + c * b] = l;
      if (l === 0) continue;
      for (let j = c + 1; j < b; j++) t[i + j * b]! -= l * diagTile[(c % b) + j * b]!;
    }
  }
}

/** Swaps rows r1 and r2 (panel row numbers) over all b columns of a column of tiles. */
function swapRows(tiles: readonly Float64Array[], b: number, r1: number, r2: number): void {
  const t1 = tiles[(r1 / b) | 0]!;
  const t2 = tiles[(r2 / b) | 0]!;
  const i1 = r1 % b;
  const i2 = r2 % b;
  for (let j = 0; j < b; j++) {
    const x = t1[i1 + j * b]!;
    t1[i1 + j * b] = t2[i2 + j * b]!;
    t2[i2 + j * b] = x;
  }
}

/** Applies a panel's interchanges (ipiv, in order) to another column of tiles (dlaswp). */
export function laswp(tiles: readonly Float64Array[], b: number, ipiv: Int32Array): void {
  for (let c = 0; c < b; c++) {
    const p = ipiv[c]!;
    if (p !== c) swapRows(tiles, b, c, p);
  }
}
