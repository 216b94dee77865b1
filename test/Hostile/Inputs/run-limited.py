"""run-limited.py LIMIT CMD ARGS...: runs CMD under a resource limit.

LIMIT is BYTES (RLIMIT_FSIZE, SIGXFSZ ignored: a write past BYTES fails with
EFBIG, "File too large", the way a full disk fails a write) or as=BYTES
(RLIMIT_AS, ulimit -v: allocations beyond it fail)."""
import os
import resource
import signal
import sys

limit = sys.argv[1]
if limit.startswith("as="):
    n = int(limit[3:])
    resource.setrlimit(resource.RLIMIT_AS, (n, n))
else:
    n = int(limit)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))
os.execvp(sys.argv[2], sys.argv[2:])
