"""Reads and writes .npy files without numpy (Debian's default python3 has
none): the dtypes te-run reads and writes, little-endian, C order."""
import struct

FORMATS = {"<f4": "f", "<f8": "d", "|i1": "b", "<i2": "h", "<i4": "i",
           "<i8": "q", "|u1": "B", "<u2": "H", "<u4": "I", "<u8": "Q",
           "|b1": "B"}


def encode(descr, shape, values):
    """The bytes of an .npy file of `values` (flat, C order)."""
    dims = "%d," % shape[0] if len(shape) == 1 else \
        ", ".join(str(d) for d in shape)
    text = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, dims)
    text += " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
    data = struct.pack("<%d%s" % (len(values), FORMATS[descr]), *values)
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) +
            text.encode() + data)


def write(path, descr, shape, values):
    with open(path, "wb") as f:
        f.write(encode(descr, shape, values))


def read(path):
    """(descr, shape, flat values) of the .npy file at `path`."""
    with open(path, "rb") as f:
        raw = f.read()
    assert raw[:6] == b"\x93NUMPY", path
    n = struct.unpack("<H", raw[8:10])[0]
    header = eval(raw[10:10 + n].decode())  # a dict literal
    count = 1
    for d in header["shape"]:
        count *= d
    values = struct.unpack("<%d%s" % (count, FORMATS[header["descr"]]),
                           raw[10 + n:10 + n + count *
                               struct.calcsize(FORMATS[header["descr"]])])
    return header["descr"], tuple(header["shape"]), list(values)


def f32(x):
    """`x` rounded to the nearest f32."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bf16(x):
    """`x` (a float32) rounded to the nearest bfloat16, ties to even."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]
