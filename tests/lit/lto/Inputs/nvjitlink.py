#!/usr/bin/env python3
"""The reference for ptxlink -dlto: libnvJitLink called directly (ctypes), as an application would.

usage: nvjitlink.py LIBRARY OUT OPTION... -- INPUT...   (OUT: the cubin, or with -ptx the PTX)
Inputs ending in .a are added as host libraries, in .cubin as cubins, others as host objects; options as
nvJitLinkCreate takes them (-arch=sm_80 -lto). Prints nvJitLink's error log and exits 1 if the link fails."""
import ctypes
import sys

lib_path, out, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
sep = rest.index("--")
options, inputs = rest[:sep], rest[sep + 1:]
lib = ctypes.CDLL(lib_path)
handle = ctypes.c_void_p()
argv = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
if lib.nvJitLinkCreate(ctypes.byref(handle), len(options), argv) != 0:
    sys.exit("nvJitLinkCreate failed")
CUBIN, OBJECT, LIBRARY = 1, 5, 6
for path in inputs:
    data = open(path, "rb").read()
    kind = LIBRARY if path.endswith(".a") else CUBIN if path.endswith(".cubin") else OBJECT
    if lib.nvJitLinkAddData(handle, kind, data, len(data), path.encode()) != 0:
        sys.exit("nvJitLinkAddData failed for " + path)
result = lib.nvJitLinkComplete(handle)
size = ctypes.c_size_t()
if result != 0:
    lib.nvJitLinkGetErrorLogSize(handle, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value + 1)
    lib.nvJitLinkGetErrorLog(handle, log)
    sys.exit("nvJitLinkComplete failed (%d): %s" % (result, log.value.decode()))
if "-ptx" in options:  # the linked PTX (NUL-terminated), instead of a cubin
    lib.nvJitLinkGetLinkedPtxSize(handle, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    lib.nvJitLinkGetLinkedPtx(handle, ptx)
    open(out, "wb").write(ptx.value)
else:
    lib.nvJitLinkGetLinkedCubinSize(handle, ctypes.byref(size))
    cubin = ctypes.create_string_buffer(size.value)
    lib.nvJitLinkGetLinkedCubin(handle, cubin)
    open(out, "wb").write(cubin.raw)
