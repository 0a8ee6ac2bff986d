/**
 * The METG curve as a paper shows it (Task Bench, SC20, Fig. 5): efficiency against task
 * granularity, the granularity axis logarithmic, the 50% line, no title in the image.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { MetgResult } from '../exec/metg.ts';

/** The Vega-Lite spec of one METG sweep. */
export function metgSpec(r: MetgResult): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    width: 480,
    height: 300,
    background: 'white',
    layer: [
      {
        data: { values: r.points.map((p) => ({ granularity: p.granularityUs, efficiency: p.efficiency })) },
        mark: { type: 'line', point: true },
        encoding: {
          x: {
            field: 'granularity',
            type: 'quantitative',
            scale: { type: 'log' },
            title: 'task granularity (µs)',
          },
          y: { field: 'efficiency', type: 'quantitative', axis: { format: '%' }, title: 'efficiency' },
        },
      },
      {
        data: { values: [{ y: 0.5 }] },
        mark: { type: 'rule', strokeDash: [4, 4], color: '#888' },
        encoding: { y: { field: 'y', type: 'quantitative' } },
      },
    ],
  } as TopLevelSpec;
}
