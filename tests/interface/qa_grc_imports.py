#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""GRC names the real cause when the module cannot be imported.

  tests/interface/qa_grc_imports.py            (ctest qa_grc_imports)

GRC runs a block's `imports` template as one piece of Python and then evaluates the
parameters' defaults in what it defined. If `from gnuradio import cudadsp` comes first and
fails (a module built for another Python, a missing library), the imports after it never
run, and GRC reports the next thing it evaluates, `name 'math' is not defined`, instead of
the import error. So every other import must come before the module's: this runs each
block's imports with the module unimportable and then evaluates each default that does not
use the module; none may fail for a name the imports were meant to define.
"""

import pathlib
import sys
import unittest

import yaml

GRC = pathlib.Path(__file__).resolve().parents[2] / "grc"
MODULE_IMPORT = "from gnuradio import cudadsp"


def run_imports_without_module(imports):
    """The namespace the imports leave when importing the module fails."""
    namespace = {}
    saved = sys.modules.get("gnuradio.cudadsp")
    sys.modules["gnuradio.cudadsp"] = None  # makes `from gnuradio import cudadsp` fail
    try:
        exec(imports, namespace)
    except ImportError:
        pass
    finally:
        if saved is None:
            sys.modules.pop("gnuradio.cudadsp", None)
        else:
            sys.modules["gnuradio.cudadsp"] = saved
    return namespace


class GrcImportsTest(unittest.TestCase):

    def test_defaults_evaluate_without_the_module(self):
        failures = []
        for path in sorted(GRC.glob("*.block.yml")):
            block = yaml.safe_load(path.read_text())
            imports = block.get("templates", {}).get("imports", "")
            if MODULE_IMPORT not in imports:
                continue
            namespace = run_imports_without_module(imports)
            for parameter in block.get("parameters", []):
                default = parameter.get("default")
                if not isinstance(default, str) or "cudadsp" in default:
                    continue
                try:
                    eval(default, dict(namespace))
                except NameError as error:
                    if any(("import " + str(error).split("'")[1]) in line
                           for line in imports.splitlines()):
                        failures.append("%s: %s = %s: %s" % (path.name, parameter["id"],
                                                             default, error))
                except Exception:
                    pass  # not Python (an enum option, a string GRC quotes itself)
        self.assertEqual(failures, [], "imports after the module's never run when it fails")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
