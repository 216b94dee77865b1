"""Writes hostile .npy files into the directory given as argv[1].

Each file breaks one rule of the .npy format (or of te's shape limits); the
lit tests beside this script pin te-quantize's one-line error for each.
"""
import os
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def header(text, version=1):
    # Pads the header to a multiple of 64 bytes, as numpy does.
    pre = 10 if version == 1 else 12
    text += " " * ((64 - (pre + len(text) + 1) % 64) % 64) + "\n"
    size = struct.pack("<H", len(text)) if version == 1 else struct.pack("<I", len(text))
    return b"\x93NUMPY" + bytes([version, 0]) + size + text.encode("latin-1")


def npy(descr, shape, data=b"", version=1, extra=""):
    dims = "".join("%s, " % d for d in shape) if len(shape) == 1 else ", ".join(str(d) for d in shape)
    h = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), %s}" % (descr, dims, extra)
    return header(h, version) + data


def write(name, content):
    with open(os.path.join(out, name), "wb") as f:
        f.write(content)


f32 = lambda *v: struct.pack("<%df" % len(v), *v)
inf, nan = float("inf"), float("nan")

write("empty.npy", b"")
write("badmagic.npy", b"\x93NUMPZ\x01\x00" + b"\x00" * 64)
write("version3.npy", b"\x93NUMPY\x03\x00" + b"\x00" * 64)
# Header length beyond the end of the file.
write("longheader.npy", b"\x93NUMPY\x01\x00\xff\xff{'descr': '<f4'")
write("v2longheader.npy", b"\x93NUMPY\x02\x00\xff\xff\xff\xff{")
write("nodescr.npy", header("{'fortran_order': False, 'shape': (4,), }") + f32(1, 2, 3, 4))
write("noshape.npy", header("{'descr': '<f4', 'fortran_order': False, }") + f32(1, 2, 3, 4))
write("badshape.npy", npy("<f4", ["a", "b"]))
write("negdim.npy", npy("<f4", [-4, 4]))
write("unclosed.npy", header("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4") + f32(1))
write("dimoverflow.npy", npy("<f4", [99999999999999999999, 1]))
write("toolarge.npy", npy("<f4", [2**62, 4]))
write("manylarge.npy", npy("<f4", [2**31, 2**31, 2**31]))
write("truncated.npy", npy("<f4", [4, 4], f32(1, 2)))
write("rank9.npy", npy("<f4", [1] * 9, f32(1)))
write("bigendian.npy", npy(">f4", [4], f32(1, 2, 3, 4)))
write("zerosize.npy", npy("<f4", [0, 32]))
write("nonfinite.npy", npy("<f4", [1, 4], f32(nan, inf, -inf, 1.0)))
# A valid file followed by garbage: the extra bytes are ignored.
write("trailing.npy", npy("<f4", [1, 4], f32(nan, inf, -inf, 1.0) + b"garbage"))

# numpy's header rules (numpy.lib.format): what numpy rejects is rejected.
write("version15.npy", b"\x93NUMPY\x01\x05" + npy("<f4", [1, 4], f32(1, 2, 3, 4))[8:])
# A repeated key keeps its last value in Python's dict, so in numpy.
write("dupdescr.npy", header("{'descr': '<u2', 'descr': '<f4', 'fortran_order': False, 'shape': (1, 4), }") + f32(1, 2, 3, 4))
write("extrakey.npy", header("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1, }") + f32(1, 2, 3, 4))
write("notuple.npy", header("{'descr': '<f4', 'fortran_order': False, 'shape': (4), }") + f32(1, 2, 3, 4))
write("fortranint.npy", header("{'descr': '<f4', 'fortran_order': 0, 'shape': (4,), }") + f32(1, 2, 3, 4))
write("nuldescr.npy", header("{'descr': '<f4\0garbage', 'fortran_order': False, 'shape': (4,), }") + f32(1, 2, 3, 4))
write("shortheader.npy", b"\x93NUMPY\x01\x00\x80\x00{'descr': '<f4'")
# float16 / float64 inputs are converted; float64 beyond float32's range and
# big-endian data are refused.
f16 = lambda *v: struct.pack("<%de" % len(v), *v)
f64 = lambda *v: struct.pack("<%dd" % len(v), *v)
vals = [float(i) for i in range(32)]
write("f32.npy", npy("<f4", [1, 32], f32(*vals)))
write("f16.npy", npy("<f2", [1, 32], f16(*vals)))
write("f64.npy", npy("<f8", [1, 32], f64(*vals)))
write("f64big.npy", npy("<f8", [1, 32], f64(*([1e300] + vals[1:]))))
write("bigendian64.npy", npy(">f8", [4], struct.pack(">4d", 1, 2, 3, 4)))
write("dupref.npy", npy("<f4", [1, 4], f32(1, 2, 3, 4)))
