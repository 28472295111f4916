"""What scripts/make_unicode_bert.py and scripts/make_unicode_categories.py share: the code-point
ranges of a set of Unicode general categories, and a C++ table of them (CodePointRange)."""
import unicodedata


def ranges(inside_category):
    """The maximal runs [first, last] of code points whose general category passes
    inside_category (a function of the two-letter category name, e.g. "Lu")."""
    out, start = [], None
    for cp in range(0x110000):
        inside = inside_category(unicodedata.category(chr(cp)))
        if inside and start is None:
            start = cp
        if not inside and start is not None:
            out.append((start, cp - 1))
            start = None
    if start is not None:
        out.append((start, 0x10FFFF))
    return out


def table(name, rs):
    """A CodePointRange array `name` and its `name_count`, as C++ source."""
    rows = ",\n".join("    {0x%X, 0x%X}" % r for r in rs)
    return f"const CodePointRange {name}[] = {{\n{rows}}};\nconst std::size_t {name}_count = {len(rs)};\n"
