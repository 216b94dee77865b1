"""Writes the .npy inputs of te-run.mlir into the directory argv[1]."""
import os
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def npy(descr, shape, data):
    dims = "%d," % shape[0] if len(shape) == 1 else ", ".join(str(d) for d in shape)
    text = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    text += " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode() + data


def write(name, content):
    with open(os.path.join(out, name), "wb") as f:
        f.write(content)


vals = [float(i) for i in range(40)]
write("a4x8.npy", npy("<f4", [4, 8], struct.pack("<32f", *vals[:32])))
write("a5x8.npy", npy("<f4", [5, 8], struct.pack("<40f", *vals)))
write("a4x8-f16.npy", npy("<f2", [4, 8], struct.pack("<32e", *vals[:32])))
write("a4x8-f64.npy", npy("<f8", [4, 8], struct.pack("<32d", *vals[:32])))
write("a4x8-f64big.npy", npy("<f8", [4, 8], struct.pack("<32d", *([1e39] + vals[1:32]))))
write("a4x8-be.npy", npy(">f4", [4, 8], struct.pack(">32f", *vals[:32])))
write("empty.mlir", b"")
