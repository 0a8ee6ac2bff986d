/**
 * The `locus run` arguments of issue 24's runs on StarPU's sampled sirocco: tiled Cholesky,
 * tiles of 960, StarPU's cholesky_implicit order, bottom-level priorities unless `flags` give
 * others, on test/fixtures/starpu-sirocco/sirocco-chol.json. Shared by the issue's regression
 * test and bench/sirocco-cholesky.ts, so that both run exactly the same command.
 */
export function siroccoCholeskyArgs(tiles: number, flags: readonly string[]): string[] {
  return [
    'run',
    '-w',
    'cholesky',
    '--tiles',
    String(tiles),
    '--tile-size',
    '960',
    '--platform',
    'test/fixtures/starpu-sirocco/sirocco-chol.json',
    '--order',
    'columns',
    ...(flags.includes('--priorities') ? [] : ['--priorities', 'bottom-level']),
    ...flags,
  ];
}
