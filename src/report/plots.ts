/**
 * The two plots of seed 000's Figures 2 and 3, as vega-lite specs rendered headless to SVG
 * and, through resvg, to PNG:
 *
 * (a) throughput (GFlop/s) against the working set, one line per policy (mean over the
 *     repetitions, min-max error bars when there are several), its y axis over the data's
 *     range, with a dashed horizontal line at the workers' summed peak rate for the kernel
 *     when the peak falls in that range (the caption gives it otherwise);
 * (b) data transferred to the devices against the working set, with the "bus limit" curve:
 *     what the host link can move during the minimum compute time (total flops / summed peak
 *     rate), above which a policy is necessarily bus-bound. Log y axis when the plotted
 *     values span more than 100x.
 *
 * Both carry labelled dashed vertical lines at given working sets (where the data fit in the
 * GPUs' cumulated memory, ...). As figures for a paper, the images have no title: each plot
 * comes with a caption (plotCaptions) to set outside it. Sizes are in GiB (2^30 bytes), as in
 * the sweep's tables, rates in GFlop/s. Each policy has a fixed colour, hollow marker, marker
 * size and dash (policyStyle), the same in every plot, so that lines differ in grayscale too
 * and curves that coincide (eager under dmdar) still show every marker.
 *
 * Over 500 lines: two vega-lite specs with their styling (colours, markers, dashes per policy)
 * and the rendering; mostly declarative spec objects.
 */
import type { TopLevelSpec } from 'vega-lite';
import { type Platform, routeOf, workerRate } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { formatBandwidth, formatBytes, formatRate } from '../platform/units.ts';
import type { SweepResult } from './sweep.ts';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

/** A labelled vertical line at a working set. */
export interface VLine {
  /** Working set where the line stands, bytes. */
  workingSetBytes: number;
  /** Its label ("both matrices fit"). */
  label: string;
  /** CSS colour. */
  color: string;
}

/** What the plots show beyond the sweep's rows. */
export interface PlotOptions {
  /** Title of the figure, for the captions (each plot's adds what it shows). */
  title: string;
  /** The captions' second sentence; default: the workload, platform, repetitions and charging. */
  subtitle?: string;
  /** Codelet whose rate gives the peak line (default: the one with the most flops). */
  kernel?: string;
  /**
   * Vertical lines; default: where the working set equals the GPUs' cumulated memory. Lines
   * beyond 1.1 x the largest working set swept are left out.
   */
  lines?: VLine[];
}

/** One point of a policy's curve (mean, min and max over the repetitions). */
export interface PlotPoint {
  policy: string;
  tiles: number;
  /** Working set, GiB. */
  ws: number;
  gflops: number;
  gflopsMin: number;
  gflopsMax: number;
  /** Data moved to the devices, GiB. */
  gib: number;
  gibMin: number;
  gibMax: number;
}

/** Everything the two plots draw, in plot units. */
export interface PlotModel {
  title: string;
  subtitle: string;
  /** Policy labels in legend order. */
  policies: string[];
  points: PlotPoint[];
  /** Largest repetition count (error bars when > 1). */
  reps: number;
  peak?: { gflops: number; label: string };
  busLimit?: { points: { ws: number; gib: number }[]; label: string };
  lines: { ws: number; label: string; color: string }[];
}

/** A rendered plot. */
export interface RenderedPlot {
  spec: TopLevelSpec;
  svg: string;
  png: Buffer;
  /** What the plot shows, to set under it ('' when its image carries its own title). */
  caption: string;
}

/** The two plots of a sweep. */
export interface SweepPlots {
  gflops: RenderedPlot;
  transfers: RenderedPlot;
}

/** Policy colours: no pure red, orange or green, which the vertical lines use. */
const PALETTE = ['#1f77b4', '#9467bd', '#8c564b', '#17becf', '#e377c2', '#bcbd22', '#7f7f7f', '#393b79'];
/** Point markers (vega shape names), so that lines differ in grayscale too. */
const SHAPES = ['circle', 'square', 'triangle-up', 'diamond', 'cross', 'triangle-down'];
/** Line dashes (stroke, gap, ...; [1, 0] is solid). */
const DASHES: number[][] = [
  [1, 0],
  [8, 4],
  [2, 3],
  [8, 3, 2, 3],
];
/** Styles in all: every combination of PALETTE, SHAPES and DASHES index i once (lcm 24). */
const STYLE_COUNT = 24;

