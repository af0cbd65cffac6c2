#!/usr/bin/env python3
"""Check that the library's modules call each other in one direction only.

    check_layers.py NM OBJECT...

Reads, with `NM`, the symbols each object file of the duo library
defines and the ones it uses, and fails (exit 1) when a module uses a
symbol that only a module of a higher layer defines, or one of another
module in the same layer where that layer's modules must not call each
other.  The layers are those listed at the top of src/backend.h; an
object this script cannot place is a failure too, so a new file must be
given a layer here.  Prints each module, its layer and the modules it
uses, then one line: "layers: N objects, M violations".
"""
import os
import re
import subprocess
import sys

# (layer, name, whether its modules may call each other), bottom to top.
LAYERS = [
    (1, "bottom", False),
    (2, "state", False),
    (3, "init_state", False),
    (4, "backend", True),
    (5, "shared", True),
    (6, "profile", False),
    (7, "calls", False),
    (8, "runtime", False),
    (9, "top", True),
]
GROUPED = {layer: grouped for layer, _, grouped in LAYERS}
LAYER_NAME = {layer: name for layer, name, _ in LAYERS}


def module_of(path):
    """The module name and layer of one object file of the library."""
    rel = path.replace(os.sep, "/")
    rel = re.sub(r"^(.*/duo\.dir/|\./)", "", rel)
    rel = rel.replace("__/", "")
    rel = re.sub(r"\.(c|cu)\.o(bj)?$", "", rel)
    if rel.startswith("distributed/") or rel == "backend_cuda/dist":
        return rel, 9
    if rel.startswith(("backend_cpu/", "backend_cuda/", "dispatch/")):
        return rel, 4
    fixed = {"error": 1, "dtype": 1, "cpu_required": 1, "cpu_check": 2,
             "capture": 2, "registry": 2, "init_state": 3,
             "validate": 5, "validate_launch": 5, "validate_ops": 5,
             "prim_check": 5, "profile": 6, "graph": 7, "memory": 7,
             "timer": 7, "reduce": 7, "segmented": 7, "gemm": 7, "sort": 7,
             "select": 7, "histogram": 7, "scan": 7, "runtime": 8,
             "check": 9}
    return rel, fixed.get(rel)


def symbols(nm, path):
    """(defined, used) global symbol names of an object file."""
    out = subprocess.run([nm, "-g", path], capture_output=True, text=True,
                         check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] not in ("U", "w", "v"):
            defined.add(parts[2])
    return defined, used


def main():
    if len(sys.argv) < 3:
        print("usage: check_layers.py NM OBJECT...", file=sys.stderr)
        return 2
    nm, objects = sys.argv[1], sys.argv[2:]
    modules = {}
    definers = {}
    violations = []
    for path in objects:
        name, layer = module_of(path)
        if layer is None:
            violations.append("%s: no layer for this object; add it to "
                              "src/backend.h and tests/check_layers.py"
                              % name)
            continue
        defined, used = symbols(nm, path)
        modules[name] = (layer, used)
        for s in defined:
            definers.setdefault(s, set()).add(name)
    for name in sorted(modules, key=lambda m: (modules[m][0], m)):
        layer, used = modules[name]
        calls = {}
        for s in used:
            # A symbol some module defines (several, for template code
            # instantiated in more than one file: the lowest counts).
            owners = definers.get(s, set()) - {name}
            if not owners or name in definers.get(s, set()):
                continue
            owner = min(owners, key=lambda m: modules[m][0])
            calls.setdefault(owner, []).append(s)
        print("%d %-12s %s" % (layer, LAYER_NAME[layer], name))
        for owner in sorted(calls, key=lambda m: (modules[m][0], m)):
            olayer = modules[owner][0]
            bad = olayer > layer or (olayer == layer and not GROUPED[layer])
            print("      %s %s: %s" % ("VIOLATION" if bad else "uses", owner,
                                      " ".join(sorted(calls[owner]))))
            if bad:
                violations.append("%s (layer %d) uses %s (layer %d): %s"
                                  % (name, layer, owner, olayer,
                                     " ".join(sorted(calls[owner]))))
    for v in violations:
        print("FAIL: " + v)
    print("layers: %d objects, %d violations" % (len(objects),
                                                 len(violations)))
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
