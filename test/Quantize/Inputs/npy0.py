"""0-d .npy files for scalar.test, without NumPy.

  npy0.py write PATH VALUE   writes a 0-d float32 ('<f4') array
  npy0.py show PATH...       prints each file's name, shape, dtype and data
                             bytes (hex, as stored)
"""
import ast
import os
import struct
import sys


def write(path, value):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (), }"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1") + struct.pack("<f", float(value)))


def show(path):
    with open(path, "rb") as f:
        raw = f.read()
    assert raw[:6] == b"\x93NUMPY", path
    length = struct.unpack("<H", raw[8:10])[0]
    header = ast.literal_eval(raw[10:10 + length].decode("latin1"))
    data = raw[10 + length:]
    print("%s shape=%s descr=%s data=%s" % (os.path.basename(path),
                                            header["shape"], header["descr"],
                                            data.hex()))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3])
    else:
        for p in sys.argv[2:]:
            show(p)
