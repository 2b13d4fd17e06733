#!/usr/bin/env python3
"""check-doc-links.py - every relative link of README.md and docs/*.md resolves as a forge
(GitHub) renders it: the file exists (relative to the linking file's directory), and an #anchor
names a heading of the target file, by GitHub's rule (lower case; characters other than letters,
digits, '_', '-' and spaces dropped; spaces as '-'; a repeated heading gets -1, -2, ...).
Links to http(s)/mailto are not checked, nor anything in fenced code or `code spans`.

Usage: check-doc-links.py [--allow-missing FILE]... [FILE.md]...
  With no FILE: README.md and docs/*.md, from the repository root (the current directory).
  --allow-missing FILE: a file another branch adds (its links may be dangling until it lands);
  a link to it counts as resolved, an #anchor into it cannot be checked and fails.
Output: one "BROKEN file:line: target: why" line per broken link, then
"check-doc-links: N links, N files, N broken". Exit status 0 when none is broken, 1 otherwise,
2 on bad usage.
"""
import glob
import os
import re
import sys

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def slug(heading):
    h = heading.strip().lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def strip_inline(text):
    """A heading's text as GitHub slugs it: inline markup kept as its visible text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links -> their text
    return text.replace("`", "").replace("*", "")


def prose_lines(path):
    """(line number, text) of the lines outside fenced code, code spans blanked."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence = False
    for n, ln in enumerate(lines, start=1):
        if ln.lstrip().startswith("```"):
            fence = not fence
            continue
        if not fence:
            yield n, re.sub(r"`[^`]*`", "``", ln)


def heading_texts(path):
    """Headings with their code spans kept (prose_lines blanks them, which changes the slug)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence, out = False, []
    for ln in lines:
        if ln.lstrip().startswith("```"):
            fence = not fence
        elif not fence and re.match(r"^#{1,6}\s", ln):
            out.append(ln)
    return out


def anchors_of(path, cache):
    if path not in cache:
        seen, out = {}, set()
        for ln in heading_texts(path):
            s = slug(strip_inline(ln.lstrip("#")))
            if s in seen:
                seen[s] += 1
                out.add("%s-%d" % (s, seen[s]))
            else:
                seen[s] = 0
                out.add(s)
        cache[path] = out
    return cache[path]


def main(argv):
    args, allow = [], set()
    it = iter(argv[1:])
    for a in it:
        if a == "--allow-missing":
            try:
                allow.add(os.path.normpath(next(it)))
            except StopIteration:
                sys.stderr.write(__doc__)
                return 2
        elif a.startswith("-"):
            sys.stderr.write(__doc__)
            return 2
        else:
            args.append(a)
    files = args or ["README.md"] + sorted(glob.glob("docs/*.md"))
    cache, n_links, broken = {}, 0, 0
    for src in files:
        base = os.path.dirname(src)
        for n, ln in prose_lines(src):
            for m in LINK.finditer(ln):
                target = m.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue
                n_links += 1
                path, _, frag = target.partition("#")
                dest = os.path.normpath(os.path.join(base, path)) if path else src
                why = None
                if path and not os.path.exists(dest):
                    if dest not in allow:
                        why = "no such file %s" % dest
                    elif frag:
                        why = "%s is not in this tree; its anchors cannot be checked" % dest
                elif frag:
                    if not dest.endswith(".md") or os.path.isdir(dest):
                        why = "an #anchor into %s, which is not a markdown file" % dest
                    elif frag not in anchors_of(dest, cache):
                        why = "no heading in %s gives #%s" % (dest, frag)
                if why:
                    broken += 1
                    print("BROKEN %s:%d: %s: %s" % (src, n, target, why))
    print("check-doc-links: %d links, %d files, %d broken" % (n_links, len(files), broken))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
