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

A command starts this checker every time it checks files its cache does not know, so its own start
counts: it uses the parser's and JSON's C modules (`_ast`, `_json`, built into the interpreter)
rather than `ast` and `json`, whose Python modules and imports took three quarters of its start
(about 30 of 40 ms of CPU). The syntax tree and the JSON are the same.
"""
import _ast
import sys

try:
    from _json import encode_basestring_ascii, make_scanner
except ImportError:  # an interpreter built without JSON's C module: its Python module then
    encode_basestring_ascii = make_scanner = None


class _Strict:
    """What JSON's scanner reads of its decoder: strict strings, plain values, no hooks."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = None


def reader():
    """A function from one JSON text to its value."""
    if make_scanner is None:
        import json
        return json.loads
    scan = make_scanner(_Strict())

    def loads(text):
        value, end = scan(text, 0)
        if end != len(text):
            raise ValueError(f"found text after the JSON value at character {end}")
        return value
    return loads


def dumps(value):
    """`value` (strings, integers, booleans, lists and dicts of them) as JSON, ASCII only."""
    if encode_basestring_ascii is None:
        import json
        return json.dumps(value)
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{dumps(k)}:{dumps(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def names_in(node):
    """The names (`Name` nodes) anywhere in `node`, as `ast.walk` finds them (without recursion:
    a target may nest deeper than Python's recursion limit)."""
    pending = [node]
    while pending:
        node = pending.pop()
        if isinstance(node, _ast.Name):
            yield node.id
        for field in node._fields:
            child = getattr(node, field, None)
            for item in child if isinstance(child, list) else (child,):
                if isinstance(item, _ast.AST):
                    pending.append(item)


def bound_names(tree):
    """Names a module binds at its top level (what the runner looks the entrypoint up in)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (_ast.Assign, _ast.AnnAssign, _ast.AugAssign)):
            targets = node.targets if isinstance(node, _ast.Assign) else [node.target]
            for target in targets:
                names.update(names_in(target))
        elif isinstance(node, (_ast.Import, _ast.ImportFrom)):
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
    return names


def check(item):
    file, code, entrypoint = item["file"], item["code"], item.get("entrypoint")
    try:
        tree = compile(code, file, "exec", _ast.PyCF_ONLY_AST)
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
        functions = sorted(n.name for n in tree.body if isinstance(n, (_ast.FunctionDef, _ast.AsyncFunctionDef)))
        found = f"its functions are {', '.join(functions)}" if functions else "it defines no function at all"
        return [{"file": file, "line": 1, "column": 1, "entrypoint": True,
                 "message": f"found no top-level function {entrypoint!r}, the UDF's entrypoint: {found}"}]
    return []


def main():
    sys.stdout.write(dumps({"executable": sys.executable}) + "\n")
    sys.stdout.flush()
    loads = reader()
    problems = []
    for line in sys.stdin:
        line = line.strip()
        if line:
            problems.extend(check(loads(line)))
    sys.stdout.write(dumps(problems))


if __name__ == "__main__":
    main()
