// scene_bench.h - the scene rows of rp_bench (scene_bench.cc, C++ only).
#ifndef RPB_SCENE_BENCH_H
#define RPB_SCENE_BENCH_H

// Takes rp_bench's own scene flag (--rp_mesh_dir=DIR, else
// $RP_BENCH_MESH_DIR) out of argv before Google Benchmark sees it.
void rpb_scene_args(int *argc, char **argv);
// Registers the scene/<variant>/<kind>/<mesh> rows: `native` is
// rp_isa_native(); prints on stderr which mesh they use.
void rpb_scene_register(unsigned native);

#endif
