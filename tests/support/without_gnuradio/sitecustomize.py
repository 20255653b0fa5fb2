#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""An interpreter in which GNU Radio cannot be imported, for the tests of the engines'
package (cudadsp) and of the tools built on it.

Python imports sitecustomize at start-up from the first folder of sys.path that has
one, and PYTHONPATH comes first: a test run with this folder on PYTHONPATH (and every
program it starts, which inherits the variable) finds `import gnuradio` and `import pmt`
refused with ModuleNotFoundError, as on a machine without GNU Radio, although this one
has it installed. CUDADSP_WITHOUT_GNURADIO=1 tells the test it is in force.
"""

import importlib.abc
import os
import sys

REFUSED = ("gnuradio", "pmt")


class _refuse_gnuradio(importlib.abc.MetaPathFinder):
    """Refuses the GNU Radio packages and everything under them."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in REFUSED:
            raise ModuleNotFoundError("No module named %r (refused: this interpreter "
                                      "stands for one without GNU Radio)" % name, name=name)
        return None


sys.meta_path.insert(0, _refuse_gnuradio())
os.environ["CUDADSP_WITHOUT_GNURADIO"] = "1"
