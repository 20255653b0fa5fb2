/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/atomic_file.h"
#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& temporary)
{
    const std::string why = std::strerror(errno);
    ::unlink(temporary.c_str());
    throw std::runtime_error(what + ": " + why);
}

} // namespace

void write_file_atomically(const std::string& path, const std::string& text)
{
    const std::string temporary =
        path + "." + std::to_string(static_cast<long>(::getpid())) + ".tmp";
    const int fd =
        ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        throw std::runtime_error("cannot create " + temporary + ": " +
                                 std::strerror(errno));
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t put = ::write(fd, text.data() + done, text.size() - done);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            ::close(fd);
            fail("cannot write " + temporary, temporary);
        }
        done += static_cast<std::size_t>(put);
    }
    // fsync before the rename: otherwise a crash can leave the new name on no contents.
    if (::fsync(fd) != 0) {
        ::close(fd);
        fail("cannot flush " + temporary, temporary);
    }
    if (::close(fd) != 0)
        fail("cannot close " + temporary, temporary);
    if (std::rename(temporary.c_str(), path.c_str()) != 0)
        fail("cannot rename " + temporary + " to " + path, temporary);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
