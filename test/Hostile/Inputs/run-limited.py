"""run-limited.py BYTES CMD ARGS...: runs CMD with its file size limited to
BYTES (RLIMIT_FSIZE, SIGXFSZ ignored), so that a write past BYTES fails with
EFBIG ("File too large") the way a full disk fails a write."""
import os
import resource
import signal
import sys

limit = int(sys.argv[1])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
os.execvp(sys.argv[2], sys.argv[2:])