/**
 * The policies given fixed styles, in order: those of the seeds' figures first, so that each
 * keeps its colour, marker and dash in every plot whatever else a sweep compares it with.
 */
const KNOWN_POLICIES = [
  'eager',
  'dmdar',
  'darts',
  'darts+luf',
  'dmda',
  'dmdas',
  'random',
  'static',
  'dm',
  'ws',
  'prio',
  'supermatrix',
  'heft-tm',
  'heft-tm-pr',
  'heft-tmdp',
  'heft-tmdp-pr',
  'darts+lru',
  'eager+belady',
  'eager+fifo',
  'dmdar+luf',
  'darts+belady',
  'random+fifo',
  'heft-tm-init',
  'heft-tmdp-init',
];

/** How one policy is drawn. */
export interface PolicyStyle {
  color: string;
  shape: string;
  /** Vega strokeDash array. */
  dash: number[];
  /** Marker area, square pixels: markers of curves that coincide nest instead of hiding. */
  size: number;
}

/** Marker areas (square pixels), cycled with the styles: at most 3 curves nest per point. */
const SIZES = [130, 70, 30];

/**
 * The style of a policy label, the same in every plot: a fixed one for the known labels, else
 * one picked by a hash of the label (after the known ones' styles).
 */
export function policyStyle(label: string): PolicyStyle {
  let i = KNOWN_POLICIES.indexOf(label);
  if (i < 0) {
    let h = 0;
    for (const ch of label) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
    i = h % STYLE_COUNT;
  }
  return {
    color: PALETTE[i % PALETTE.length]!,
    shape: SHAPES[i % SHAPES.length]!,
    dash: DASHES[i % DASHES.length]!,
    size: SIZES[i % SIZES.length]!,
  };
}

/** Summed capacity of the GPU memory nodes, bytes (0 when there are none or one is unlimited). */
export function cumulatedGpuMemory(p: Platform): number {
  let total = 0;
  for (const n of p.nodes) if (n.kind === 'gpu') total += n.capacity;
  return Number.isFinite(total) ? total : 0;
}

/** Summed rate of the workers for `kernel` (flop/s), with a label saying what it sums. */
export function peakRate(p: Platform, kernel: string): { flops: number; label: string } {
  const byKind = new Map<string, { count: number; rates: Set<number>; total: number }>();
  let flops = 0;
  for (const w of p.workers) {
    const r = workerRate(w, kernel);
    flops += r;
    const k = byKind.get(w.kind) ?? { count: 0, rates: new Set<number>(), total: 0 };
    k.count++;
    k.rates.add(r);
    k.total += r;
    byKind.set(w.kind, k);
  }
  const parts = [...byKind.entries()].map(([kind, k]) => {
    const name = `${k.count} ${kind.toUpperCase()}${k.count > 1 ? 's' : ''}`;
    return k.rates.size === 1
      ? `${name} x ${formatRate(k.total / k.count)}`
      : `${name}: ${formatRate(k.total)}`;
  });
  const sum =
    parts.length === 1 && byKind.values().next().value!.count === 1 ? '' : ` = ${formatRate(flops)}`;
  return { flops, label: `peak ${kernel}: ${parts.join(' + ')}${sum}` };
}

/**
 * The host link a bus limit uses: the link named 'host-bus' (shared by every host transfer),
 * else the fastest route from the host to a GPU (its slowest link).
 */
export function hostBus(p: Platform): { bandwidth: number; name: string } | undefined {
  const shared = p.links.find((l) => l.name === 'host-bus');
  if (shared) return { bandwidth: shared.bandwidth, name: shared.name };
  let best: { bandwidth: number; name: string } | undefined;
  p.nodes.forEach((n, i) => {
    if (n.kind !== 'gpu') return;
    const route = routeOf(p, p.homeNode, i);
    if (!route || route.length === 0) return;
    let bw = Number.POSITIVE_INFINITY;
    let name = '';
    for (const l of route) {
      if (p.links[l]!.bandwidth < bw) {
        bw = p.links[l]!.bandwidth;
        name = p.links[l]!.name;
      }
    }
    if (!best || bw > best.bandwidth) best = { bandwidth: bw, name };
  });
  return best;
}

