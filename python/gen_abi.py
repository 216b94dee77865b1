#!/usr/bin/env python3
"""Writes te/_quantizer_fields.py: the ctypes fields of te_rt_quantizer.

    gen_abi.py --def te_rt_abi.def --header te_rt.h --output _quantizer_fields.py

The quantizer's fields are those of the TE_RT_ABI_QUANTIZER_FIELD lines of
te_rt_abi.def, the one list of them. The table names each field's member of
te_rt_quantizer but not its C type, so the types come from the struct's
declaration in te_rt.h, which also gives the layout: the fields are written
in the order of the struct's members, and a member the table does not list
(padding, a header) is written as the struct declares it. A table field the
struct lacks, a member the table lists twice, or a C type without a ctypes
equivalent stops the generation with a message.

Standard library only; run by python/CMakeLists.txt at build time.
"""

import argparse
import re
import sys

# C types of te_rt.h -> ctypes. Enums (typedef enum ... of te_rt.h) are
# c_int: C gives an enum without a fixed underlying type the size of int on
# the platforms te supports.
CTYPES = {
    "int8_t": "c_int8", "uint8_t": "c_uint8",
    "int16_t": "c_int16", "uint16_t": "c_uint16",
    "int32_t": "c_int32", "uint32_t": "c_uint32",
    "int64_t": "c_int64", "uint64_t": "c_uint64",
    "int": "c_int", "unsigned": "c_uint", "unsigned int": "c_uint",
    "char": "c_char", "float": "c_float", "double": "c_double",
    "size_t": "c_size_t", "void *": "c_void_p",
}


class GenError(Exception):
    pass


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def def_fields(path):
    """(c_field, config_field) of every TE_RT_ABI_QUANTIZER_FIELD line."""
    with open(path, encoding="utf-8") as f:
        text = strip_comments(f.read())
    fields = []
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("#") or not s.startswith("TE_RT_ABI_QUANTIZER_FIELD"):
            continue
        m = re.fullmatch(r"TE_RT_ABI_QUANTIZER_FIELD\s*\(\s*(\w+)\s*,"
                         r"\s*(\w+)\s*\)", s)
        if not m:
            raise GenError("%s:%d: cannot read the quantizer field line %r "
                           "(expected TE_RT_ABI_QUANTIZER_FIELD(c_field, "
                           "config_field))" % (path, lineno, s))
        fields.append((m.group(1), m.group(2)))
    if not fields:
        raise GenError("%s: no TE_RT_ABI_QUANTIZER_FIELD lines" % path)
    names = [c for c, _ in fields]
    for name in names:
        if names.count(name) > 1:
            raise GenError("%s: quantizer field '%s' is listed %d times"
                           % (path, name, names.count(name)))
    return fields


def struct_members(path, struct):
    """(name, ctypes expression) of every member of `typedef struct <struct>
    { ... } <struct>;` in the header, in order."""
    with open(path, encoding="utf-8") as f:
        text = strip_comments(f.read())
    enums = set(re.findall(r"typedef\s+enum\s+\w*\s*\{[^}]*\}\s*(\w+)\s*;",
                           text))
    defines = {m.group(1): int(m.group(2), 0) for m in re.finditer(
        r"^\s*#\s*define\s+(\w+)\s+\(?\s*(0x[0-9a-fA-F]+|\d+)\s*\)?\s*$",
        text, flags=re.M)}
    m = re.search(r"typedef\s+struct\s+%s\s*\{([^}]*)\}\s*%s\s*;"
                  % (struct, struct), text)
    if not m:
        raise GenError("%s: no `typedef struct %s { ... } %s;`"
                       % (path, struct, struct))
    members = []
    for decl in m.group(1).split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        d = re.fullmatch(r"(?:const )?([\w ]*?\w(?: ?\*)?) ?\b(\w+)"
                         r"(?: ?\[ ?(\w+) ?\])?", decl)
        if not d:
            raise GenError("%s: cannot read the member declaration %r of %s"
                           % (path, decl, struct))
        ctype, name, count = d.group(1), d.group(2), d.group(3)
        ctype = re.sub(r" ?\*$", " *", ctype)
        if ctype in enums:
            py = "c_int"
        elif ctype in CTYPES:
            py = CTYPES[ctype]
        else:
            raise GenError(
                "%s: member '%s' of %s has C type '%s', which gen_abi.py "
                "does not map to ctypes (known: %s and the enums of the "
                "header); add it to CTYPES in %s"
                % (path, name, struct, ctype, ", ".join(sorted(CTYPES)),
                   __file__))
        if count is not None:
            if count.isdigit():
                n = int(count)
            elif count in defines:
                n = defines[count]
            else:
                raise GenError("%s: member '%s' of %s has array size '%s', "
                               "neither a number nor a #define of the header"
                               % (path, name, struct, count))
            py = "%s * %d" % (py, n)
        members.append((name, py, ctype))
    return members


def generate(def_path, header_path):
    fields = def_fields(def_path)
    members = struct_members(header_path, "te_rt_quantizer")
    member_names = [name for name, _, _ in members]
    missing = [c for c, _ in fields if c not in member_names]
    if missing:
        raise GenError(
            "%s lists quantizer field(s) %s that te_rt_quantizer in %s does "
            "not have (members: %s)" % (def_path, ", ".join(missing),
                                        header_path, ", ".join(member_names)))
    listed = {c for c, _ in fields}
    out = ['"""The fields of te_rt_quantizer for ctypes (generated by '
           'python/gen_abi.py',
           "from runtime/include/te_rt_abi.def and te_rt.h; do not edit)."
           '"""', "",
           "from ctypes import (%s)" % ", ".join(sorted(
               {py.split()[0] for _, py, _ in members})), "",
           "# te_rt_abi.def's quantizer fields, in the table's order (the "
           "order of a",
           "# quantizer descriptor's words).",
           "QUANTIZER_FIELDS = ("]
    out += ['    "%s",' % c for c, _ in fields]
    out += [")", "", "# te_rt_quantizer's members, in the struct's order.",
            "FIELDS = ["]
    for name, py, ctype in members:
        note = "" if name in listed else "  # not in te_rt_abi.def"
        out.append('    ("%s", %s),  # %s%s' % (name, py, ctype, note))
    out += ["]", ""]
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--def", dest="def_path", required=True,
                   help="runtime/include/te_rt_abi.def")
    p.add_argument("--header", required=True, help="runtime/include/te_rt.h")
    p.add_argument("--output", required=True, help="the module to write")
    args = p.parse_args(argv)
    try:
        text = generate(args.def_path, args.header)
    except (GenError, OSError) as e:
        print("gen_abi.py: error: %s" % e, file=sys.stderr)
        return 1
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
