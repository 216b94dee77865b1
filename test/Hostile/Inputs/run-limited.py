"""run-limited.py LIMIT CMD ARGS...: runs CMD under a resource limit.

LIMIT is BYTES (RLIMIT_FSIZE, SIGXFSZ ignored: a write past BYTES fails with
EFBIG, "File too large", the way a full disk fails a write) or as=BYTES
(RLIMIT_AS, ulimit -v: allocations beyond it fail)."""
import os
import resource
import shutil
import signal
import subprocess
import sys


def asan(program):
    """ASan reserves terabytes of address space: an RLIMIT_AS would stop
    the instrumented program before it starts, so it runs without it."""
    path = shutil.which(program) or program
    try:
        out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
    except OSError:
        return False
    return "libasan" in out or "libtsan" in out


limit = sys.argv[1]
if limit.startswith("as="):
    n = int(limit[3:])
    if not asan(sys.argv[2]):
        resource.setrlimit(resource.RLIMIT_AS, (n, n))
else:
    n = int(limit)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))
os.execvp(sys.argv[2], sys.argv[2:])