/** The codelet with the most flops in the largest instance. */
function dominantKernel(result: SweepResult): string | undefined {
  const last = result.sizes.at(-1);
  if (!last) return undefined;
  let best: string | undefined;
  for (const [name, f] of Object.entries(last.codeletFlops)) {
    if (best === undefined || f > last.codeletFlops[best]!) best = name;
  }
  return best;
}

/** A memory capacity in whole MiB when it is one below 1 TiB ("2000 MiB", not "1.953 GiB"). */
function capacity(bytes: number): string {
  return Number.isInteger(bytes / MiB) && bytes < 2 ** 40 ? `${bytes / MiB} MiB` : formatBytes(bytes);
}

/** "matmul2d (blocks 960x3840, single, outputs discarded) on v100x2: 2 GPUs x 500 MiB; 1 run per point, seed 1". */
export function describeSweep(result: SweepResult): string {
  const s = result.spec;
  const first = result.sizes[0];
  const detail = first
    ? first.summary
        .split(':')[0]!
        .replace(/^\S+\s+/, '') // the generator's name
        .replace(/^\d+x\d+ (tasks, )?/, '') // the size, which varies
        .trim()
    : '';
  const p = result.platform;
  const gpus = p.nodes.filter((n) => n.kind === 'gpu');
  const cpus = p.workers.filter((w) => w.kind === 'cpu').length;
  const machine = [
    gpus.length > 0 ? `${gpus.length} GPU${gpus.length > 1 ? 's' : ''} x ${capacity(gpus[0]!.capacity)}` : '',
    cpus > 0 ? `${cpus} CPU core${cpus > 1 ? 's' : ''}` : '',
  ]
    .filter((x) => x !== '')
    .join(' + ');
  const runs =
    s.reps > 1 ? `mean of ${s.reps} runs (seeds ${s.seed}-${s.seed + s.reps - 1})` : `seed ${s.seed}`;
  const extra = [
    s.priorities === 'bottom-level' ? 'bottom-level priorities' : '',
    s.noise > 0 ? `noise ${s.noise}` : '',
    s.chargeScheduling ? 'scheduling cost charged' : '',
  ].filter((x) => x !== '');
  return `${s.workload}${detail ? ` (${detail})` : ''} on ${p.name}: ${machine}; ${[runs, ...extra].join(', ')}`;
}

/** Computes what the plots draw from a sweep. */
export function plotModel(result: SweepResult, o: PlotOptions): PlotModel {
  const points: PlotPoint[] = result.summary.map((r) => ({
    policy: r.policy,
    tiles: r.tiles,
    ws: r.workingSetBytes / GiB,
    gflops: r.gflopsMean,
    gflopsMin: r.gflopsMin,
    gflopsMax: r.gflopsMax,
    gib: r.bytesToDevicesMean / GiB,
    gibMin: r.bytesToDevicesMin / GiB,
    gibMax: r.bytesToDevicesMax / GiB,
  }));
  const kernel = o.kernel ?? dominantKernel(result);
  const peak = kernel ? peakRate(result.platform, kernel) : undefined;
  const bus = hostBus(result.platform);
  let busLimit: PlotModel['busLimit'];
  if (peak && peak.flops > 0 && bus) {
    busLimit = {
      points: result.sizes.map((s) => ({
        ws: s.workingSetBytes / GiB,
        gib: ((s.totalFlops / peak.flops) * bus.bandwidth) / GiB,
      })),
      label: `bus limit: ${formatBandwidth(bus.bandwidth)} (${bus.name}) x minimum compute time`,
    };
  }
  const gpuMem = cumulatedGpuMemory(result.platform);
  const maxWs = Math.max(0, ...result.sizes.map((s) => s.workingSetBytes));
  const lines =
    o.lines ??
    (gpuMem > 0 ? [{ workingSetBytes: gpuMem, label: 'all data fit in the GPUs', color: '#2ca02c' }] : []);
  return {
    title: o.title,
    subtitle: o.subtitle ?? describeSweep(result),
    policies: result.spec.policies.map((p) => p.label),
    points,
    reps: Math.max(1, ...result.summary.map((r) => r.reps)),
    peak: peak && peak.flops > 0 ? { gflops: peak.flops / 1e9, label: peak.label } : undefined,
    busLimit,
    // A line far right of the data would squeeze the curves into the left of the plot.
    lines: lines
      .filter((l) => l.workingSetBytes <= 1.1 * maxWs)
      .map((l) => ({ ws: l.workingSetBytes / GiB, label: l.label, color: l.color })),
  };
}

