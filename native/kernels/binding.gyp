{
  "targets": [
    {
      "target_name": "locus_kernels",
      "sources": ["locus_kernels.c"],
      "cflags": ["<!@(node ../blas-flags.mjs cflags)", "-O2"],
      "libraries": ["<!@(node ../blas-flags.mjs libs)"],
      "ldflags": ["<!@(node ../blas-flags.mjs ldflags)"]
    }
  ]
}
