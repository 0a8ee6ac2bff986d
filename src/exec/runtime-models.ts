/**
 * A Runtime's performance models (src/perf): where they are stored, the duration model each
 * engine gets (calibrated models when there are any, else the platform's rates), and the
 * measurements a real run saves. A model that cannot be read or saved costs a warning, never
 * the run's results.
 */
import type { TaskGraph } from '../core/graph.ts';
import { type DurationModel, PlatformModel } from '../core/model.ts';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import type { HistoryModel, Sample } from '../perf/history.ts';
import { realMachineName } from '../perf/machine-name.ts';
import { type BusPair, CalibratedModel } from '../perf/model.ts';
import { ModelStore, machineDir } from '../perf/store.ts';

/** What the models read from the runtime's options. */
export interface ModelOptions {
  perfModels?: 'update' | 'read' | 'off' | undefined;
  perfModelDir?: string | undefined;
  calibrate?: boolean | undefined;
  minSamples?: number | undefined;
}

/** The performance models of one runtime. */
export class RuntimeModels {
  private history: HistoryModel | undefined;
  private store: ModelStore | undefined;
  private bus: BusPair[] | undefined;

  /**
   * `machine` is the store's machine name (realMachineName, or a WebGPU machine's), `busName`
   * the name its bus model is saved under (the platform's; a WebGPU machine's own).
   */
  constructor(
    private readonly platform: Platform,
    private readonly realMode: boolean,
    private readonly warn: (message: string) => void,
    private readonly machine: string = realMachineName(platform.name),
    private readonly busName: string = platform.name,
  ) {}

  /** Whether and how `options` use performance models (real mode: update; simulated: read). */
  mode(options: ModelOptions): 'update' | 'read' | 'off' {
    return options.perfModels ?? (this.realMode ? 'update' : 'read');
  }

  /** The duration model for `graph`: calibrated models when there are any, else the platform's rates. */
  durationModel(graph: TaskGraph, options: ModelOptions): DurationModel {
    if (this.mode(options) === 'off') return new PlatformModel(this.platform, graph);
    if (this.history === undefined) {
      // A model file that cannot be read costs its codelet's (or the bus's) model, not the run.
      const store = this.modelStore(options);
      this.history = store.loadHistory((m) => this.warn(`${m}; its model is ignored`));
      try {
        this.bus = store.loadBus(this.busName)?.pairs;
      } catch (e) {
        if (!(e instanceof LocusError)) throw e;
        this.warn(`${e.message}; the bus model is ignored`);
      }
    }
    if (this.history.codelets().length === 0 && !options.calibrate && this.bus === undefined) {
      return new PlatformModel(this.platform, graph);
    }
    return new CalibratedModel(this.platform, graph, this.history, this.bus, {
      minSamples: options.minSamples,
    });
  }

  /** Records `samples` into the models and saves them (a failure to save is a warning). */
  save(samples: readonly Sample[], options: ModelOptions): void {
    if (samples.length === 0) return;
    for (const sample of samples) this.history?.record(sample);
    try {
      this.modelStore(options).saveSamples(samples);
    } catch (e) {
      if (!(e instanceof LocusError)) throw e;
      this.warn(`performance models not saved: ${e.message}`);
    }
  }

  /** The models' folder, opened on first use. */
  private modelStore(options: ModelOptions): ModelStore {
    this.store ??= new ModelStore(machineDir(options.perfModelDir ?? ModelStore.defaultDir(), this.machine));
    return this.store;
  }
}
