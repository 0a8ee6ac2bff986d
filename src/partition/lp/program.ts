/**
 * A small linear program in row form, kept independent of the solver so that the same program can
 * be handed to yalps (at run time) and written in CPLEX LP format for HiGHS (the test oracle, and
 * the fallback where yalps cycles).
 * Every variable is non-negative; the objective is minimised.
 */
import { type Constraint, type Model, solve } from 'yalps';
import { LocusError } from '../../core/types.ts';
import { solveWithHighs } from './highs-fallback.ts';

/** One row: `sum(coefficients[i] * x[variables[i]])` bounded by `max`, or equal to `equal`. */
export interface LpRow {
  /** Row name, for LP files and errors. */
  readonly name: string;
  /** Indices of the variables with a non-zero coefficient. */
  readonly variables: number[];
  /** Their coefficients, in the same order. */
  readonly coefficients: number[];
  /** `<=` or `=`. */
  readonly sense: 'le' | 'eq';
  /** The right-hand side. */
  readonly rhs: number;
}

/** A minimisation over non-negative variables. */
export interface LinearProgram {
  /** Variable names (unique). */
  readonly names: string[];
  /** Objective coefficient of each variable. */
  readonly objective: number[];
  /** The constraints. */
  readonly rows: LpRow[];
}

/** An optimal point of a LinearProgram. */
export interface LpSolution {
  /** Value of each variable, by index. */
  readonly values: Float64Array;
  /** The objective at that point. */
  readonly objective: number;
}

/** An empty program to add variables and rows to. */
export function emptyProgram(): LinearProgram {
  return { names: [], objective: [], rows: [] };
}

/** Adds a variable with its objective coefficient and returns its index. */
export function addVariable(p: LinearProgram, name: string, cost: number): number {
  p.names.push(name);
  p.objective.push(cost);
  return p.names.length - 1;
}

/** Adds a row (terms on the same variable are summed; zero coefficients are dropped). */
export function addRow(
  p: LinearProgram,
  name: string,
  terms: readonly (readonly [number, number])[],
  sense: 'le' | 'eq',
  rhs: number,
): void {
  const variables: number[] = [];
  const coefficients: number[] = [];
  for (const [v, c] of terms) {
    const i = variables.indexOf(v);
    if (i < 0) {
      variables.push(v);
      coefficients.push(c);
    } else coefficients[i] = coefficients[i]! + c;
  }
  for (let i = variables.length - 1; i >= 0; i--) {
    if (coefficients[i] === 0) {
      variables.splice(i, 1);
      coefficients.splice(i, 1);
    }
  }
  p.rows.push({ name, variables, coefficients, sense, rhs });
}

/** The objective's value at `values`. */
export function objectiveAt(p: LinearProgram, values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < p.objective.length; i++) s += p.objective[i]! * values[i]!;
  return s;
}

/** The yalps model of `p` (variables and constraints keyed by index, objective "obj"). */
export function toYalps(p: LinearProgram): Model<number, number | 'obj'> {
  const columns: [number | 'obj', number][][] = p.names.map((_, i) => [['obj', p.objective[i]!]]);
  const constraints: [number, Constraint][] = [];
  p.rows.forEach((row, r) => {
    constraints.push([r, row.sense === 'eq' ? { equal: row.rhs } : { max: row.rhs }]);
    for (let i = 0; i < row.variables.length; i++)
      columns[row.variables[i]!]!.push([r, row.coefficients[i]!]);
  });
  return {
    direction: 'minimize',
    objective: 'obj',
    constraints,
    variables: columns.map((c, i) => [i, c] as const),
  };
}

/**
 * Solves `p` with yalps (dense simplex, checking for cycles), or, where yalps cycles or gives
 * up, with HiGHS (./highs-fallback.ts). Throws a LocusError when neither finds an optimum
 * (never for the systems of this folder, which are always feasible and bounded below by 0).
 */
export function solveProgram(p: LinearProgram): LpSolution {
  const s = solve(toYalps(p), { includeZeroVariables: true, maxPivots: 100_000, checkCycles: true });
  const values = new Float64Array(p.names.length);
  if (s.status === 'optimal') {
    for (const [i, v] of s.variables) values[i] = v;
  } else {
    const h = solveWithHighs(toLpFormat(p));
    if (h.status !== 'Optimal') {
      throw new LocusError(
        'LOCUS_STATE_INVALID',
        `partitioning LP: yalps answered '${s.status}' and HiGHS '${h.status}' for ${p.names.length} variables and ${p.rows.length} rows; check the measured times and transfer coefficients are finite and non-negative`,
      );
    }
    for (let i = 0; i < values.length; i++) values[i] = Math.max(0, h.values[`x${i}`] ?? 0);
  }
  return { values, objective: objectiveAt(p, values) };
}

/** `p` in CPLEX LP format (as HiGHS reads it); variables are named x0, x1, ... */
export function toLpFormat(p: LinearProgram): string {
  const term = (c: number, v: number) => `${c < 0 ? '-' : '+'} ${Math.abs(c)} x${v}`;
  const obj = p.objective.map((c, i) => term(c, i)).join(' ');
  const rows = p.rows.map((row, r) => {
    const lhs = row.variables.length
      ? row.variables.map((v, i) => term(row.coefficients[i]!, v)).join(' ')
      : `0 x0`;
    return ` r${r}: ${lhs} ${row.sense === 'eq' ? '=' : '<='} ${row.rhs}`;
  });
  return ['Minimize', ` obj: ${obj}`, 'Subject To', ...rows, 'End', ''].join('\n');
}
