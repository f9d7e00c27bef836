"""Issue 15, finding 8: a large PTX text is given back to the kernel behind its lowering. Writes a module of
260,000 small functions (24 MB, past InputFiles.h's LargeTextBytes: half of them take a parameter,
return a value and call f0 six times) and a kernel that calls every 997th, then checks that

  * the link of the file (mapped, its pages given back behind the lowering, names copied), the link of the
    same text read from standard input (a heap buffer: nothing given back) and the link of the object that
    ptxlink-as wrote from the file (its writer gives the text back behind itself too) print the same
    module, byte for byte: text read back from the file after its pages were given back is unchanged;
  * ptxlink-as's peak from the file is below its peak from standard input minus a sixth of the text: the text
    does not stay resident (before: the file's peak was the higher one, by the names' copies). The calls
    make the model (a relocation of 16 bytes per call) outgrow the parse's records, so that the peak from
    standard input is the text's heap copy beside the whole model, and the difference is a good part of
    the text (10-13 MB for 24 MB here; with the model's records shrunk, calls-free functions left only
    4-6 MB, too close to a third of the text).

  large_text.py WORK_DIR
"""
import os
import shutil
import subprocess
import sys

work = sys.argv[1]
ptx = os.path.join(work, "large.ptx")
count = 260000
with open(ptx, "w") as f:
    f.write(".version 8.5\n.target sm_80\n.address_size 64\n\n")
    for i in range(count):
        if i % 2:
            f.write(".visible .func (.param .b32 r) f%d(.param .b32 a){.reg .b32 %%r<2>;"
                    "call f0;call f0;call f0;call f0;call f0;call f0;"
                    "ld.param.b32 %%r1,[a];st.param.b32 [r],%%r1;ret;}\n" % i)
        else:
            f.write(".visible .func f%d(){ret;}\n" % i)
    f.write(".visible .entry k(){\n.reg .b32 %r<2>;\n")
    for i in range(1, count, 997):
        f.write("{.param .b32 a;.param .b32 r;st.param.b32 [a],%%r1;call (r),f%d,(a);ld.param.b32 %%r1,[r];}\n" % i)
    f.write("ret;}\n")
size = os.path.getsize(ptx)
print("text: %d MB" % (size >> 20))


def run(name, argv, stdin=None):
    with open(stdin or os.devnull, "rb") as inp:
        p = subprocess.Popen(argv, stdin=inp, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
    print("%s: status %d, peak %d MB" % (name, status, usage.ru_maxrss >> 10))
    if status != 0:
        sys.exit(1)
    return usage.ru_maxrss * 1024


as_, link = shutil.which("ptxlink-as"), shutil.which("ptxlink")
out = lambda n: os.path.join(work, n)
peak_file = run("ptxlink-as of the file", [as_, ptx, "-o", out("large.o")])
peak_stdin = run("ptxlink-as of standard input", [as_, "-", "-o", out("stdin.o")], stdin=ptx)
run("ptxlink of the file", [link, "-arch", "sm_80", ptx, "-o", out("file.ptx")])
run("ptxlink of standard input", [link, "-arch", "sm_80", "-", "-o", out("stdin.ptx")], stdin=ptx)
run("ptxlink of the object", [link, "-arch", "sm_80", out("large.o"), "-o", out("object.ptx")])
outputs = [open(out(n), "rb").read() for n in ("file.ptx", "stdin.ptx", "object.ptx")]
print("linked modules %s" % ("identical" if outputs[0] == outputs[1] == outputs[2] else "DIFFER"))
print("kept functions: %d" % outputs[0].count(b".visible .func"))
if peak_file + size // 6 < peak_stdin:
    print("the file's text is not held")
else:
    print("the file's text is held: %d MB from the file, %d MB from standard input" % (peak_file >> 20,
                                                                                         peak_stdin >> 20))
