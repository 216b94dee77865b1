#!/usr/bin/env python3
"""Replays every case of the outside reliability audit (docs/reliability.md,
"Audit: reliability II") against a build and prints `N passed, M failed`.

Usage: replay-audit.py BUILD_DIR [SOURCE_DIR]

Each case runs a tool with the audit's input and checks what the audit
asked for: no signal or uncaught exception (exit status 1 or 2, never
>= 128 or SIGABRT), a one-line message matching the expected text, and for
cases that should succeed, status 0. The C ABI cases run the GoogleTest
that pins each of them. Exit status 0 when every case passes.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

build = os.path.abspath(sys.argv[1])
src = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                      os.path.join(os.path.dirname(__file__), "..", ".."))
bin_dir = os.path.join(build, "bin")
tmp = tempfile.mkdtemp(prefix="te-audit-")
results = []


def tool(name):
    return os.path.join(bin_dir, name)


def npy(descr, shape, data, version=(1, 0), header=None):
    if header is None:
        dims = "%d," % shape[0] if len(shape) == 1 else ", ".join(str(d) for d in shape)
        header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    text = header
    text += " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
    return (b"\x93NUMPY" + bytes(version) + struct.pack("<H", len(text)) +
            text.encode("latin-1") + data)


def path(name, content=None):
    p = os.path.join(tmp, name)
    if content is not None:
        with open(p, "wb") as f:
            f.write(content)
    return p


SKIP = object()
skipped = []


def case(name, argv, status, message=None, stdin=None, preexec=None,
         check=None):
    """status: the exit status wanted (0, 1, 2, or 'fail' for 1 or 2).
    preexec SKIP: the case needs a limit this build cannot run under."""
    if preexec is SKIP:
        skipped.append(name)
        return
    if not os.path.exists(argv[0]):
        results.append((name, False, "not built: " + argv[0]))
        return
    try:
        p = subprocess.run(argv, input=stdin, capture_output=True,
                           timeout=300, preexec_fn=preexec)
    except subprocess.TimeoutExpired:
        results.append((name, False, "timed out"))
        return
    err = p.stderr.decode("utf-8", "replace")
    out = p.stdout.decode("utf-8", "replace")
    ok = True
    why = ""
    if p.returncode < 0 or p.returncode >= 128:
        ok, why = False, "killed by signal / abort (status %d)" % p.returncode
    elif status == "fail" and p.returncode not in (1, 2):
        ok, why = False, "status %d, wanted 1 or 2" % p.returncode
    elif status != "fail" and p.returncode != status:
        ok, why = False, "status %d, wanted %s" % (p.returncode, status)
    elif message and not re.search(message, err + out):
        ok, why = False, "no message matching %r in %r" % (message, (err + out)[-400:])
    elif check and not check(out, err):
        ok, why = False, "check failed: " + (err + out)[-400:]
    results.append((name, ok, why))


def instrumented(program):
    """ASan/TSan reserve terabytes of address space: under an RLIMIT_AS the
    instrumented program would not start, so those cases run without it."""
    try:
        out = subprocess.run(["ldd", program], capture_output=True,
                             text=True).stdout
    except OSError:
        return False
    return "libasan" in out or "libtsan" in out


def limit_as(n, program):
    if instrumented(program):
        return SKIP

    def f():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (n, n))
    return f


def limit_fsize(n):
    def f():
        import resource
        import signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))
    return f


# --- te-run ----------------------------------------------------------------
prog = path("prog.mlir", b"""
func.func @id1(%x: tensor<?xf32>) -> tensor<?xf32> { return %x : tensor<?xf32> }
func.func @id2(%x: tensor<?x?xf32>) -> tensor<?x?xf32> { return %x : tensor<?x?xf32> }
func.func @big(%x: tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32> {
  return %x : tensor<1048576x1048576xf32>
}
func.func @si64(%x: i64) -> i64 { return %x : i64 }
func.func @si32(%x: i32) -> i32 { return %x : i32 }
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%a: tensor<?x8xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x8xf32>, tensor<?x8xf32>) outs(%a : tensor<?x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}
""")
run = tool("te-run")
for dim, what in [("1000000000000", "10^12"), ("18014398509481984", "2^54"),
                  ("36028797018963968", "2^55"), ("4611686018427387904", "2^62")]:
    case("te-run --dynamic-dim %s" % what,
         [run, prog, "--entry", "id1", "--dynamic-dim", dim], 1,
         r"too large|needs \d+ MiB of host memory")
case("te-run identity f32[?,?] with ? = 2^62",
     [run, prog, "--entry", "id2", "--dynamic-dim", "4611686018427387904"], 1,
     r"is too large: more than 2\^46 bytes")
case("te-run static tensor<1048576x1048576xf32>", [run, prog, "--entry", "big"],
     1, r"needs 4194304 MiB of host memory")
case("te-run static tensor<1048576x1048576xf32> under ulimit -v 8 GiB",
     [run, prog, "--entry", "big"], 1, r"needs 4194304 MiB of host memory",
     preexec=limit_as(8 << 30, run))
vals = struct.pack("<40f", *range(40))
a4 = path("a4x8.npy", npy("<f4", [4, 8], vals[:128]))
a5 = path("a5x8.npy", npy("<f4", [5, 8], vals))
case("te-run --input arrays whose ? dims disagree",
     [run, prog, "--entry", "add", "--input", a4, "--input", a5], 1,
     r"runtime error in shape check: linalg\.generic at .*: dimension 0 of "
     r"operand 1 .* is 5, expected 4")
case("te-run --input arrays whose ? dims disagree, compiled without checks",
     [run, prog, "--entry", "add", "--pipeline-options", "check-shapes=false",
      "--input", a4, "--input", a5], 1,
     r"has 5 at the dynamic dimension 0, .* has 4: every `\?` dimension takes one size")
case("te-run --input 99999999999999999999 for i64",
     [run, prog, "--entry", "si64", "--input", "99999999999999999999"], 1,
     r"is not an integer in -9223372036854775808\.\.9223372036854775807")
case("te-run --input 99999999999999999999 for i32",
     [run, prog, "--entry", "si32", "--input", "99999999999999999999"], 1,
     r"is not an integer in -2147483648\.\.2147483647")
case("te-run --threads -1", [run, prog, "--entry", "add", "--threads", "-1"], 2,
     r"--threads: '-1' is not an integer in 0\.\.4096")
case("te-run --repeat -1",
     [run, prog, "--entry", "add", "--dynamic-dim", "4", "--repeat", "-1"], 2,
     r"--repeat: '-1' is not an integer")
case("te-run --exact 7 (no result 7)",
     [run, prog, "--entry", "add", "--dynamic-dim", "4", "--exact", "7",
      "--compare", a4], 2, r"--exact 7: the entry function has 1 result")
case("te-run --dynamic-dim -256",
     [run, prog, "--entry", "add", "--dynamic-dim", "-256"], 2,
     r"--dynamic-dim: '-256' is not an integer")
case("te-run empty file", [run, path("empty.mlir", b"")], 1,
     r"no function @main in .* \(the module is empty\)")
blocker = path("blocker", b"")
case("te-run --output-dir that cannot be created: noticed before running",
     [run, prog, "--entry", "add", "--dynamic-dim", "4", "--output-dir",
      os.path.join(blocker, "out")], 2, r"--output-dir .*: cannot create it",
     check=lambda out, err: "result 0" not in out)
case("te-run --output-dir created", [run, prog, "--entry", "add",
     "--dynamic-dim", "4", "--output-dir", os.path.join(tmp, "new", "out")], 0,
     check=lambda out, err: os.path.exists(os.path.join(tmp, "new", "out", "result0.npy")))
case("te-run - reads stdin", [run, "-", "--entry", "add", "--dynamic-dim", "4"],
     0, r"result 0: f32\[4,8\]", stdin=open(prog, "rb").read())
case("te-run --version", [run, "--version"], 0, r"te-run \(te\) .*\nLLVM: 22")

# --- te-quantize -------------------------------------------------------------
q = tool("te-quantize")
cur = "#te.current<f8E4M3FN>"
x = path("x.npy", npy("<f4", [1, 32], struct.pack("<32f", *range(32))))
big = path("big3g.npy", npy("<f4", [3 << 28], b""))  # header only: 3 GiB declared
with open(big, "ab") as f:
    f.truncate(os.path.getsize(big) + (3 << 30))  # sparse
case("te-quantize 3 GiB input under a 2 GiB memory limit",
     [q, "--quantizer", cur, "--input", big, "--output-dir", path("o3g")], 1,
     r"out of (host )?memory", preexec=limit_as(2 << 30, q))
os.unlink(big)
case("te-quantize /dev/zero (bounded read, magic first)",
     [q, "--quantizer", cur, "--input", "/dev/zero", "--output-dir", path("oz")],
     1, r"'/dev/zero': not a \.npy file \(bad magic\)")
case("te-quantize .npy version 1.5",
     [q, "--quantizer", cur, "--input",
      path("v15.npy", npy("<f4", [4], struct.pack("<4f", 1, 2, 3, 4), (1, 5))),
      "--output-dir", path("o")], 1, r"unsupported \.npy format version 1\.5")
dup = path("dup.npy", npy(None, None, struct.pack("<4f", 1, 2, 3, 4), header=
    "{'descr': '<u2', 'descr': '<f4', 'fortran_order': False, 'shape': (1, 4), }"))
case("te-quantize duplicate descr takes the last (as numpy)",
     [q, "--quantizer", cur, "--input", dup, "--output-dir", path("odup")], 0,
     # '<u2' (the first descr) would be refused; the data read as '<f4'
     # dequantizes its amax 4.0 exactly.
     check=lambda out, err: struct.unpack("<f", open(os.path.join(
         tmp, "odup", "dequantized.npy"), "rb").read()[-4:])[0] == 4.0)
shutil.copy(x, path("self.npy"))
os.makedirs(path("oself"), exist_ok=True)
shutil.copy(x, os.path.join(tmp, "oself", "dequantized.npy"))
case("te-quantize input named like an output",
     [q, "--quantizer", cur, "--input", os.path.join(tmp, "oself", "dequantized.npy"),
      "--output-dir", path("oself")], 1, r"is the input .*choose another --output-dir",
     check=lambda out, err: open(os.path.join(tmp, "oself", "dequantized.npy"), "rb").read() == open(x, "rb").read())
case("te-quantize write failure: no truncated file, a reason",
     [q, "--quantizer", cur, "--input", x, "--output-dir", path("ofull")], 1,
     r"cannot write .*: File too large", preexec=limit_fsize(100),
     check=lambda out, err: not [f for f in os.listdir(os.path.join(tmp, "ofull"))])
case("te-quantize amax_epsilon = 0x7FC00000 is NaN (as te-opt reads it)",
     [q, "--quantizer", "#te.current<f8E4M3FN, amax_epsilon = 0x7FC00000>",
      "--input", x, "--output-dir", path("o")], 1, r"must be finite and >= 0, got nan")
nul = path("nul.npy", npy(None, None, struct.pack("<4f", 1, 2, 3, 4), header=
    "{'descr': '<f4\0x', 'fortran_order': False, 'shape': (4,), }"))
case("te-quantize NUL in descr", [q, "--quantizer", cur, "--input", nul,
     "--output-dir", path("o")], 1, r"the \.npy header contains a NUL byte")
case("te-quantize directory as input", [q, "--quantizer", cur, "--input", tmp,
     "--output-dir", path("o")], 1, r"is a directory, not a \.npy file")
case("te-quantize margin = 2147483647 (an int, as in te-opt)",
     [q, "--quantizer", "#te.delayed<f8E4M3FN, margin = 2147483647>", "--input",
      x, "--output-dir", path("omargin")], 0)
case("te-quantize margin = 2147483648",
     [q, "--quantizer", "#te.delayed<f8E4M3FN, margin = 2147483648>", "--input",
      x, "--output-dir", path("o")], 2, r"expects an integer in -2147483648\.\.2147483647")
case("te-quantize --version", [q, "--version"], 0, r"te-quantize \(te\)")

# --- te-opt ------------------------------------------------------------------
opt = tool("te-opt")
lin = path("linear.mlir", b"""
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<32x64xbf16> {
  %y, %xs, %ws = te.linear %x, %w {weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return %y : tensor<32x64xbf16>
}
""")
case("te-opt te.linear without input_quantizer", [opt, lin], 1,
     r"te\.linear needs the quantizer attribute 'input_quantizer'")

# --- C ABI (GoogleTest cases that pin each finding) --------------------------
gt = tool("te_rt_hostile_tests")
for test, what in [
        ("AbiContract.DequantizeIntoATooSmallOutputIsRefused",
         "out [64,128] f32 over an 8 KiB buffer"),
        ("AbiContract.CapacityIsCheckedForInputsGemmAndAmax", "capacity of x, D"),
        ("AbiContract.OutputsMayNotOverlapInputs",
         "input = output buffer, GEMM D = A's data"),
        ("AbiContract.BuffersOfOneQTensorMayNotOverlap",
         "overlapping buffers of one qtensor"),
        ("AbiContract.AmaxReadsInPlace", "te_rt_amax without a full copy"),
        ("AbiContract.SetNumThreadsWhileQuantizing",
         "set_num_threads races with quantize"),
        ("HostileAbi.NullHandlesEverywhere", "te_rt_qtensor_free(ctx, NULL)"),
        ("HostileAbi.LayoutCapacity", "null layout out message"),
        ("HostileAbi.BufferCountsOutOfRange", "num_buffers message")]:
    case("C ABI: " + what, [gt, "--gtest_filter=" + test], 0,
         r"\[  PASSED  \] 1 test")
case("C ABI: cpu_group_create(INT_MAX)",
     [tool("te_rt_comm_tests"), "--gtest_filter=CommErrors.GroupAndRank"], 0,
     r"\[  PASSED  \] 1 test")

shutil.rmtree(tmp, ignore_errors=True)
failed = [r for r in results if not r[1]]
for name, ok, why in results:
    print("%s: %s%s" % ("PASS" if ok else "FAIL", name, "" if ok else " -- " + why))
for name in skipped:
    print("SKIP: %s (an address-space limit; this build is instrumented)" % name)
print("%d passed, %d failed%s" % (len(results) - len(failed), len(failed),
                                  " (%d skipped)" % len(skipped) if skipped else ""))
sys.exit(1 if failed else 0)
