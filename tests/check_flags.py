#!/usr/bin/env python3
"""check_flags.py COMPILE_COMMANDS - the build's floating-point and ISA rules,
checked on the real compile commands (TAP):
  1. no fast-math, -Ofast or native-CPU flags anywhere;
  2. -ffp-contract=off on every C compile of raypack;
  3. per-ISA flags (-msse4.1, -mavx*, -mfma) only on that ISA's sources (the
     AVX2 and AVX-512 variants carry -mfma: the one-ray node test's fused
     operation, src/x86/layer.h; the dispatcher asks the CPU for FMA) (and on the
     benchmark's deliberate autovec baselines, each compile of autovec.c
     with one ISA's flags), never on the scalar reference, the API layer or
     the dispatcher.
"""
import json
import re
import sys

cmds = json.load(open(sys.argv[1]))
bad_any = re.compile(r"-march=native|-mtune=native|-ffast-math|-Ofast|-funsafe-math|SIMDE_FAST_")
isa_flag = re.compile(r"-m(sse4\.1|avx[0-9a-z]*|fma)\b")
SSE41, AVX2 = {"sse4.1"}, {"avx2", "fma"}
AVX512 = {"avx512f", "avx512vl", "avx512dq", "avx512bw", "fma"}
allowed = {  # source path fragment -> the flag sets one compile of it may carry
    "src/sse/": [SSE41],
    "src/avx2/": [AVX2],
    "src/avx512/": [AVX512],
    # built once per x86 variant's ISA (bench/meson.build: autovec_builds)
    "bench/autovec.c": [SSE41, AVX2, AVX512],
}
checks = []


def check(ok, name, detail=""):
    checks.append((ok, name, detail))


c_cmds = [c for c in cmds if c["file"].endswith(".c")]
check(len(c_cmds) > 0, "compile_commands.json lists C compiles", f"{len(c_cmds)} found")
hits = [c["file"] for c in cmds if bad_any.search(c["command"])]
check(not hits, "no fast-math / -Ofast / native-CPU / SIMDE_FAST flags", ", ".join(hits[:5]))
lib = [c for c in c_cmds if "/src/" in c["file"].replace("\\", "/")]
missing = [c["file"] for c in lib if "-ffp-contract=off" not in c["command"]]
check(lib and not missing, "-ffp-contract=off on every library source", ", ".join(missing[:5]))
wrong = []
for c in cmds:
    flags = set(isa_flag.findall(c["command"]))
    if not flags:
        continue
    f = c["file"].replace("\\", "/")
    sets = [set()]
    for frag, fl in allowed.items():
        if frag in f:
            sets = fl
    if not any(flags <= ok for ok in sets):
        wrong.append(f"{f}: {' '.join(sorted(flags))}")
check(not wrong, "per-ISA flags only on that ISA's sources", "; ".join(wrong[:5]))

print(f"1..{len(checks)}")
for i, (ok, name, detail) in enumerate(checks, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok and detail:
        print(f"# {detail}")
sys.exit(0 if all(ok for ok, _, _ in checks) else 1)
