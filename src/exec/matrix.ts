/**
 * A column-major matrix registered as tiles (StarPU's block filter): tile (i, j) is a handle
 * holding rows i*tile .. and columns j*tile .. of the user's array, stored contiguously in
 * column-major order with its own leading dimension (the tile's row count), which is the
 * layout the tile kernels take. The user's array is copied into the tiles at registration
 * and the written tiles are copied back after each batch.
 */
import { LocusError } from '../core/types.ts';

/** A float matrix. */
export type TypedMatrix = Float64Array | Float32Array;

/** What a tile handle looks like to the runtime (Data in runtime.ts). */
interface TileData {
  readonly id: number;
  readonly name: string;
  readonly dtype: 'float64' | 'float32' | 'int32' | 'uint8';
  readonly length: number;
}

/** A tiled matrix: its tiles as data handles. */
export class TiledMatrix {
  /** Tile rows. */
  readonly tileRows: number;
  /** Tile columns. */
  readonly tileCols: number;
  private readonly tiles: TileData[] = [];

  constructor(
    /** The user's column-major array. */
    readonly array: TypedMatrix,
    /** Matrix rows. */
    readonly rows: number,
    /** Matrix columns. */
    readonly cols: number,
    /** Tile edge. */
    readonly tile: number,
    /** Name prefix of the tiles ("A" gives A[0,1]). */
    readonly name: string,
    register: (dtype: number, length: number, init: TypedMatrix, name: string) => TileData,
  ) {
    for (const [what, v] of [
      ['rows', rows],
      ['cols', cols],
      ['tile', tile],
    ] as const) {
      if (!Number.isInteger(v) || v < 1)
        throw new LocusError(
          'LOCUS_DATA_INVALID',
          `matrix ${name}: ${what} must be a positive integer (got ${v})`,
        );
    }
    if (array.length !== rows * cols) {
      throw new LocusError(
        'LOCUS_DATA_INVALID',
        `matrix ${name}: the array has ${array.length} elements, not rows x cols = ${rows * cols}`,
      );
    }
    this.tileRows = Math.ceil(rows / tile);
    this.tileCols = Math.ceil(cols / tile);
    const dtype = array instanceof Float64Array ? 0 : 1;
    for (let j = 0; j < this.tileCols; j++) {
      for (let i = 0; i < this.tileRows; i++) {
        const buf = this.extract(i, j);
        this.tiles.push(register(dtype, buf.length, buf, `${name}[${i},${j}]`));
      }
    }
  }

  /** Rows of tile row i. */
  rowsOf(i: number): number {
    return Math.min(this.tile, this.rows - i * this.tile);
  }

  /** Columns of tile column j. */
  colsOf(j: number): number {
    return Math.min(this.tile, this.cols - j * this.tile);
  }

  /** The handle of tile (i, j). */
  at(i: number, j: number): TileData {
    if (!(i >= 0 && i < this.tileRows && j >= 0 && j < this.tileCols)) {
      throw new LocusError(
        'LOCUS_DATA_INVALID',
        `matrix ${this.name}: no tile (${i}, ${j}) in ${this.tileRows} x ${this.tileCols} tiles`,
      );
    }
    return this.tiles[i + j * this.tileRows]!;
  }

  /** Copies tile (i, j) out of the user's array into a new contiguous array. */
  private extract(i: number, j: number): TypedMatrix {
    const m = this.rowsOf(i);
    const n = this.colsOf(j);
    const out = this.array instanceof Float64Array ? new Float64Array(m * n) : new Float32Array(m * n);
    for (let c = 0; c < n; c++) {
      const from = (j * this.tile + c) * this.rows + i * this.tile;
      out.set(this.array.subarray(from, from + m), c * m);
    }
    return out;
  }

  /** Copies the tiles in `written` (handle ids) from their home copies into the user's array. */
  copyOut(written: ReadonlySet<number>, read: (id: number) => ArrayLike<number>): void {
    for (let j = 0; j < this.tileCols; j++) {
      for (let i = 0; i < this.tileRows; i++) {
        const t = this.tiles[i + j * this.tileRows]!;
        if (!written.has(t.id)) continue;
        const src = read(t.id) as TypedMatrix;
        const m = this.rowsOf(i);
        for (let c = 0; c < this.colsOf(j); c++) {
          this.array.set(src.subarray(c * m, (c + 1) * m), (j * this.tile + c) * this.rows + i * this.tile);
        }
      }
    }
  }
}
