/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "common/documentation_page.h"

#include <system_error>
#include <filesystem>

namespace cudadsp_apps {

namespace fs = std::filesystem;

namespace {

const fs::path installed_documentation = fs::path("share") / "doc" / "gr-cudadsp";

bool is_page(const fs::path& path)
{
    std::error_code ignored;
    return fs::is_regular_file(path, ignored);
}

} // namespace

std::string documentation_page(const std::string& relative_path)
{
    std::error_code error;
    // Linux names the running program in /proc; without it only the fallback is left.
    const fs::path program = fs::read_symlink("/proc/self/exe", error);
    if (!error) {
        for (fs::path folder = program.parent_path(); !folder.empty();
             folder = folder.parent_path()) {
            if (is_page(folder / installed_documentation / relative_path))
                return (folder / installed_documentation / relative_path).string();
            if (is_page(folder / "docs" / relative_path))
                return (folder / "docs" / relative_path).string();
            if (folder == folder.root_path())
                break;
        }
    }
    return (installed_documentation / relative_path).string() +
           " under the install prefix (package gr-cudadsp-doc)";
}

std::string documentation_line(const std::string& relative_path)
{
    return "Documentation: " + documentation_page(relative_path) + "\n";
}

} // namespace cudadsp_apps
