{
  "targets": [
    {
      "target_name": "locus_mpi",
      "sources": ["locus_mpi.c"],
      "cflags": ["<!@(mpicc --showme:compile)", "-O2"],
      "libraries": ["<!@(mpicc --showme:link)"],
      "ldflags": ["-Wl,-rpath,<!(mpicc --showme:libdirs | cut -d' ' -f1)"]
    }
  ]
}