// ------------------------------------------------------------------------------ vega-lite specs

type Layer = Record<string, unknown>;

const X_TITLE = 'Working set (GiB)';
/** Size of the plot area, pixels. */
const PLOT_W = 640;
const PLOT_H = 400;

/** An encoding of the policy on `channel`'s fixed per-policy styles (one merged legend). */
function policyEncoding(m: PlotModel, range: (s: PolicyStyle) => unknown) {
  return {
    field: 'policy',
    type: 'nominal',
    title: 'Policy',
    scale: { domain: m.policies, range: m.policies.map((p) => range(policyStyle(p))) },
    sort: m.policies,
  };
}

function colorEncoding(m: PlotModel) {
  return policyEncoding(m, (s) => s.color);
}

/** Whether vertical line i stands within a tenth of the x range of line i - 1 (labels would overlap). */
function closeToPrevious(m: PlotModel, i: number): boolean {
  if (i === 0) return false;
  const xs = [...m.points.map((p) => p.ws), ...m.lines.map((l) => l.ws)];
  const span = Math.max(...xs);
  return Math.abs(m.lines[i]!.ws - m.lines[i - 1]!.ws) < span / 10;
}

/** Dashed vertical lines, labelled above the plot area. */
function verticalLines(m: PlotModel): Layer[] {
  return m.lines.flatMap((l, i) => [
    {
      data: { values: [{ ws: l.ws }] },
      mark: { type: 'rule', strokeDash: [6, 4], strokeWidth: 1.5, color: l.color },
      encoding: { x: { field: 'ws', type: 'quantitative' } },
    },
    {
      data: { values: [{ ws: l.ws, label: l.label }] },
      // Above the plot area, centred on the line; alternate rows when lines are close.
      mark: {
        type: 'text',
        align: 'center',
        baseline: 'bottom',
        dy: -4 - (closeToPrevious(m, i) ? 14 : 0),
        fontSize: 11,
        fontWeight: 'bold',
        color: l.color,
      },
      encoding: { x: { field: 'ws', type: 'quantitative' }, y: { value: 0 }, text: { field: 'label' } },
    },
  ]);
}

/** The lines and points of the policies, with min-max error bars when repeated. */
function policyLayers(m: PlotModel, y: 'gflops' | 'gib', yAxis: Record<string, unknown>): Layer[] {
  const values = m.points.filter(
    (p) => (yAxis.scale as { type?: string } | undefined)?.type !== 'log' || p[y] > 0,
  );
  const layers: Layer[] = [];
  if (m.reps > 1) {
    layers.push({
      data: { values },
      mark: { type: 'errorbar', ticks: true },
      encoding: {
        x: { field: 'ws', type: 'quantitative' },
        y: { field: `${y}Min`, type: 'quantitative', ...yAxis },
        y2: { field: `${y}Max` },
        color: colorEncoding(m),
      },
    });
  }
  layers.push(
    {
      data: { values },
      mark: { type: 'line', strokeWidth: 2 },
      encoding: {
        x: { field: 'ws', type: 'quantitative', title: X_TITLE, axis: { format: ',.3~g' } },
        y: { field: y, type: 'quantitative', ...yAxis },
        color: colorEncoding(m),
        strokeDash: policyEncoding(m, (s) => s.dash),
        order: { field: 'ws', type: 'quantitative' },
      },
    },
    {
      data: { values },
      // Hollow markers of per-policy sizes: where curves coincide, every marker shows.
      mark: { type: 'point', filled: false, strokeWidth: 1.8, opacity: 1 },
      encoding: {
        x: { field: 'ws', type: 'quantitative' },
        y: { field: y, type: 'quantitative' },
        color: colorEncoding(m),
        shape: policyEncoding(m, (s) => s.shape),
        size: policyEncoding(m, (s) => s.size),
      },
    },
  );
  return layers;
}

