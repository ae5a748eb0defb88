"""setup.py: how pip builds nodeox._engine (pyproject.toml names setuptools).

The extension is python/nodeox/_engine.c with the runtime compiled into it
(the C files of runtime/libnodeox_runtime.la, the workload and CPU kernels
and the policy library's nodeox.conf reader and common/util.c, json_write.c, as the autotools build links
them), so the module needs no nodeox library at run time: only MPI, and
in a CUDA build the CUDA runtime, cuBLAS and NCCL.

Where things come from (each can be set in the environment):
  MPI    MPICC (default mpicc): its --showme:compile/--showme:link (Open
         MPI) or -show (MPICH); else pkg-config ompi, mpich. Required.
  CUDA   NODEOX_CUDA=0 builds CPU-only; otherwise CUDA_HOME (default: the
         directory above the nvcc on PATH, else /usr/local/cuda) when it
         has bin/nvcc: the kernels/*.cu files are compiled by nvcc.
  NCCL   NCCL_HOME, else the nvidia-nccl-cu* wheel that PyPI's torch brings
         (site-packages/nvidia/nccl), else the CUDA toolkit's directories.
With torch's wheels the CUDA libraries are linked by soname (libcudart.so.13,
libcublas.so.13, libnccl.so.2) with a RUNPATH into site-packages/nvidia/*,
so the process uses the copies torch loaded (doc/runtime.md, "Installing
with pip").
"""

import glob
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

TOP = os.path.dirname(os.path.abspath(__file__))

RUNTIME = """rt_env rt_comm rt_fault rt_emulate rt_combine rt_rounds rt_sync rt_loop rt_engine
rt_checkpoint rt_model rt_eval rt_log rt_options rt_ema rt_batch rt_util rt_inner rt_alloc rt_agree
rt_speedrec
workload_mlp data_idx workload_gpt data_text""".split()
KERNELS = """optim_cpu combine_cpu matmul_cpu mlp_cpu loss_cpu embed_cpu layernorm_cpu
attention_cpu pointwise_cpu backend_cpu backend""".split()
POLICY = "policy_conf policy_decide policy_estimate policy_map policy_record policy_tag policy_tres policy_util policy_speeds".split()
CUDA_KERNELS = """optim_cuda combine_cuda matmul_cuda mlp_cuda loss_cuda embed_cuda layernorm_cuda
attention_cuda pointwise_cuda backend_cuda""".split()
NVCC_ARCH = ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90",
             "-gencode", "arch=compute_75,code=compute_75"]


def fail(msg):
    sys.exit("nodeox setup.py: " + msg)


def run(cmd):
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def mpi_flags():
    """(compile flags, link flags) of the system's MPI."""
    mpicc = os.environ.get("MPICC", "mpicc")
    comp, link = run([mpicc, "--showme:compile"]), run([mpicc, "--showme:link"])
    if comp is not None and link is not None:  # Open MPI
        return shlex.split(comp), shlex.split(link)
    show = run([mpicc, "-show"])  # MPICH, Intel MPI: "cc -I... -L... -lmpi"
    if show:
        words = shlex.split(show)[1:]
        return ([w for w in words if w.startswith(("-I", "-D"))],
                [w for w in words if w.startswith(("-L", "-l", "-Wl"))])
    for pc in ("ompi", "mpich"):
        comp, link = run(["pkg-config", "--cflags", pc]), run(["pkg-config", "--libs", pc])
        if comp is not None and link is not None:
            return shlex.split(comp), shlex.split(link)
    fail("no MPI found: neither %s (--showme or -show) nor pkg-config ompi/mpich answered; install "
         "an MPI with its compiler wrapper (Debian: libopenmpi-dev) or set MPICC" % mpicc)


def cuda_home():
    if os.environ.get("NODEOX_CUDA", "") == "0":
        return None
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if not home:
        nvcc = shutil.which("nvcc")
        home = os.path.dirname(os.path.dirname(nvcc)) if nvcc else "/usr/local/cuda"
    if os.path.exists(os.path.join(home, "bin", "nvcc")):
        return home
    if os.environ.get("NODEOX_CUDA") == "1":
        fail("NODEOX_CUDA=1 but no nvcc in %s/bin (set CUDA_HOME)" % home)
    return None


def torch_nvidia_dir():
    """site-packages/nvidia of the environment pip installs into (PyPI's
    torch puts its CUDA runtime, cuBLAS and NCCL wheels there)."""
    for key in ("platlib", "purelib"):
        d = os.path.join(sysconfig.get_paths()[key], "nvidia")
        if os.path.isdir(d):
            return d
    return None


def lib_flag(dirs, stem):
    """-l for stem (libSTEM.so, or the versioned libSTEM.so.N that wheels
    ship without the unversioned link)."""
    for d in dirs:
        if os.path.exists(os.path.join(d, "lib%s.so" % stem)):
            return "-l" + stem
        found = sorted(glob.glob(os.path.join(d, "lib%s.so.[0-9]*" % stem)), key=len)
        if found:
            return "-l:" + os.path.basename(found[0])
    return None


