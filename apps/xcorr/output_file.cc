/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "output_file.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

// mkdir -p: each missing component of \p folder, with the umask's permissions.
void make_folder(const std::string& folder)
{
    for (std::size_t end = folder.find('/', 1);; end = folder.find('/', end + 1)) {
        const std::string part = folder.substr(0, end);
        if (!part.empty() && ::mkdir(part.c_str(), 0777) != 0 && errno != EEXIST)
            throw std::runtime_error("cannot create folder '" + part +
                                     "': " + std::strerror(errno));
        if (end == std::string::npos)
            break;
    }
    struct stat st;
    if (::stat(folder.c_str(), &st) != 0)
        throw std::runtime_error("cannot create folder '" + folder +
                                 "': " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode))
        throw std::runtime_error("folder '" + folder +
                                 "': exists and is not a directory");
}

} // namespace

output_file::output_file(const std::string& folder, const std::string& name)
    : d_folder(folder), d_name(name)
{
    if (!folder.empty())
        make_folder(folder);
    const std::string prefix = folder.empty() ? "" : folder + "/";
    d_path = prefix + name;
    d_temp_path = d_path + "." + std::to_string(::getpid()) + ".tmp";
    d_fd = ::open(
        d_temp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (d_fd < 0)
        throw std::runtime_error("cannot create " + describe() + ": " +
                                 std::strerror(errno));
}

output_file::~output_file()
{
    if (d_fd >= 0)
        ::close(d_fd);
    if (!d_committed)
        ::unlink(d_temp_path.c_str());
}

std::string output_file::describe() const
{
    return d_name + (d_folder.empty() ? " in the working directory"
                                      : " in folder '" + d_folder + "'");
}

void output_file::commit(const std::string& text)
{
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(d_fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            throw std::runtime_error("cannot write " + describe() + ": " +
                                     std::strerror(n < 0 ? errno : EIO));
        done += static_cast<std::size_t>(n);
    }
    const int closed = ::close(d_fd);
    d_fd = -1;
    if (closed != 0)
        throw std::runtime_error("cannot write " + describe() + ": " +
                                 std::strerror(errno));
    if (std::rename(d_temp_path.c_str(), d_path.c_str()) != 0)
        throw std::runtime_error("cannot rename the finished " + describe() + " from " +
                                 d_temp_path + ": " + std::strerror(errno));
    d_committed = true;
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
