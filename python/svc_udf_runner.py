"""Runs one UDF for the svc-iac emulator, or describes its entrypoint.

Protocol (the TypeScript side is src/emulator/udf-runner/):
- stdin: one JSON request, read fully before any UDF code runs.
- file descriptor 3: one JSON answer, written once.
- stdout / stderr: the UDF's own output, untouched, so prints and C-level writes alike are captured.

A "run" request executes the UDF body as the platform does: the helper modules of `headers` are
importable by name, a small `fused` module provides the decorator real bodies use
(`@fused.udf(cache_max_age="1h")`), available both by `import fused` and as a builtin, and the
entrypoint is called with the parameters (string values converted per the annotation, as a URL's
query gives strings) and, for a tile run, its tile. A "describe" request reads the entrypoint's
signature with `ast`, without executing anything.

Only the Python standard library is used; pandas output is serialized when pandas is importable.
"""
import ast
import builtins
import csv
import functools
import importlib.abc
import importlib.util
import inspect
import io
import json
import linecache
import math
import os
import re
import sys
import traceback
import types

RUNNER_FILE = os.path.abspath(__file__)
CONTENT_TYPES = {"json": "application/json", "csv": "text/csv; charset=utf-8"}
DURATION = re.compile(r"^(\d+)([smhd])$")
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def answer(obj):
    with os.fdopen(3, "w", encoding="utf-8") as out:
        json.dump(obj, out)


def max_age_seconds(value):
    """`cache_max_age` of the decorator: "10m" style, or integer seconds. None when absent."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"cache_max_age must be a duration like \"10m\" (digits then s, m, h or d), got {value!r}")
    if isinstance(value, int) and value >= 0:
        return value
    m = DURATION.match(str(value).strip())
    if not m:
        raise ValueError(f"cache_max_age must be a duration like \"10m\" (digits then s, m, h or d), got {value!r}")
    return int(m.group(1)) * UNIT_SECONDS[m.group(2)]


# ---------------------------------------------------------------- the `fused` shim module

def make_shim():
    shim = types.ModuleType("fused")
    shim.__doc__ = "svc-iac emulator shim of the platform SDK: udf, cache and types."
    shim._registry = []

    def udf(fn=None, *, cache_max_age=None, **_options):
        seconds = max_age_seconds(cache_max_age)

        def wrap(f):
            f.__svc_udf__ = {"cache_max_age": seconds}
            shim._registry.append(f)
            return f

        return wrap(fn) if callable(fn) else wrap

    def cache(fn=None, **_options):
        def wrap(f):
            memo = {}

            @functools.wraps(f)
            def cached(*args, **kwargs):
                key = repr((args, sorted(kwargs.items())))
                if key not in memo:
                    memo[key] = f(*args, **kwargs)
                return memo[key]

            return cached

        return wrap(fn) if callable(fn) else wrap

    typ = types.ModuleType("fused.types")
    typ.Bounds = list
    for name in ("Tile", "TileGDF", "TileXYZ", "ViewportGDF", "Bbox"):
        setattr(typ, name, object)

    def missing(name):
        raise AttributeError(
            f"fused.{name} is not available in the svc-iac emulator (its fused shim provides udf, cache and types)"
        )

    shim.udf = udf
    shim.cache = cache
    shim.types = typ
    shim.__getattr__ = missing
    return shim, typ


# ---------------------------------------------------------------- helper modules from `headers`

def remember_source(filename, source):
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)


class HeaderModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes each header `{module_name, source_file, source_code}` importable by its module name."""

    def __init__(self, headers):
        self.modules = {}
        for h in headers or []:
            name = h.get("module_name")
            if name:
                self.modules[name] = (h.get("source_file") or f"{name}.py", h.get("source_code") or "")

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.modules:
            return None
        return importlib.util.spec_from_loader(fullname, self, origin=self.modules[fullname][0])

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        filename, source = self.modules[module.__name__]
        remember_source(filename, source)
        module.__file__ = filename
        exec(compile(source, filename, "exec"), module.__dict__)


# ---------------------------------------------------------------- parameters

def annotation_kind(annotation):
    """JSON type name of an annotation (object or string form), or None when it says nothing usable."""
    if annotation is inspect.Parameter.empty or annotation is None:
        return None
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    text = text.replace("typing.", "").replace("fused.types.", "")
    base = re.split(r"[\[|]", text, maxsplit=1)[0].strip()
    return {
        "int": "integer", "float": "number", "bool": "boolean", "str": "string",
        "list": "array", "List": "array", "tuple": "array", "Tuple": "array", "Bounds": "array",
        "dict": "object", "Dict": "object",
    }.get(base)