/** The spec around the layers: no title (the caption says what the plot shows). */
function topLevel(layers: Layer[]): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    background: 'white',
    // Room above the plot area for the vertical lines' labels.
    padding: { left: 12, right: 12, top: 36, bottom: 12 },
    width: PLOT_W,
    height: PLOT_H,
    config: {
      font: 'sans-serif',
      axis: { labelFontSize: 11, titleFontSize: 12, grid: true, gridColor: '#e6e6e6' },
      legend: { labelFontSize: 11, titleFontSize: 12, symbolStrokeWidth: 2, symbolOpacity: 1 },
      view: { stroke: '#bbb' },
    },
    layer: layers,
    resolve: { scale: { color: 'shared', shape: 'shared', strokeDash: 'shared', size: 'shared' } },
  } as unknown as TopLevelSpec;
}

/** The throughput axis' range: the data's, rounded out to nice values by the plot. */
export function gflopsRange(m: PlotModel): [number, number] | undefined {
  const ys = m.points.flatMap((p) => [p.gflopsMin, p.gflops, p.gflopsMax]);
  if (ys.length === 0) return undefined;
  return [Math.min(...ys), Math.max(...ys)];
}

/** Whether the peak line falls in the throughput axis' range (else only the caption gives it). */
export function peakShown(m: PlotModel): boolean {
  const range = gflopsRange(m);
  if (m.peak === undefined || range === undefined) return false;
  const [lo, hi] = range;
  // The plot's nice rounding adds some room above the data: a peak just above it is drawn.
  return m.peak.gflops >= lo && m.peak.gflops <= hi + 0.1 * (hi - lo || hi);
}

/** Plot (a): throughput against the working set, over the data's range, with the peak line. */
export function gflopsSpec(m: PlotModel): TopLevelSpec {
  const showPeak = peakShown(m);
  const range = gflopsRange(m);
  const top = showPeak && range ? Math.max(range[1], m.peak!.gflops) : range?.[1];
  const yAxis = {
    title: 'Throughput (GFlop/s)',
    axis: { format: ',d' },
    scale:
      range && top !== undefined
        ? { zero: false, nice: true, domain: [range[0], top === range[0] ? top + 1 : top] }
        : { zero: true },
  };
  const layers: Layer[] = [];
  if (showPeak) {
    layers.push(
      {
        data: { values: [{ gflops: m.peak!.gflops }] },
        mark: { type: 'rule', strokeDash: [6, 4], strokeWidth: 1.5, color: 'black' },
        encoding: { y: { field: 'gflops', type: 'quantitative' } },
      },
      {
        data: { values: [{ gflops: m.peak!.gflops, label: m.peak!.label }] },
        mark: { type: 'text', align: 'right', baseline: 'bottom', dx: -4, dy: -4, fontSize: 11 },
        encoding: {
          x: { value: 'width' },
          y: { field: 'gflops', type: 'quantitative' },
          text: { field: 'label' },
        },
      },
    );
  }
  return topLevel([...policyLayers(m, 'gflops', yAxis), ...layers, ...verticalLines(m)]);
}

/** Whether the transfers plot needs a log y axis: its positive values span more than 100x. */
export function needsLogScale(m: PlotModel): boolean {
  const ys = [
    ...m.points.flatMap((p) => [p.gib, p.gibMin, p.gibMax]),
    ...(m.busLimit?.points ?? []).map((p) => p.gib),
  ];
  const pos = ys.filter((v) => v > 0);
  if (pos.length === 0) return false;
  return Math.max(...pos) / Math.min(...pos) > 100;
}

