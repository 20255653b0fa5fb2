/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_APPS_DOCUMENTATION_PAGE_H
#define INCLUDED_CUDADSP_APPS_DOCUMENTATION_PAGE_H

#include <string>

namespace cudadsp_apps {

/*!
 * Where a page of the documentation is, for a tool's --help: \p relative_path (e.g.
 * "apps/cudadsp_xcorr.md") in the installed documentation, <prefix>/share/doc/gr-cudadsp,
 * the prefix being the nearest folder above the running program that holds the page (an
 * install anywhere, moved or not, finds its own pages); else in the docs/ folder of the
 * source tree above the program (a build tree's program). When neither holds it (the
 * documentation package is not installed), the text says where the page goes.
 * The Python tools find their pages the same way (cudadsp.common.documentation).
 */
std::string documentation_page(const std::string& relative_path);

//! The line a --help text ends with: "Documentation: PATH\n".
std::string documentation_line(const std::string& relative_path);

} // namespace cudadsp_apps

#endif /* INCLUDED_CUDADSP_APPS_DOCUMENTATION_PAGE_H */
