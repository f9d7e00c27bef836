# lit configuration for ptxlink's end-to-end tests: PTX inputs with RUN lines and FileCheck patterns.
import os
import shutil

import lit.formats

config.name = "ptxlink"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ptx", ".test", ".cu", ".ll"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ptxlink_obj_root, "tests", "lit")

# Our tools first, then LLVM 19's (FileCheck, not, count, split-file, llvm-readelf, ...).
path = [config.ptxlink_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))]
config.environment["PATH"] = os.pathsep.join(path)
for var in ("CUDA_HOME", "HOME"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
cuda_bin = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin")
config.environment["PATH"] += os.pathsep + cuda_bin

config.substitutions.append(("%src_root", config.ptxlink_src_root))
shared = os.path.normpath(os.path.join(config.ptxlink_src_root, "..", "shared"))
config.substitutions.append(("%shared", shared))

# NVIDIA's tools are optional: tests that need them say `REQUIRES: ptxas` etc. and are skipped cleanly.
search = config.environment["PATH"]
for tool in ("ptxas", "nvlink", "nvcc", "fatbinary", "llc-19", "dot", "strace"):
    if shutil.which(tool, path=search):
        config.available_features.add(tool.replace("-19", ""))
# Where NVIDIA's tools really are, for tests that put wrapper scripts in front of them.
for tool in ("ptxas", "nvlink"):
    found = shutil.which(tool, path=search)
    config.substitutions.append(("%" + tool + "_path", os.path.realpath(found) if found else tool))
config.substitutions.append(("%obj_root", config.ptxlink_obj_root))
config.substitutions.append(("%tools_dir", config.ptxlink_tools_dir))
if shutil.which("make", path=search):
    config.available_features.add("make")
if shutil.which("ninja", path=search):
    config.available_features.add("ninja")
if shutil.which("cmake", path=search) and shutil.which("ninja", path=search):
    config.available_features.add("cmake")
# A C compiler and linker for host code (the device-link object's tests build and run host programs).
for tool in ("cpack", "dpkg-deb", "script"):
    if shutil.which(tool, path=search):
        config.available_features.add(tool)
if shutil.which("cc", path=search):
    config.available_features.add("system-cc")
# The CUDA runtime library, for tests that link host programs (`-L%cuda_lib -lcudart`).
cuda_lib = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64")
config.substitutions.append(("%cuda_lib", cuda_lib))
config.substitutions.append(("%cudadevrt_path", os.path.join(cuda_lib, "libcudadevrt.a")))
if os.path.exists(os.path.join(cuda_lib, "libcudart.so")):
    config.available_features.add("cudart")
# NVIDIA's nvJitLink library (the linker of nvlink as a library), for tests that build a small C driver.
cuda_include = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "include")
config.substitutions.append(("%cuda_include", cuda_include))
if os.path.exists(os.path.join(cuda_lib, "libnvJitLink.so")) and os.path.exists(os.path.join(cuda_include, "nvJitLink.h")):
    config.available_features.add("nvjitlink")
if shutil.which("llc", path=search):
    config.available_features.add("llc")
# nginx with its WebDAV module (Debian's nginx-light), the HTTP server of the remote-cache tests.
nginx = shutil.which("nginx", path=search + os.pathsep + "/usr/sbin")
if nginx:
    import subprocess
    version = subprocess.run([nginx, "-V"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    if "http_dav_module" in version:
        config.available_features.add("nginx")
    # The TLS remote-cache test's certificates come from the openssl command, its server is nginx's ssl module.
    if "http_ssl_module" in version and shutil.which("openssl"):
        config.available_features.add("nginx-tls")
# Tests of a full or read-only file system mount a small tmpfs: root, with the right to mount (not in
# every container).
def can_mount_tmpfs():
    import subprocess, tempfile
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("mount"):
        return False
    probe = tempfile.mkdtemp(prefix="ptxlink-mount-probe")
    try:
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
            return False
        subprocess.run(["umount", probe], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return True
    finally:
        try:
            os.rmdir(probe)
        except OSError:
            pass
if can_mount_tmpfs():
    config.available_features.add("tmpfs-mount")
if os.path.isdir(os.path.join(shared, "corpus", "public")):
    config.available_features.add("shared-corpus")

# `ptxlink --sass` keeps a compile cache under $XDG_CACHE_HOME: tests must never write into the user's
# real cache, so every test gets one under the build tree (tests that check the cache pass --cache-dir).
test_cache = os.path.join(config.test_exec_root, "xdg-cache")
os.makedirs(test_cache, exist_ok=True)
config.environment["XDG_CACHE_HOME"] = test_cache