/** Plot (b): data moved to the devices against the working set, with the bus limit. */
export function transfersSpec(m: PlotModel): TopLevelSpec {
  const log = needsLogScale(m);
  const yAxis = {
    title: `Data transferred to the GPUs (GiB${log ? ', log scale' : ''})`,
    axis: { format: ',.3~g' },
    scale: log ? { type: 'log' } : { zero: true },
  };
  const layers: Layer[] = [];
  if (m.busLimit) {
    const pts = m.busLimit.points;
    // The label is a key in the bottom-right corner (a dashed sample, then the text), where
    // growing transfer curves leave room; on the curve it would cross the data.
    const labelW = textWidth(m.busLimit.label, 11);
    layers.push(
      {
        data: { values: pts },
        mark: { type: 'line', strokeDash: [6, 4], strokeWidth: 1.5, color: 'black' },
        encoding: {
          x: { field: 'ws', type: 'quantitative' },
          y: { field: 'gib', type: 'quantitative' },
          order: { field: 'ws', type: 'quantitative' },
        },
      },
      {
        data: { values: [{}] },
        mark: { type: 'rect', fill: 'white', opacity: 0.9 },
        encoding: {
          x: { value: PLOT_W - labelW - 46 },
          x2: { value: PLOT_W - 1 },
          y: { value: PLOT_H - 24 },
          y2: { value: PLOT_H - 4 },
        },
      },
      {
        data: { values: [{}] },
        mark: { type: 'rule', strokeDash: [6, 4], strokeWidth: 1.5, color: 'black' },
        encoding: {
          x: { value: PLOT_W - labelW - 40 },
          x2: { value: PLOT_W - labelW - 12 },
          y: { value: PLOT_H - 14 },
        },
      },
      {
        data: { values: [{ label: m.busLimit.label }] },
        mark: { type: 'text', align: 'right', baseline: 'middle', fontSize: 11 },
        encoding: { x: { value: PLOT_W - 6 }, y: { value: PLOT_H - 14 }, text: { field: 'label' } },
      },
    );
  }
  return topLevel([...policyLayers(m, 'gib', yAxis), ...layers, ...verticalLines(m)]);
}

// ------------------------------------------------------------------------------ rendering

/**
 * Advance widths of ASCII 32..126 in DejaVu Sans and DejaVu Sans Bold, in 1/1000 em (measured
 * with resvg, the PNG renderer). Without a canvas, vega estimates every character at 0.8 em,
 * which makes a long subtitle twice its real width and the SVG twice too wide.
 */
const ADVANCE_NORMAL = Int16Array.from(
  '318,401,460,838,636,950,780,275,390,390,500,838,318,361,318,337,636,636,636,636,636,636,636,636,636,636,337,337,838,838,838,531,1000,684,686,698,770,632,575,775,752,295,295,656,557,863,748,787,603,787,695,635,611,732,684,989,685,611,685,390,337,390,838,500,500,613,635,550,635,615,352,635,634,278,278,579,278,974,634,612,635,635,411,521,392,634,592,818,592,592,525,636,337,636,838'
    .split(',')
    .map(Number),
);
const ADVANCE_BOLD = Int16Array.from(
  '348,456,521,838,696,1002,872,306,457,457,523,838,380,415,380,365,696,696,696,696,696,696,696,696,696,696,400,400,838,838,838,580,1000,774,762,734,830,683,683,821,837,372,372,775,637,995,837,850,733,850,770,720,682,812,774,1103,771,724,725,457,365,457,838,500,500,675,716,593,716,678,435,716,712,343,343,665,343,1042,712,687,716,716,493,595,478,712,652,924,645,652,582,712,365,712,838'
    .split(',')
    .map(Number),
);

/** Width in pixels of `text` in DejaVu Sans (bold or not) at `fontSize`. */
export function textWidth(text: string, fontSize: number, bold = false): number {
  const table = bold ? ADVANCE_BOLD : ADVANCE_NORMAL;
  let w = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    w += c >= 32 && c < 127 ? table[c - 32]! : bold ? 700 : 640;
  }
  return (w / 1000) * fontSize;
}

/** A text item as vega's text metrics see it. */
interface TextItem {
  fontSize?: number | string;
  fontWeight?: number | string;
}

/** The plotting stack: optional peer dependencies, imported when a plot is first drawn. */
interface PlotStack {
  vega: typeof import('vega');
  compile: typeof import('vega-lite').compile;
  Resvg: typeof import('@resvg/resvg-js').Resvg;
}

