#!/usr/bin/env python3
"""check_docs.py - the documentation's links and its one quoted program.

    check_docs.py ROOT

1. Every relative link and image in ROOT's Markdown files ([text](path),
   [text](path#anchor), [text](#anchor), ![alt](path)) must name a file or
   folder that exists, and an anchor must be one that GitHub gives a
   heading of the target file (lowercased, punctuation other than '-' and
   '_' dropped, spaces as '-', '-1', '-2' ... on repeats).  Links to other
   sites (scheme:...) are not followed; code blocks and inline code are
   not prose, so links there are not checked.
2. README.md's first ```c block must be src/examples/scale_add.c without
   its header comment: the example is built and run as a test
   (readme_example), so what the README shows is what runs.

Prints each problem as FILE:LINE: what, then a count; exits 1 if there is
any problem, 0 otherwise, 2 on bad usage.  Hidden folders and top-level
folders named build* (build output) are not searched.
"""
import os
import re
import sys
import unicodedata

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]"
                  r"\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
FENCE = re.compile(r"^ {0,3}(```|~~~)")
HTML_ID = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)
SCHEME = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        top = os.path.samefile(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                             and not (top and d.startswith("build")))
        for name in sorted(filenames):
            if name.endswith(".md"):
                yield os.path.join(dirpath, name)


def without_fences(text):
    """text with the lines of fenced code blocks blanked, line breaks kept
    (so that an offset still gives a line number)."""
    out, fence = [], None
    for line in text.split("\n"):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            out.append("")
        else:
            out.append(line if fence is None else "")
    return "\n".join(out)


def prose(text):
    """without_fences(text) with inline code spans blanked too: what is
    left may hold links, and a link may span lines."""
    return re.sub(r"`[^`]*`", lambda m: re.sub(r"[^\n]", " ", m.group(0)),
                  without_fences(text))


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links
    text = re.sub(r"<[^>]+>", "", text)                        # html tags
    out = []
    for ch in text.lower():
        if ch == " ":
            out.append("-")
        elif ch in "-_" or unicodedata.category(ch)[0] in "LN":
            out.append(ch)
    return "".join(out)


def anchors(path, cache):
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            text = without_fences(f.read())
        seen, found = {}, set(HTML_ID.findall(text))
        for line in text.split("\n"):
            h = HEADING.match(line)
            if h:
                base = slug(h.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else "%s-%d" % (base, n))
        cache[path] = found
    return cache[path]


def check_links(root, problems):
    count, cache = 0, {}
    for md in markdown_files(root):
        rel = os.path.relpath(md, root)
        with open(md, encoding="utf-8") as f:
            text = prose(f.read())
        for m in LINK.finditer(text):
            target = m.group(1)
            if not target or SCHEME.match(target):
                continue
            count += 1
            where = "%s:%d" % (rel, text.count("\n", 0, m.start()) + 1)
            path, _, anchor = target.partition("#")
            dest = md if not path else os.path.normpath(
                os.path.join(os.path.dirname(md), path))
            if not os.path.exists(dest):
                problems.append("%s: %s: no such file" % (where, target))
            elif not anchor:
                pass
            elif not dest.endswith(".md"):
                problems.append("%s: %s: an anchor into a file that is not "
                                "Markdown" % (where, target))
            elif anchor not in anchors(dest, cache):
                problems.append("%s: %s: no heading with that anchor in %s"
                                % (where, target, os.path.relpath(dest, root)))
    return count


def check_example(root, problems):
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        m = re.search(r"^```c\n(.*?)^```$", f.read(), re.S | re.M)
    with open(os.path.join(root, "src", "examples", "scale_add.c"),
              encoding="utf-8") as f:
        code = f.read()
    # The file's header comment says what it is; the README says it in prose.
    code = re.sub(r"\A/\*.*?\*/\n", "", code, flags=re.S)
    if m is None:
        problems.append("README.md: no ```c block (the scale_add example)")
    elif m.group(1) != code:
        problems.append("README.md: its ```c block is not "
                        "src/examples/scale_add.c (less its header comment)")


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: check_docs.py ROOT (the source tree)", file=sys.stderr)
        return 2
    problems = []
    links = check_links(argv[1], problems)
    check_example(argv[1], problems)
    for p in problems:
        print(p)
    print("check_docs: %d relative links checked, %d problem(s)"
          % (links, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