def coerce(value, kind):
    """A query-string value converted to what the annotation asks; other values are left alone."""
    if not isinstance(value, str) or kind in (None, "string"):
        return value
    if kind == "integer":
        return int(value)
    if kind == "number":
        return float(value)
    if kind == "boolean":
        lowered = value.strip().lower()
        if lowered in ("true", "1", "yes"):
            return True
        if lowered in ("false", "0", "no"):
            return False
        raise ValueError(f"expected a boolean (true or false), got {value!r}")
    return json.loads(value)


class ParameterError(Exception):
    """A parameter's value that its annotation cannot take: the caller's mistake, not the UDF's."""


KIND_WORDS = {"integer": "an integer", "number": "a number", "boolean": "a boolean (true or false)",
              "array": "a JSON list", "object": "a JSON object"}


def call_arguments(fn, parameters, tile):
    signature = inspect.signature(fn)
    accepted = signature.parameters
    kwargs = {}
    for name, value in (parameters or {}).items():
        p = accepted.get(name)
        kind = annotation_kind(p.annotation) if p is not None else None
        try:
            kwargs[name] = coerce(value, kind)
        except ValueError:
            raise ParameterError(
                f"parameter {name!r} is {value!r}; expected {KIND_WORDS.get(kind, kind)}, as its annotation says"
            ) from None
    if tile is not None:
        offered = {
            "bounds": list(tile["bounds"]),
            "bbox": dict(tile),
            "tile": dict(tile),
            "x": tile["x"], "y": tile["y"], "z": tile["z"],
        }
        for name, value in offered.items():
            if name in accepted:
                kwargs[name] = value
    return kwargs


# ---------------------------------------------------------------- output

def plain(value):
    """JSON-compatible data: NaN and infinities become null, tuples and sets lists, dates ISO text."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (str, int, bool)):
        return value
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "tolist"):
        return plain(value.tolist())
    if hasattr(value, "item"):
        return plain(value.item())
    raise TypeError(f"the UDF returned a {type(value).__name__}, which cannot be serialized as JSON")


def is_frame(value):
    return type(value).__module__.split(".")[0] in ("pandas", "geopandas") and hasattr(value, "to_csv")


def serialize(value, fmt):
    if fmt == "json":
        if is_frame(value):
            if type(value).__module__.startswith("geopandas"):
                return value.to_json()
            if hasattr(value, "columns"):
                return value.to_json(orient="records", date_format="iso")
            return value.to_json(date_format="iso")
        return json.dumps(plain(value), allow_nan=False, ensure_ascii=False)
    if fmt == "csv":
        if is_frame(value):
            return value.to_csv(index=False)
        return rows_to_csv(value)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(CONTENT_TYPES)}")


def rows_to_csv(value):
    rows = value if isinstance(value, (list, tuple)) else None
    if rows is None or not all(isinstance(r, (dict, list, tuple)) for r in rows):
        raise TypeError(
            f"format csv needs a table (a DataFrame, a list of objects or a list of rows); the UDF returned a {type(value).__name__}"
        )
    out = io.StringIO()
    if rows and all(isinstance(r, dict) for r in rows):
        columns = list(dict.fromkeys(k for r in rows for k in r))
        writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(plain(r) for r in rows)
    else:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerows(plain(r) for r in rows)
    return out.getvalue()


# ---------------------------------------------------------------- modes

def user_traceback(exc):
    """The traceback without the runner's own frames, so it starts in the UDF's code."""
    tb = exc.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) == RUNNER_FILE:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))


def run(request):
    shim, shim_types = make_shim()
    sys.modules["fused"] = shim
    sys.modules["fused.types"] = shim_types
    builtins.fused = shim
    sys.meta_path.insert(0, HeaderModules(request.get("headers")))

    filename = f"{request.get('name') or 'udf'}.py"
    code = request.get("code") or ""
    remember_source(filename, code)
    main = types.ModuleType("__udf__")
    main.__file__ = filename
    sys.modules["__udf__"] = main
    exec(compile(code, filename, "exec"), main.__dict__)

    entrypoint = request.get("entrypoint") or "udf"
    fn = main.__dict__.get(entrypoint)
    if not callable(fn):
        raise NameError(f"the UDF code defines no function named {entrypoint!r} (its entrypoint)")
    value = fn(**call_arguments(fn, request.get("parameters"), request.get("tile")))
    fmt = request.get("format") or "json"
    text = serialize(value, fmt)
    declared = getattr(fn, "__svc_udf__", {}).get("cache_max_age")
    return {"ok": True, "output": text, "content_type": CONTENT_TYPES[fmt], "cache_max_age": declared}


def literal(node):
    try:
        return True, ast.literal_eval(node)
    except Exception:
        return False, None


def describe_all(request):
    """Describes each of `udfs`; one UDF's syntax error does not hide the others."""
    answers = []
    for udf in request.get("udfs") or []:
        try:
            answers.append(describe(udf))
        except Exception as exc:
            answers.append({"ok": False, "kind": "exception", "message": f"{type(exc).__name__}: {exc}"})
    return {"ok": True, "udfs": answers}


