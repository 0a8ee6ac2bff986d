/** The adapter line a text report of a WebGPU run or calibration ends with. */
import { type AdapterSummary, adapterLine } from './load.ts';

/** `adapter: <vendor architecture device> - <description>`. */
export function adapterReportLine(a: AdapterSummary): string {
  return `adapter: ${adapterLine(a)}${a.description ? ` - ${a.description}` : ''}`;
}
