# -*- Python -*-
# lit configuration of te's tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "TE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.te_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "unit"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%te_src_root", config.te_src_root))
config.substitutions.append(("%te_lib_dir", config.te_lib_dir))
# The build does not look for Python (find_package): python3 from PATH then.
config.substitutions.append(("%python", config.host_python or "python3"))

llvm_config.use_default_substitutions()
# scripts/sanitize.sh links the AOT driver with the sanitizer runtimes.
llvm_config.with_system_environment(["TE_AOT_CXXFLAGS"])
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.te_tools_dir, config.llvm_tools_dir]
tools = ["te-opt", "te-quantize", "te-run", "te-aot-run", "mlir-opt", "mlir-translate", "llc"]
llvm_config.add_tool_substitutions(
    [t for t in tools if any(os.path.exists(os.path.join(d, t)) for d in tool_dirs)],
    tool_dirs)

if config.te_have_cuda:
    config.available_features.add("cuda")

# A CUDA toolkit (ptxas, fatbinary, libdevice) for te-pipeline's GPU targets
# to compile their kernels into a fatbin; without it only gpu-format=isa
# (PTX) works.
def _cuda_toolkit():
    for var in ("CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            return os.environ[var]
    return "/usr/local/cuda"
if os.path.exists(os.path.join(_cuda_toolkit(), "bin", "ptxas")):
    config.available_features.add("cuda-toolkit")

# Pass statistics (-mlir-pass-statistics) are counted only where LLVM is
# built with assertions or LLVM_FORCE_ENABLE_STATS; with Debian's release
# packages the report is empty. Probed with te-deallocate's own statistic.
def _pass_statistics():
    import subprocess
    te_opt = os.path.join(config.te_tools_dir, "te-opt")
    if not os.path.exists(te_opt):
        return False
    probe = ("func.func @f() {\n"
             "  %0 = memref.alloc() : memref<4xf32>\n"
             "  return\n"
             "}\n")
    try:
        run = subprocess.run(
            [te_opt, "--te-deallocate", "-mlir-pass-statistics", "-o",
             os.devnull, "-"], input=probe, capture_output=True, text=True,
            timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return "buffers-freed" in run.stderr
if _pass_statistics():
    config.available_features.add("pass-statistics")