let plotStack: Promise<PlotStack> | undefined;

/** Imports vega, vega-lite and resvg once; a LocusError naming the install command if absent. */
function loadPlotStack(): Promise<PlotStack> {
  plotStack ??= Promise.all([import('vega'), import('vega-lite'), import('@resvg/resvg-js')]).then(
    ([vega, vl, resvg]) => ({ vega, compile: vl.compile, Resvg: resvg.Resvg }),
    (e: NodeJS.ErrnoException) => {
      plotStack = undefined;
      if (e.code !== 'ERR_MODULE_NOT_FOUND') throw e;
      throw new LocusError(
        'LOCUS_OPTIONAL_PACKAGE_MISSING',
        'drawing plots needs the optional packages vega, vega-lite and @resvg/resvg-js: run `npm install vega vega-lite @resvg/resvg-js`',
      );
    },
  );
  return plotStack;
}

let metricsInstalled = false;

/**
 * Makes vega measure text with the DejaVu Sans table (a user-defined width function, which
 * vega supports for headless use). Process-wide; a no-op after the first call.
 */
function installTextMetrics(vega: PlotStack['vega']): void {
  if (metricsInstalled) return;
  metricsInstalled = true;
  const tm = (vega as unknown as { textMetrics: { width: (item: TextItem, text: unknown) => number } })
    .textMetrics;
  tm.width = (item, text) => {
    const size = item.fontSize != null ? +item.fontSize || 0 : 11;
    const weight = item.fontWeight;
    const bold = weight === 'bold' || weight === 'bolder' || Number(weight) >= 600;
    return textWidth(text == null ? '' : String(text).trim(), size, bold);
  };
}

/** Renders a vega-lite spec to SVG text, headless. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const { vega, compile } = await loadPlotStack();
  installTextMetrics(vega);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Rasterizes SVG text to a PNG `width` pixels wide (DejaVu Sans stands in for sans-serif). */
export async function svgToPng(svg: string, width = 1200): Promise<Buffer> {
  const { Resvg } = await loadPlotStack();
  return new Resvg(svg, {
    fitTo: { mode: 'width', value: width },
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' },
  })
    .render()
    .asPng();
}

/** Renders a spec to SVG and PNG, with the caption to set under it (none: ''). */
export async function renderPlot(spec: TopLevelSpec, caption = '', width = 1200): Promise<RenderedPlot> {
  const svg = await renderSvg(spec);
  return { spec, svg, png: await svgToPng(svg, width), caption };
}

/** The captions of the two plots: the figure's title, what is plotted, the sweep, the marks. */
export function plotCaptions(m: PlotModel): { gflops: string; transfers: string } {
  const lines = m.lines.map((l) => `Dashed vertical line: ${l.label}.`);
  const bars = m.reps > 1 ? [`Error bars: minimum and maximum of the ${m.reps} runs.`] : [];
  const peak =
    m.peak === undefined
      ? []
      : peakShown(m)
        ? [`Dashed horizontal line: ${m.peak.label}.`]
        : [`Not drawn, above the range shown: ${m.peak.label}.`];
  const bus = m.busLimit === undefined ? [] : [`Dashed curve: ${m.busLimit.label}.`];
  const log = needsLogScale(m) ? ', log scale' : '';
  return {
    gflops: [
      `${m.title}: throughput (GFlop/s) against the working set (GiB), one curve per policy.`,
      `${m.subtitle}.`,
      ...peak,
      ...lines,
      ...bars,
    ].join(' '),
    transfers: [
      `${m.title}: data transferred to the GPUs (GiB${log}) against the working set (GiB), one curve per policy.`,
      `${m.subtitle}.`,
      ...bus,
      ...lines,
      ...bars,
    ].join(' '),
  };
}

/** Both plots of a sweep, with their captions. */
export async function plotSweep(result: SweepResult, o: PlotOptions): Promise<SweepPlots> {
  const m = plotModel(result, o);
  const captions = plotCaptions(m);
  const [gflops, transfers] = await Promise.all([
    renderPlot(gflopsSpec(m), captions.gflops),
    renderPlot(transfersSpec(m), captions.transfers),
  ]);
  return { gflops, transfers };
}