def describe(request):
    """The entrypoint's parameters, docstring and declared cache age, read without running the code."""
    code = request.get("code") or ""
    entrypoint = request.get("entrypoint") or "udf"
    tree = ast.parse(code, filename=f"{request.get('name') or 'udf'}.py")
    fn = next(
        (n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == entrypoint),
        None,
    )
    if fn is None:
        raise NameError(f"the UDF code defines no function named {entrypoint!r} (its entrypoint)")
    cache_max_age = None
    for d in fn.decorator_list:
        if isinstance(d, ast.Call):
            for kw in d.keywords:
                if kw.arg == "cache_max_age":
                    ok, value = literal(kw.value)
                    cache_max_age = max_age_seconds(value) if ok else None
    args = fn.args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    params = []
    for a, default in list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults)):
        annotation = ast.unparse(a.annotation) if a.annotation is not None else None
        entry = {"name": a.arg, "annotation": annotation, "type": annotation_kind(annotation), "required": default is None}
        if default is not None:
            ok, value = literal(default)
            if ok:
                try:
                    entry["default"] = plain(value)
                except TypeError:
                    pass
        params.append(entry)
    return {"ok": True, "parameters": params, "doc": ast.get_docstring(fn), "cache_max_age": cache_max_age}


# ---------------------------------------------------------------- every process a run starts ends with it
#
# A UDF may start processes that leave its process group and session (start_new_session=True, a
# double fork), which a kill of the group misses. On Linux the runner therefore splits in two: a
# supervisor that runs no UDF code and is a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so
# every orphaned descendant is re-parented to it rather than to init, and a worker that runs the
# request. When the worker ends, or when the supervisor gets SIGTERM (the time limit, a stopped
# run), the supervisor kills and reaps every descendant, then exits as the worker did.

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    """True when this process now adopts its orphaned descendants (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def descendants(root):
    """Pids of every living descendant of `root`, from the parent pids in /proc."""
    parents = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ")".
        fields = stat[stat.rfind(b")") + 2:].split()
        if fields and fields[0] != b"Z":
            parents.setdefault(int(fields[1]), []).append(int(name))
    found, todo = [], [root]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def reap():
    """Collects every exited child without waiting; statuses of pids other than the worker are dropped."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def end_descendants():
    """SIGKILLs every descendant (those re-parented mid-way included) until none is left, reaping them."""
    import signal
    import time
    me = os.getpid()
    for _ in range(1000):
        pids = descendants(me)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.002)
        reap()
    reap()


def supervise(work):
    """Runs `work` in a forked worker and ends every process it started; returns only in the worker."""
    import signal
    if not become_subreaper():
        return work()

    def stop(signum, _frame):
        end_descendants()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    worker = os.fork()
    if worker == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        code = 1
        try:
            work()
            code = 0
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    # The supervisor holds no copy of the answer's descriptor: the worker writes the one answer.
    os.close(3)
    status = None
    while status is None:
        pid, raw = os.waitpid(-1, 0)
        if pid == worker:
            status = raw
    end_descendants()
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


def main():
    os.set_inheritable(3, False)
    supervise(serve)


def serve():
    request = json.loads(sys.stdin.read())
    sys.stdin = open(os.devnull, encoding="utf-8")
    try:
        result = describe_all(request) if request.get("mode") == "describe" else run(request)
    except ParameterError as exc:
        result = {"ok": False, "kind": "exception", "message": f"Invalid parameter: {exc}", "traceback": None}
    except SystemExit as exc:
        result = {"ok": False, "kind": "exception", "message": f"SystemExit: the UDF called exit({exc.code!r})",
                  "traceback": user_traceback(exc)}
    except Exception as exc:
        result = {"ok": False, "kind": "exception", "message": f"{type(exc).__name__}: {exc}",
                  "traceback": user_traceback(exc)}
    sys.stdout.flush()
    sys.stderr.flush()
    answer(result)


if __name__ == "__main__":
    main()
