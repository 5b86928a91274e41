#!/usr/bin/env python3
"""Fails if the library's modules import each other in a circle.

For every directory of `src/`, the modules directly in it form a graph: an edge A -> B when
code anywhere inside A names `crate::…` or `super::…` paths inside B. Unit tests and the
binary (`src/cli/`) are left out. Any circle in any of these graphs is printed and fails.
"""

import os
import re
import sys


def modules(root):
    """Module path (a tuple of names) -> source file, for the library."""
    found = {}
    for directory, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(directory, name)
            parts = os.path.relpath(path, root)[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            if (parts and parts[0] == "cli") or "tests" in parts:
                continue
            found[tuple(parts)] = path
    return found


def without_unit_tests(source):
    cut = source.find("#[cfg(test)]\nmod tests")
    return source if cut < 0 else source[:cut]


def dependencies(found):
    edges = {}
    for module, path in found.items():
        with open(path, encoding="utf-8") as f:
            source = without_unit_tests(f.read())
        named = set()
        for m in re.finditer(r"\bcrate::((?:\w+::)*\w+)", source):
            named.add(tuple(m.group(1).split("::")))
        for m in re.finditer(r"\bsuper::((?:\w+::)*\w+)", source):
            named.add(module[:-1] + tuple(m.group(1).split("::")))
        resolved = set()
        for target in named:
            for length in range(len(target), 0, -1):
                if target[:length] in found:
                    resolved.add(target[:length])
                    break
        edges[module] = resolved - {module}
    return edges


def circles(found, edges):
    result = []
    for parent in sorted({m[:-1] for m in found if m}):
        def child(module):
            inside = len(module) > len(parent) and module[: len(parent)] == parent
            return module[: len(parent) + 1] if inside else None

        graph = {}
        for module, targets in edges.items():
            a = child(module)
            for target in targets:
                b = child(target)
                if a and b and a != b:
                    graph.setdefault(a, set()).add(b)
        state, stack = {}, []

        def visit(node):
            state[node] = "open"
            stack.append(node)
            for nxt in sorted(graph.get(node, ())):
                if state.get(nxt) == "open":
                    result.append(stack[stack.index(nxt):] + [nxt])
                elif nxt not in state:
                    visit(nxt)
            stack.pop()
            state[node] = "done"

        for node in sorted(graph):
            if node not in state:
                visit(node)
    return result


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "src"
    found = modules(root)
    found_circles = circles(found, dependencies(found))
    for circle in found_circles:
        print("import circle: " + " -> ".join("::".join(m) for m in circle))
    print(f"{len(found)} modules, {len(found_circles)} import circles")
    return 1 if found_circles else 0


if __name__ == "__main__":
    sys.exit(main())
