"""Runs `ptxlink --sass` with ptxas and nvlink wrapped by scripts that record when each run starts and
ends, and prints the most runs (of both tools together) that were under way at once, so that a test can
check that --threads bounds them. The wrappers run NVIDIA's real tools (each after a short sleep, which
makes overlapping runs certain where they are allowed).

usage: sass_concurrency.py WORKDIR PTXLINK-ARGS...   (six small modules are linked; WORKDIR is made)
"""
import os
import shutil
import subprocess
import sys

work = sys.argv[1]
args = sys.argv[2:]
bindir = os.path.join(work, "bin")
os.makedirs(bindir, exist_ok=True)
log = os.path.join(work, "runs.log")
open(log, "w").close()
for tool in ("ptxas", "nvlink"):
    real = shutil.which(tool)
    if not real:
        sys.exit(f"no {tool} on PATH")
    path = os.path.join(bindir, tool)
    with open(path, "w") as f:
        f.write(f"""#!/bin/sh
case " $* " in *" --version "*) exec "{real}" "$@";; esac
echo "start $(date +%s%N) {tool}" >> "{log}"
sleep 0.3
"{real}" "$@"
rc=$?
echo "end $(date +%s%N) {tool}" >> "{log}"
exit $rc
""")
    os.chmod(path, 0o755)

inputs = []
for i in range(6):
    p = os.path.join(work, f"m{i}.ptx")
    with open(p, "w") as f:
        f.write(f""".version 8.0
.target sm_80
.address_size 64
.visible .global .align 4 .b32 v{i};
.visible .entry k{i}()
{{
\t.reg .b32 %r<2>;
\tmov.u32 %r1, {i};
\tst.global.u32 [v{i}], %r1;
\tret;
}}
""")
    inputs.append(p)

env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"])
env.pop("CUDA_HOME", None)
r = subprocess.run(["ptxlink", "--sass", "--no-cache", "--sass-batch-below", "0", "--no-progress"] + args + inputs +
                   ["-o", os.path.join(work, "out.fatbin")], env=env)
if r.returncode != 0:
    sys.exit(f"ptxlink failed: {r.returncode}")

events = []
for line in open(log):
    kind, t, tool = line.split()
    events.append((int(t), 0 if kind == "end" else 1, tool))
events.sort()  # at the same instant an end comes before a start
running = most = 0
runs = {"ptxas": 0, "nvlink": 0}
for t, start, tool in events:
    running += 1 if start else -1
    most = max(most, running)
    if start:
        runs[tool] += 1
print(f"ptxas runs: {runs['ptxas']}, nvlink runs: {runs['nvlink']}, most at once: {most}")
