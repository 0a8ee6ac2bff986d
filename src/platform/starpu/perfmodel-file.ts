/**
 * Reads a StarPU history-based performance model file (`$STARPU_HOME/.starpu/sampling/codelets/
 * 45/<symbol>.<host>`, model format version 45, the one StarPU 1.3 and 1.4 write): for each
 * combination of devices (a CPU core, CUDA device 1, ...), each implementation's measured
 * history: per data footprint, its total size in bytes, its flops when the codelet gave them,
 * the mean duration and the sample count. The regression parameters are read past, not used.
 *
 * The layout, after dropping comment lines (`#`): the version; the number of combinations; per
 * combination, its device count and each device's type (0 CPU, 1 CUDA, 2 OpenCL, 3 MIC), id and
 * core count; its implementation count; per implementation, its entry count, a line of 9
 * regression sums, a line of 3 non-linear parameters, a coefficient count followed by that many
 * coefficients (some files of StarPU's own sampling have the count before the 3 parameters),
 * then one line per entry: hash, size, flops, mean (us), deviation (us), sum,
 * sum of squares, samples (7 columns without flops in older files). Cost: linear in the file.
 */
import { LocusError } from '../../core/types.ts';

/** One measured footprint of a history. */
export interface PerfmodelEntry {
  /** StarPU's footprint hash (hexadecimal). */
  hash: string;
  /** Total bytes of the task's data. */
  size: number;
  /** Flops of the task (0 when the codelet gave none). */
  flops: number;
  /** Mean duration in microseconds. */
  meanUs: number;
  /** Samples behind the mean. */
  samples: number;
}

/** A device of a combination. */
export interface PerfmodelDevice {
  /** 'cpu', 'cuda', 'opencl' or 'mic'. */
  type: 'cpu' | 'cuda' | 'opencl' | 'mic';
  /** Device id (the CUDA device number; 0 for CPU cores). */
  id: number;
  /** Cores (a CPU worker of several cores is a parallel task's team). */
  cores: number;
}

/** One combination of devices and its implementations' histories. */
export interface PerfmodelArch {
  devices: PerfmodelDevice[];
  /** Per implementation, its history entries. */
  implementations: PerfmodelEntry[][];
}

/** A parsed model file. */
export interface PerfmodelFile {
  version: number;
  archs: PerfmodelArch[];
}

const DEVICE_TYPES = ['cpu', 'cuda', 'opencl', 'mic'] as const;

/** Parses the text of a model file; `name` names it in errors (one line, with the line number). */
export function parsePerfmodel(text: string, name: string): PerfmodelFile {
  const lines: { no: number; tokens: string[] }[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    lines.push({ no: i + 1, tokens: line.split(/\s+/) });
  });
  let at = 0;
  const fail = (what: string): never => {
    const where = at < lines.length ? `line ${lines[at]!.no}` : 'the end of the file';
    throw new LocusError(
      'LOCUS_PLATFORM_INVALID',
      `${name}: ${what} at ${where}: not a StarPU performance model (format 45)`,
    );
  };
  const line = (): string[] => {
    if (at >= lines.length) fail('the file ends early');
    return lines[at++]!.tokens;
  };
  const integer = (what: string): number => {
    const t = line();
    const v = Number(t[0]);
    if (t.length !== 1 || !Number.isInteger(v) || v < 0) {
      at--;
      fail(`expected ${what}`);
    }
    return v;
  };
  const version = integer('the model version');
  if (version !== 45) {
    at--;
    fail(`model version ${version} (only version 45 is read)`);
  }
  const archs: PerfmodelArch[] = [];
  const ncombs = integer('the number of combinations');
  for (let c = 0; c < ncombs; c++) {
    const devices: PerfmodelDevice[] = [];
    const ndev = integer('a device count');
    for (let d = 0; d < ndev; d++) {
      const type = DEVICE_TYPES[integer('a device type')];
      if (type === undefined) {
        at--;
        fail('a device type outside 0-3');
      }
      devices.push({ type: type!, id: integer('a device id'), cores: integer('a core count') });
    }
    const implementations: PerfmodelEntry[][] = [];
    const nimpl = integer('an implementation count');
    for (let k = 0; k < nimpl; k++) {
      const nentries = integer('an entry count');
      if (line().length < 9) {
        at--;
        fail('expected the 9 linear regression figures');
      }
      // The 3 non-linear figures and the multiple regression's coefficient count (then that
      // many coefficients), in this order; some StarPU versions wrote the count first.
      let nonLinear = false;
      let counted = false;
      while (!(nonLinear && counted)) {
        const t = line();
        const n = Number(t[0]);
        if (!counted && Number.isInteger(n) && n >= 0 && (t.length === 1 + n || (t.length === 1 && n > 0))) {
          counted = true;
          let left = n - (t.length - 1);
          while (left > 0) left -= line().length;
        } else if (!nonLinear && t.length === 3) {
          nonLinear = true;
        } else {
          at--;
          fail('expected the 3 non-linear regression figures and a coefficient count');
        }
      }
      const entries: PerfmodelEntry[] = [];
      for (let e = 0; e < nentries; e++) {
        const t = line();
        if (t.length !== 8 && t.length !== 7) {
          at--;
          fail(`expected a history entry of 7 or 8 columns (got ${t.length})`);
        }
        const withFlops = t.length === 8;
        const entry: PerfmodelEntry = {
          hash: t[0]!,
          size: Number(t[1]),
          flops: withFlops ? Number(t[2]) : 0,
          meanUs: Number(t[withFlops ? 3 : 2]),
          samples: Number(t[withFlops ? 7 : 6]),
        };
        if (
          !(Number.isFinite(entry.size) && Number.isFinite(entry.meanUs) && Number.isFinite(entry.samples))
        ) {
          at--;
          fail('a history entry that is not numbers');
        }
        entries.push(entry);
      }
      implementations.push(entries);
    }
    archs.push({ devices, implementations });
  }
  return { version, archs };
}
