#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Where a page of gr-cudadsp's documentation is, for --help texts and messages.

The pages are installed to <prefix>/share/doc/gr-cudadsp (package gr-cudadsp-doc) with
the layout of the repository's docs/ folder. page("apps/cudadsp_unwrap.md") looks in
each folder above this package, nearest first, for the installed page (an install
anywhere, moved or not, finds its own pages) or the docs/ folder of a source tree (the
build tree's copy of the package, a checkout). When none holds it (the documentation
package is not installed), it says where the page goes. The C++ tools do the same from
their program's folder (apps/common/documentation_page.h).
"""

import pathlib

INSTALLED_DOCUMENTATION = pathlib.Path("share") / "doc" / "gr-cudadsp"


def page(relative_path):
    """The path (a str) of the documentation page relative_path, e.g. "apps/cudadsp_unwrap.md"."""
    for folder in pathlib.Path(__file__).resolve().parents:
        for candidate in (folder / INSTALLED_DOCUMENTATION / relative_path,
                          folder / "docs" / relative_path):
            if candidate.is_file():
                return str(candidate)
    return "%s under the install prefix (package gr-cudadsp-doc)" % (
        INSTALLED_DOCUMENTATION / relative_path)


def see_also(relative_path):
    """The line a --help text ends with: "Documentation: PATH"."""
    return "Documentation: " + page(relative_path)
