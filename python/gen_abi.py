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


def header_enums(path):
    """(enum, [(enumerator, value)]) of every `typedef enum <e> { ... } <e>;`
    of the header, in order. Every enumerator needs an explicit value."""
    with open(path, encoding="utf-8") as f:
        text = strip_comments(f.read())
    enums = []
    for m in re.finditer(r"typedef\s+enum\s+(\w+)\s*\{([^}]*)\}\s*(\w+)\s*;",
                         text):
        if m.group(1) != m.group(3):
            raise GenError("%s: typedef enum %s { ... } %s; names two types"
                           % (path, m.group(1), m.group(3)))
        items = []
        for item in m.group(2).split(","):
            item = " ".join(item.split())
            if not item:
                continue
            e = re.fullmatch(r"(\w+) ?= ?(-?(?:0x[0-9a-fA-F]+|\d+))", item)
            if not e:
                raise GenError("%s: enumerator %r of %s has no literal value"
                               % (path, item, m.group(1)))
            items.append((e.group(1), int(e.group(2), 0)))
        enums.append((m.group(1), items))
    if not enums:
        raise GenError("%s: no typedef enum" % path)
    return enums


def generate_enums(header_path):
    """te/_enums.py: te_rt.h's enumerators without their TE_RT_ prefix."""
    out = ['"""The enumerators of te_rt.h (generated by python/gen_abi.py from',
           'runtime/include/te_rt.h; do not edit)."""', ""]
    seen = {}
    for enum, items in header_enums(header_path):
        out.append("# %s" % enum)
        for name, value in items:
            if not name.startswith("TE_RT_"):
                raise GenError("%s: enumerator %s of %s does not start with "
                               "TE_RT_" % (header_path, name, enum))
            py = name[len("TE_RT_"):]
            if py in seen:
                raise GenError("%s: %s and %s both become %s" %
                               (header_path, seen[py], name, py))
            seen[py] = name
            out.append("%s = %d" % (py, value))
        out.append("")
    out.append("# Each enum's enumerators by value, without the TE_RT_ prefix.")
    out.append("ENUMERATORS = {")
    for enum, items in header_enums(header_path):
        out.append('    "%s": {%s},' % (enum, ", ".join(
            '%d: "%s"' % (v, n[len("TE_RT_"):]) for n, v in items)))
    out += ["}", ""]
    return "\n".join(out)


def check_recipe_enum(header_path, recipes_path):
    """te_rt_recipe lists Recipes.def's recipes, in order, as
    TE_RT_RECIPE_<NAME>."""
    want = [("TE_RT_RECIPE_" + cells[1].strip('"').upper(), value)
            for value, cells in enumerate(recipe_rows(recipes_path))]
    got = dict(header_enums(header_path)).get("te_rt_recipe")
    if got != want:
        raise GenError("te_rt_recipe in %s is %s; %s lists %s" % (
            header_path, got, recipes_path, want))


RECIPE_COLUMNS = ("enum", "name", "title", "family", "per_tensor",
                  "live_scale", "amax_inputs", "group_amax", "block_size",
                  "scale_type", "emulated_on_sm90", "swizzled_scales")


def recipe_rows(path):
    """The TE_FORMAT_RECIPE(...) rows of te/Format/Recipes.def, in order."""
    with open(path, encoding="utf-8") as f:
        text = strip_comments(f.read())
    rows = []
    for m in re.finditer(r"^\s*TE_FORMAT_RECIPE\s*\(([^)]*)\)", text,
                         flags=re.M):
        cells = [c.strip() for c in
                 re.findall(r'"[^"]*"|[^,]+', m.group(1))]
        cells = [c for c in cells if c]
        if len(cells) != len(RECIPE_COLUMNS):
            raise GenError("%s: TE_FORMAT_RECIPE(%s) has %d columns, "
                           "expected %d (%s)" % (
                               path, " ".join(m.group(1).split()),
                               len(cells), len(RECIPE_COLUMNS),
                               ", ".join(RECIPE_COLUMNS)))
        rows.append(cells)
    if not rows:
        raise GenError("%s: no TE_FORMAT_RECIPE rows" % path)
    return rows


def generate_recipes(recipes_path):
    """te/_recipes.py: the recipe traits table of te/Format/Recipes.def."""
    flags = {"per_tensor", "live_scale", "group_amax", "emulated_on_sm90",
             "swizzled_scales"}
    ints = {"amax_inputs", "block_size"}
    out = ['"""The recipes and their facts (generated by python/gen_abi.py '
           'from',
           'include/te/Format/Recipes.def; do not edit)."""', "",
           "from collections import namedtuple", "",
           "RecipeTraits = namedtuple(\"RecipeTraits\", (",
           "    \"value\", %s))" % ", ".join(
               '"%s"' % c for c in RECIPE_COLUMNS[1:]), "",
           "# Indexed by the recipe's value (te_rt_recipe).",
           "TRAITS = ("]
    for value, cells in enumerate(recipe_rows(recipes_path)):
        args = ["value=%d" % value]
        for col, cell in zip(RECIPE_COLUMNS[1:], cells[1:]):
            if col in flags:
                if cell not in ("0", "1"):
                    raise GenError("%s: %s of %s is %r, not 0 or 1"
                                   % (recipes_path, col, cells[0], cell))
                args.append("%s=%s" % (col, cell == "1"))
            elif col in ints:
                args.append("%s=%d" % (col, int(cell, 0)))
            elif col == "scale_type":
                args.append('%s="%s"' % (col, cell.lower()))
            else:
                args.append("%s=%s" % (col, cell))
        out.append("    RecipeTraits(%s)," % ", ".join(args))
    out += [")", "", "BY_NAME = {t.name: t for t in TRAITS}", ""]
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--def", dest="def_path", required=True,
                   help="runtime/include/te_rt_abi.def")
    p.add_argument("--header", required=True, help="runtime/include/te_rt.h")
    p.add_argument("--output", required=True, help="the module to write")
    p.add_argument("--enums-output",
                   help="also write te_rt.h's enumerators to this module")
    p.add_argument("--recipes", help="include/te/Format/Recipes.def")
    p.add_argument("--recipes-output",
                   help="also write the recipe traits to this module")
    args = p.parse_args(argv)
    if bool(args.recipes) != bool(args.recipes_output):
        p.error("--recipes and --recipes-output go together")
    outputs = []
    try:
        outputs.append((args.output, generate(args.def_path, args.header)))
        if args.enums_output:
            outputs.append((args.enums_output, generate_enums(args.header)))
        if args.recipes_output:
            check_recipe_enum(args.header, args.recipes)
            outputs.append((args.recipes_output,
                            generate_recipes(args.recipes)))
    except (GenError, OSError) as e:
        print("gen_abi.py: error: %s" % e, file=sys.stderr)
        return 1
    for path, text in outputs:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
