"""The package is typed throughout (py.typed promises it to type checkers).

`make test-python` runs `mypy --strict` (Debian's mypy), which checks that
the annotations are right. These tests check that they are there, on any
Python and without mypy: every function and method of the package
annotates each parameter and its return, and every attribute a class sets
on its instances is declared, with its type, in the class body. A function
added without annotations fails here, named.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import unittest
from typing import Any, Callable, Iterator

import jobwheel

PACKAGE = pathlib.Path(jobwheel.__file__).resolve().parent
MODULES = sorted(PACKAGE.glob("*.py"))


def _functions(tree: ast.AST) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool, str]]:
    """Every def in the tree, nested ones too: (node, whether it is a
    method, its dotted name)."""

    def walk(node: ast.AST, prefix: str, in_class: bool) -> Iterator[tuple[Any, bool, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                yield child, in_class, name
                yield from walk(child, name + ".", False)
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, prefix + child.name + ".", True)
            else:
                yield from walk(child, prefix, in_class)

    yield from walk(tree, "", False)


def _unannotated(fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    a = fn.args
    params = a.posonlyargs + a.args
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
    if method and not static and params:
        params = params[1:]  # self or cls
    missing = [p.arg for p in params + a.kwonlyargs if p.annotation is None]
    missing += ["*" + p.arg for p in (a.vararg, a.kwarg) if p is not None and p.annotation is None]
    if fn.returns is None:
        missing.append("return")
    return missing


class Annotated(unittest.TestCase):
    def test_every_function_annotates_its_parameters_and_return(self) -> None:
        seen = 0
        for path in MODULES:
            tree = ast.parse(path.read_text(), filename=str(path))
            for fn, method, name in _functions(tree):
                seen += 1
                with self.subTest(function="%s:%s" % (path.name, name)):
                    self.assertEqual(_unannotated(fn, method), [], "not annotated")
        self.assertGreater(seen, 150)

    def test_no_lambda_stands_for_a_function(self) -> None:
        # A lambda cannot be annotated: one bound to a name or a property
        # (`logger = property(lambda self: self.log)`) hides a signature.
        for path in MODULES:
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, (ast.Lambda, ast.Call)):
                    v = node.value
                    inner = [v] if isinstance(v, ast.Lambda) else [a for a in v.args if isinstance(a, ast.Lambda)]
                    with self.subTest(module=path.name, line=node.lineno):
                        self.assertEqual(inner, [], "a lambda assigned to a name")

    def test_every_instance_attribute_is_declared_in_its_class(self) -> None:
        for path in MODULES:
            tree = ast.parse(path.read_text(), filename=str(path))
            classes = {c.name: c for c in ast.walk(tree) if isinstance(c, ast.ClassDef)}

            def declared(c: ast.ClassDef) -> set[str]:
                names = {n.target.id for n in c.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
                for b in c.bases:  # a base class of the same module declares for its subclasses
                    if isinstance(b, ast.Name) and b.id in classes and b.id != c.name:
                        names |= declared(classes[b.id])
                return names

            for c in classes.values():
                names = declared(c)
                for fn in c.body:
                    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fn.args.args:
                        continue
                    self_name = fn.args.args[0].arg
                    for node in ast.walk(fn):
                        for target in _assigned(node):
                            for attr in _self_attrs(target, self_name):
                                with self.subTest(attribute="%s:%s.%s" % (path.name, c.name, attr)):
                                    self.assertTrue(attr in names, "set on self in %s() but not declared with a "
                                                                   "type in the class body" % fn.name)


    def test_public_api_is_annotated_at_run_time(self) -> None:
        # What help(), IDEs and typing.get_type_hints see: the objects the
        # modules define, as imported (properties, class and static methods
        # included), each with every parameter and the return annotated.
        checked = 0
        for path in MODULES:
            mod = importlib.import_module("jobwheel." + path.stem)
            for fname, fn in _runtime_functions(mod):
                code = getattr(fn, "__code__", None)
                if code is None or pathlib.Path(code.co_filename).resolve().parent != PACKAGE:
                    continue  # generated (a dataclass's __eq__, a NamedTuple's __new__) or imported
                checked += 1
                sig = inspect.signature(fn)
                params = list(sig.parameters.values())
                if params and params[0].name in ("self", "cls"):
                    params = params[1:]
                missing = [p.name for p in params if p.annotation is inspect.Parameter.empty]
                if sig.return_annotation is inspect.Signature.empty:
                    missing.append("return")
                with self.subTest(function="%s.%s" % (mod.__name__, fname)):
                    self.assertEqual(missing, [], "not annotated")
        self.assertGreater(checked, 150)

    def test_the_processor_types_are_exported(self) -> None:
        # What a user annotates a processor with (README "Typed processors").
        for name in ("Processor", "PreProcessor", "ResultsProcessor", "TaskContext", "Results", "TaskResult",
                     "JobsSettings", "LogLevel"):
            with self.subTest(name=name):
                self.assertIn(name, jobwheel.__all__)
                self.assertIsNotNone(getattr(jobwheel, name))


def _assigned(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    return []


def _self_attrs(target: ast.expr, self_name: str) -> list[str]:
    if isinstance(target, ast.Tuple):
        return [a for t in target.elts for a in _self_attrs(t, self_name)]
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name:
        return [target.attr]
    return []


def _runtime_functions(mod: Any) -> Iterator[tuple[str, Callable[..., Any]]]:
    for name, obj in vars(mod).items():
        if inspect.isfunction(obj) and obj.__module__ == mod.__name__:
            yield name, obj
        elif inspect.isclass(obj) and obj.__module__ == mod.__name__:
            for mname, m in vars(obj).items():
                if isinstance(m, (staticmethod, classmethod)):
                    m = m.__func__
                if isinstance(m, property):
                    for acc in (m.fget, m.fset, m.fdel):
                        if acc is not None:
                            yield "%s.%s.%s" % (name, mname, acc.__name__), acc
                elif inspect.isfunction(m):
                    yield "%s.%s" % (name, mname), m


if __name__ == "__main__":
    unittest.main()
