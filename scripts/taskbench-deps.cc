// Prints Task Bench's dependencies of every point of the first task graph given by argv:
// "t x: y..." = point x at timestep t reads the outputs of points y at timestep t-1.
#include <cstdio>
#include "core.h"
int main(int argc, char **argv) {
  App app(argc, argv);
  const TaskGraph &g = app.graphs[0];
  for (long t = 0; t < g.timesteps; t++) {
    long off = g.offset_at_timestep(t), w = g.width_at_timestep(t);
    long poff = g.offset_at_timestep(t - 1), pw = g.width_at_timestep(t - 1);
    long dset = g.dependence_set_at_timestep(t);
    for (long x = off; x < off + w; x++) {
      printf("%ld %ld:", t, x);
      for (auto iv : g.dependencies(dset, x))
        for (long y = iv.first; y <= iv.second; y++)
          if (y >= poff && y < poff + pw) printf(" %ld", y);
      printf("\n");
    }
  }
  return 0;
}
