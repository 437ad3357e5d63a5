"""The SDK supports Python 3.9 and newer (pyproject.toml's requires-python).

The tests run on the machine's Python 3; this one checks every module of
the package is also valid Python 3.9, so no newer syntax (a match
statement, `X | Y` in a runtime annotation, parenthesized context
managers) slips in unnoticed.
"""

import ast
import pathlib
import unittest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "jobwheel"


class Python39(unittest.TestCase):
    def test_every_module_parses_as_python_3_9(self):
        modules = sorted(PACKAGE.glob("*.py"))
        self.assertGreater(len(modules), 5)
        for path in modules:
            with self.subTest(module=path.name):
                ast.parse(path.read_text(), filename=str(path), feature_version=(3, 9))

    def test_annotations_are_not_evaluated_at_import(self):
        # `list[str] | None` in an annotation is fine on 3.9 only when
        # annotations stay strings: every module that annotates says so.
        for path in sorted(PACKAGE.glob("*.py")):
            src = path.read_text()
            tree = ast.parse(src)
            annotated = any(
                isinstance(n, (ast.AnnAssign, ast.arg)) and getattr(n, "annotation", None) is not None
                or isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None
                for n in ast.walk(tree))
            if annotated:
                with self.subTest(module=path.name):
                    self.assertIn("from __future__ import annotations", src)


if __name__ == "__main__":
    unittest.main()
