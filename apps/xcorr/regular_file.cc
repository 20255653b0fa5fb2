/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "prm_file.h"
#include "regular_file.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

// "" for a regular file, else why it is not one.
std::string not_regular(mode_t mode)
{
    if (S_ISREG(mode))
        return "";
    if (S_ISDIR(mode))
        return "is a directory, not a file";
    if (S_ISFIFO(mode))
        return "is a FIFO (named pipe), not a regular file";
    if (S_ISCHR(mode))
        return "is a character device, not a regular file";
    if (S_ISBLK(mode))
        return "is a block device, not a regular file";
    if (S_ISSOCK(mode))
        return "is a socket, not a regular file";
    return "is not a regular file";
}

} // namespace

int open_regular_file(const std::string& path, const std::string& who)
{
    struct stat st;
    if (::stat(path.c_str(), &st) != 0)
        throw input_error(who + ": cannot open: " + std::strerror(errno));
    std::string why = not_regular(st.st_mode);
    if (!why.empty())
        throw input_error(who + ": " + why);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        throw input_error(who + ": cannot open: " + std::strerror(errno));
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        throw input_error(who + ": cannot open: " + std::strerror(err));
    }
    why = not_regular(st.st_mode);
    if (!why.empty()) {
        ::close(fd);
        throw input_error(who + ": " + why);
    }
    return fd;
}

std::string read_regular_file(const std::string& path, const std::string& who)
{
    const int fd = open_regular_file(path, who);
    std::string text;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n == 0)
            break;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const int err = errno;
            ::close(fd);
            throw input_error(who + ": cannot read: " + std::strerror(err));
        }
        text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
