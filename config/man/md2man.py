#!/usr/bin/env python3
"""md2man.py - reclaimd.json(5) from docs/configuration.md, the configuration reference.

docs/configuration.md is the one source of the configuration reference; this turns it into a man
page, so the two cannot drift: the "# " title is the page's NAME, a "## " heading becomes .SH and
a "### " one .SS, a table row a .TP entry (the key, then type, default and range, then the
meaning), a fenced block an example, a "- " item a bullet, `code` bold. A link to a section of the
reference, [text](#anchor), becomes "text"; a link anywhere else is an error, so the man page never
points to a section that is not in it. Lines from "<!-- md2man: skip -->" to "<!-- md2man: end -->"
are for the forge's reader only and are left out. tests/pkg/check-doc-keys.sh checks that every
key of the config tables (agent/config/*.c) is in both.

Usage: md2man.py [--version V] docs/configuration.md > reclaimd.json.5
Exit status: 0, or 1 when the file has no "# " title, a link leaves the page, or an #anchor names
no heading of it (the message names the file and line).
"""
import re
import sys

SKIP_BEGIN = "<!-- md2man: skip -->"
SKIP_END = "<!-- md2man: end -->"


class LinkError(Exception):
    pass


def slug(heading):
    """The anchor a forge (GitHub) gives a heading: lower case, punctuation but - and _ dropped,
    spaces as hyphens."""
    h = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return h.replace(" ", "-")


def links(text, anchors, where):
    """[text](#anchor) -> "text" when the anchor is a heading of the page; anything else raises."""
    def rep(m):
        target = m.group(2)
        if not target.startswith("#"):
            raise LinkError("%s: link to %s: reclaimd.json(5) may only point to its own sections"
                            % (where, target))
        if target[1:] not in anchors:
            raise LinkError("%s: link to %s: no such heading in the reference" % (where, target))
        return '"' + m.group(1) + '"'
    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", rep, text)


def esc(text):
    """Escapes roff specials in running text and turns markdown inline markup into fonts."""
    text = text.replace("\\", "\\e")
    text = text.replace("-", "\\-")
    out = []
    # `code` -> bold, **strong** -> bold; the rest as is.
    for i, part in enumerate(re.split(r"(`[^`]*`)", text)):
        if i % 2 == 1:
            out.append("\\fB" + part[1:-1] + "\\fR")
        else:
            out.append(re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", part))
    return "".join(out)


def line_out(text):
    """A text line that cannot be taken for a request (leading . or ')."""
    if text.startswith((".", "'")):
        return "\\&" + text
    return text


def cells(row):
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    # A | inside `code` is not a separator (none in the reference today, but be safe).
    parts, cur, code = [], "", False
    for ch in row:
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def convert(lines, version):
    out = [
        '.TH RECLAIMD.JSON 5 "" "reclaimd %s" "File Formats"' % version,
        ".SH NAME",
        "reclaimd.json \\- configuration file of reclaimd",
        ".SH SYNOPSIS",
        ".I /etc/reclaimd/reclaimd.json",
        ".SH DESCRIPTION",
    ]
    i = 0
    header = None
    while i < len(lines):
        ln = lines[i].rstrip("\n")
        if ln.startswith("## "):
            out.append(".SH " + esc(ln[3:].upper()))
            header = None
        elif ln.startswith("### "):
            out.append(".SS " + esc(ln[4:]))
            header = None
        elif ln.startswith("```"):
            out += [".PP", ".nf", ".RS 4"]
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(line_out(lines[i].rstrip("\n").replace("\\", "\\e").replace("-", "\\-")))
                i += 1
            out += [".RE", ".fi"]
        elif ln.startswith("|"):
            row = cells(ln)
            if header is None:
                header = row
            elif not all(re.fullmatch(r":?-+:?", c) for c in row):
                out.append(".TP")
                out.append(line_out(esc(row[0])))
                extra = []
                for name, val in zip(header[1:-1], row[1:-1]):
                    if val and val not in ("–", "-"):
                        extra.append("%s: %s" % (name, val))
                if extra:
                    out.append(line_out("(" + esc("; ".join(extra)) + ")"))
                    out.append(".br")
                out.append(line_out(esc(row[-1])))
        elif ln.startswith("- "):
            out += [".IP \\(bu 2", line_out(esc(ln[2:].strip()))]
        elif ln.startswith("  ") and ln.strip() and out and not out[-1].startswith(".PP"):
            out.append(line_out(esc(ln.strip())))
        elif not ln.strip():
            header = None
            out.append(".PP")
        else:
            out.append(line_out(esc(ln)))
        i += 1
    out += [
        ".SH FILES",
        ".TP",
        ".I /etc/reclaimd/reclaimd.json",
        "The configuration the unit passes with \\fB\\-\\-config\\fR.",
        ".SH SEE ALSO",
        ".BR reclaimd (8),",
        ".BR reclaimctl (8),",
        ".I /usr/share/doc/reclaimd/README.md.gz",
    ]
    # Collapse runs of paragraph breaks.
    res = []
    for o in out:
        if o == ".PP" and res and res[-1] in (".PP", ".SH DESCRIPTION") or \
           (o == ".PP" and res and res[-1].startswith(".SH")):
            continue
        res.append(o)
    return "\n".join(res) + "\n"


def prepare(path, lines):
    """The page's body: the title line and skipped blocks left out, links resolved (LinkError
    naming path:line when one leaves the page or names no heading)."""
    if not lines or not lines[0].startswith("# "):
        raise LinkError("%s:1: no \"# \" title line" % path)
    anchors, fence = set(), False
    for ln in lines:
        if ln.startswith("```"):
            fence = not fence
        elif not fence and re.match(r"#{1,6} ", ln):
            anchors.add(slug(ln.lstrip("#").replace("`", "")))
    body, fence, skip = [], False, False
    for n, ln in enumerate(lines[1:], start=2):
        if ln.rstrip("\n") == SKIP_BEGIN:
            skip = True
        elif ln.rstrip("\n") == SKIP_END:
            skip = False
        elif not skip:
            if ln.startswith("```"):
                fence = not fence
            body.append(ln if fence else links(ln, anchors, "%s:%d" % (path, n)))
    return body


def main(argv):
    version = "unknown"
    args = argv[1:]
    if len(args) >= 2 and args[0] == "--version":
        version = args[1]
        args = args[2:]
    if len(args) != 1:
        sys.stderr.write(__doc__)
        return 2
    with open(args[0], encoding="utf-8") as f:
        lines = f.readlines()
    try:
        body = prepare(args[0], lines)
    except LinkError as e:
        sys.stderr.write("md2man.py: %s\n" % e)
        return 1
    sys.stdout.write(convert(body, version))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