class BuildEngine(build_ext):
    """build_ext plus nvcc for the CUDA kernels of a CUDA build."""

    def build_extension(self, ext):
        # pip builds in the source tree: compile everything every time, so a
        # build/ left by an earlier install (other sources) is never reused
        self.force = True
        cu = getattr(ext, "cuda_sources", [])
        if cu:
            tmp = os.path.join(self.build_temp, "cuda")
            os.makedirs(tmp, exist_ok=True)
            for src in cu:
                obj = os.path.join(tmp, os.path.basename(src)[:-3] + ".o")
                cmd = [ext.nvcc, "-O3", "-std=c++17", "-Xcompiler", "-fPIC", *NVCC_ARCH, "-I" + TOP,
                       "-I" + ext.config_dir, "-c", "-o", obj, src]
                self.announce(" ".join(cmd), level=2)
                subprocess.run(cmd, check=True)
                ext.extra_objects.append(obj)
        super().build_extension(ext)


def engine_extension():
    mpi_c, mpi_l = mpi_flags()
    build = os.path.join(TOP, "build", "nodeox-config")
    os.makedirs(build, exist_ok=True)
    defines, libs, lib_dirs, rpath, cu, inc = [], [], [], [], [], []
    home = cuda_home()
    nvidia = torch_nvidia_dir()
    if home:
        defines.append("HAVE_CUDA")
        cuda_libs = [os.path.join(home, "lib64"), os.path.join(home, "lib")]
        # torch's CUDA wheels: nvidia/cu13/lib (CUDA 13) or nvidia/cuda_runtime/lib
        # and nvidia/cublas/lib (CUDA 12)
        wheel_libs = sorted(os.path.dirname(p) for p in [p for stem in ("cudart", "cublas") for p in glob.glob(os.path.join(nvidia, "*", "lib", "lib%s.so.*" % stem))]) if nvidia else []
        wheel_libs = sorted(set(wheel_libs))
        for stem in ("cudart", "cublas"):
            flag = lib_flag(wheel_libs, stem) or lib_flag(cuda_libs, stem)
            if flag is None:
                fail("CUDA at %s has no lib%s.so (set NODEOX_CUDA=0 for a CPU-only build)" % (home, stem))
            libs.append(flag)
        lib_dirs += wheel_libs + cuda_libs
        inc.append(os.path.join(home, "include"))
        cu = [os.path.join(TOP, "kernels", k + ".cu") for k in CUDA_KERNELS]
        nccl_dirs = []
        if os.environ.get("NCCL_HOME"):
            nccl_dirs.append(os.environ["NCCL_HOME"])
        if nvidia:
            nccl_dirs.append(os.path.join(nvidia, "nccl"))
        nccl_dirs.append(home)
        for d in nccl_dirs:
            flag = lib_flag([os.path.join(d, "lib"), os.path.join(d, "lib64")], "nccl")
            if flag and os.path.exists(os.path.join(d, "include", "nccl.h")):
                defines.append("HAVE_NCCL")
                inc.append(os.path.join(d, "include"))
                lib_dirs += [os.path.join(d, "lib"), os.path.join(d, "lib64")]
                libs.append(flag)
                break
        if nvidia:  # site-packages/nodeox/../nvidia/*/lib: the copies torch loads
            rpath += ["$ORIGIN/../nvidia/%s" % os.path.relpath(d, nvidia) for d in wheel_libs]
            rpath += ["$ORIGIN/../nvidia/nccl/lib"]
        rpath += [d for d in lib_dirs if os.path.isdir(d) and not d.startswith(nvidia or "\0")]
        libs.append("-lstdc++")
    with open(os.path.join(build, "config.h"), "w") as f:
        f.write("/* written by setup.py: the pip build's config.h */\n")
        for d in defines:
            f.write("#define %s 1\n" % d)
    root = os.path.relpath(TOP)  # setuptools wants relative source paths
    sources = [os.path.join(root, "python", "nodeox", "_engine.c")]
    sources += [os.path.join(root, "runtime", s + ".c") for s in RUNTIME]
    sources += [os.path.join(root, "kernels", s + ".c") for s in KERNELS]
    sources += [os.path.join(root, "policy", s + ".c") for s in POLICY]
    sources += [os.path.join(root, "common", s + ".c") for s in ("util", "json_write", "speed_record")]
    ext = Extension(
        "nodeox._engine", sources=sources, include_dirs=[build, TOP] + inc,
        extra_compile_args=["-std=gnu11", "-O3", "-fno-math-errno", "-fvisibility=hidden"] + mpi_c,
        # the runtime's symbols stay inside the module (they cannot meet torch's)
        extra_link_args=mpi_l + libs + ["-lpthread", "-lm", "-ldl", "-Wl,--exclude-libs,ALL"]
        + ["-Wl,-rpath," + r for r in rpath],
        library_dirs=[d for d in lib_dirs if os.path.isdir(d)])
    print("nodeox setup.py: MPI %s; CUDA %s; NCCL %s; runpath %s" % (
        " ".join(mpi_l), home or "no", "yes" if "HAVE_NCCL" in defines else "no", ":".join(rpath) or "-"),
        file=sys.stderr)
    ext.cuda_sources = cu
    ext.nvcc = os.path.join(home, "bin", "nvcc") if home else None
    ext.config_dir = build
    return ext


setup(ext_modules=[engine_extension()], cmdclass={"build_ext": BuildEngine})
