/**
 * `locus platform import starpu DIR --host NAME [-o FILE]`: a Locus platform file from one
 * machine of a StarPU sampling directory (src/platform/starpu/import.ts). The file goes to
 * stdout or FILE; what could not be mapped goes to stderr, one line each.
 */
import type { Command } from 'commander';
import { LocusError } from '../core/types.ts';
import { importStarpuPlatform } from '../platform/starpu/import.ts';
import { codeletMapValue, naturalInt, size } from './options.ts';
import { writeOutOrStdout } from './output-files.ts';

/** Adds `import` under the `platform` command. */
export function registerPlatformImport(platformCmd: Command): void {
  platformCmd
    .command('import')
    .description(
      "a platform file from a StarPU sampling directory's machine (its SimGrid bus file and codelet models)",
    )
    .argument('<format>', "the source's format: starpu")
    .argument(
      '<dir>',
      "the sampling directory (StarPU's tools/perfmodels/sampling, or $STARPU_HOME/.starpu/sampling)",
    )
    .requiredOption('--host <name>', 'the machine, as in bus/<name>.platform.v4.xml')
    .option('--cpus <n>', 'CPU workers to keep (default: all of the machine)', naturalInt)
    .option('--gpus <n>', 'CUDA devices to keep, the first ones (default: all)', naturalInt)
    .option('--gpu-mem <size>', "every GPU memory's capacity (default: each device's memsize)", size)
    .option(
      '--codelet-map <pairs>',
      'more StarPU model symbols to map: SYMBOL=CODELET[,...] (repeatable)',
      codeletMapValue,
    )
    .option('--name <name>', 'the platform name (default <host>-starpu)')
    .option('-o, --out <file>', 'write to this file instead of stdout')
    .action(
      async (
        format: string,
        dir: string,
        o: {
          host: string;
          cpus?: number;
          gpus?: number;
          gpuMem?: number;
          codeletMap?: Record<string, string>;
          name?: string;
          out?: string;
        },
      ) => {
        if (format !== 'starpu')
          throw new LocusError(
            'LOCUS_OPTION_INVALID',
            `platform import: format '${format}' is not known (use starpu)`,
          );
        const r = await importStarpuPlatform({
          dir,
          host: o.host,
          ...(o.cpus !== undefined ? { cpus: o.cpus } : {}),
          ...(o.gpus !== undefined ? { gpus: o.gpus } : {}),
          ...(o.gpuMem !== undefined ? { gpuMemory: o.gpuMem } : {}),
          ...(o.codeletMap ? { codeletMap: o.codeletMap } : {}),
          ...(o.name !== undefined ? { name: o.name } : {}),
        });
        const json = `${JSON.stringify(r.platform, null, 2)}\n`;
        for (const n of r.notes) process.stderr.write(`locus: ${n}\n`);
        if (writeOutOrStdout(o.out, json))
          process.stdout.write(
            `wrote ${o.out} (${r.platform.workers.length} workers, ${r.platform.memoryNodes.length} memories)\n`,
          );
      },
    );
}
