#!/usr/bin/env python3
"""Checks that every citation of docs/formats.md names a section that exists.

Code and documents cite the formats reference as `formats.md §N` or
`formats.md §N.M`, also as lists (`§5, §6`, `§3, §4; §9`, `§3.1/§3.2`,
`§5 and §6`) and ranges (`§3.1-3.5`, `§3-§5`, `§2-3`); the citation may
continue on the next line (after a comment leader such as `//`, `#` or `*`).
Inside docs/formats.md itself every `§N` cross-reference is checked.

A section exists when docs/formats.md has a Markdown heading that starts
with its number, e.g. `## 3. Per-quantizer specifications` or
`### 3.2 Per-tensor current scaling`. A range needs every section between
its ends.

Scans the files `git ls-files` lists (falling back to walking the tree when
git is unavailable), skipping binary files. Exits 1 with one line per bad
citation, `path:line: ...`, or 0 with a one-line summary. Standard library
only.

Usage: check-citations.py [--root <repository root>]
"""

import argparse
import os
import re
import subprocess
import sys

FORMATS = "docs/formats.md"

# A heading that starts with a section number: "## 3." / "### 3.2 ...".
HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?(?:\s|$)")

NUM = r"\d+(?:\.\d+)?"
# One item of a citation list: "§3.2", or a range "§3.1-3.5" / "§3-§5".
ITEM = r"§\s?" + NUM + r"(?:\s*[-–]\s*§?\s?" + NUM + r")?"
# A line break inside a citation, with the next line's comment leader.
BREAK = r"(?:[ \t]*\n[ \t]*(?:///?|#|\*|--|;)?)?[ \t]*"
# Separators between items: ", " "; " "/" " and " (each followed by §).
SEP = r"(?:[ \t]*(?:,|;|/|\band\b)" + BREAK + ")"
# The file name, an optional closing backtick or quote, then whitespace that
# may cross one line break and a comment leader.
LEAD = r"formats\.md[`'\"]?" + BREAK
CITATION = re.compile(LEAD + "(" + ITEM + "(?:" + SEP + ITEM + ")*)")
ITEM_RE = re.compile(r"§\s?(" + NUM + r")(?:\s*[-–]\s*§?\s?(" + NUM + r"))?")
# Cross-references inside docs/formats.md.
SELF_REF = re.compile(r"§(" + NUM + r")(?:\s*[-–]\s*§?(" + NUM + r"))?")


def headings(text):
    """The section numbers of the headings of `text` (outside code fences)."""
    found = set()
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        m = HEADING.match(line)
        if m:
            found.add(m.group(1))
    return found


def expand(first, last):
    """The sections a citation names: one, or every one of a range."""
    if last is None:
        return [first]
    a = first.split(".")
    b = last.split(".")
    if len(b) == 1 and len(a) == 2:  # §3.1-3.5 written as §3.1-5
        b = [a[0], b[0]]
    if len(a) != len(b) or a[:-1] != b[:-1]:
        return [first, last]
    lo, hi = int(a[-1]), int(b[-1])
    if lo > hi:
        return [first, last]
    prefix = ".".join(a[:-1])
    return [(prefix + "." if prefix else "") + str(i) for i in range(lo, hi + 1)]


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                             check=True, capture_output=True).stdout
        return [p for p in out.decode("utf-8", "surrogateescape").split("\0")
                if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames
                           if not d.startswith(".") and not d.startswith("build")]
            for name in filenames:
                files.append(os.path.relpath(os.path.join(dirpath, name), root))
        return files


def read_text(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), os.pardir))
    args = parser.parse_args()
    root = os.path.abspath(args.root)

    formats_text = read_text(os.path.join(root, FORMATS))
    if formats_text is None:
        print(f"check-citations: {FORMATS} is missing or unreadable")
        return 1
    sections = headings(formats_text)
    me = os.path.relpath(os.path.abspath(__file__), root)

    errors = []
    count = 0
    for rel in tracked_files(root):
        if rel == me:
            continue
        text = read_text(os.path.join(root, rel))
        if text is None:
            continue
        if rel == FORMATS:
            matches = [(m.start(), m.group(1), m.group(2))
                       for m in SELF_REF.finditer(text)]
        else:
            if "formats.md" not in text:
                continue
            matches = []
            for m in CITATION.finditer(text):
                for item in ITEM_RE.finditer(m.group(1)):
                    matches.append((m.start(1) + item.start(),
                                    item.group(1), item.group(2)))
        for offset, first, last in matches:
            count += 1
            missing = [s for s in expand(first, last) if s not in sections]
            if missing:
                cited = "§" + first + ("-" + last if last else "")
                line = line_of(text, offset)
                src = text.splitlines()[line - 1].strip()
                errors.append(f"{rel}:{line}: formats.md {cited}: no section "
                              f"{', '.join('§' + s for s in missing)} in "
                              f"{FORMATS}  [{src}]")

    if errors:
        print("\n".join(errors))
        print(f"check-citations: {len(errors)} of {count} citations of "
              f"{FORMATS} name a section that does not exist (its headings: "
              f"{', '.join(sorted(sections, key=lambda s: [int(x) for x in s.split('.')]))})")
        return 1
    print(f"check-citations: {count} citations of {FORMATS}, all sections exist")
    return 0


if __name__ == "__main__":
    sys.exit(main())
