"""Checks the Python files of a svc-iac repository with Python's own parser, in one process.

stdin: one JSON object {"file", "code", "entrypoint"} per line ("entrypoint" only for a UDF's main
file), each parsed as it arrives: the sender goes on reading files meanwhile.
stdout: first, at once, a line {"executable": sys.executable} (the interpreter the caller keeps its
passes under, and may start directly); then, once stdin ends, a JSON list of {"file", "line",
"column", "message"}, one per problem found:
- a syntax error, at its line and column;
- a UDF whose code defines no top-level function (or other top-level name) called its entrypoint;
- code the parser cannot hold (nested past its stack): that file, while the others are still checked.
Nothing is run: the code is only parsed.
"""
import ast
import json
import sys


def bound_names(tree):
    """Names a module binds at its top level (what the runner looks the entrypoint up in)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        names.add(sub.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
    return names


def check(item):
    file, code, entrypoint = item["file"], item["code"], item.get("entrypoint")
    try:
        tree = ast.parse(code, filename=file)
    except SyntaxError as e:
        line = e.lineno or 1
        column = e.offset or 1
        return [{"file": file, "line": line, "column": max(column, 1), "message": f"Python syntax error: {e.msg}"}]
    except ValueError as e:  # e.g. a NUL byte
        return [{"file": file, "line": 1, "column": 1, "message": f"Python cannot parse this file: {e}"}]
    except (MemoryError, RecursionError) as e:
        # Code nested past the parser's stack (200,000 unary minus signs, a million-term sum):
        # that file is refused, and the check of every other file goes on.
        found = type(e).__name__ + (f": {e}" if str(e) else "")
        return [{"file": file, "line": 1, "column": 1,
                 "message": f"Python cannot parse this file: found code nested too deeply or too complex for Python's parser ({found}), expected code Python can parse"}]
    if entrypoint and entrypoint not in bound_names(tree):
        functions = sorted(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
        found = f"its functions are {', '.join(functions)}" if functions else "it defines no function at all"
        return [{"file": file, "line": 1, "column": 1, "entrypoint": True,
                 "message": f"found no top-level function {entrypoint!r}, the UDF's entrypoint: {found}"}]
    return []


def main():
    sys.stdout.write(json.dumps({"executable": sys.executable}) + "\n")
    sys.stdout.flush()
    problems = []
    for line in sys.stdin:
        if line.strip():
            problems.extend(check(json.loads(line)))
    json.dump(problems, sys.stdout)


if __name__ == "__main__":
    main()
