/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "prm_file.h"
#include "regular_file.h"
#include "slc_image.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {
#ifdef MADV_POPULATE_READ
constexpr int populate_read = MADV_POPULATE_READ;
#else
constexpr int populate_read = 22; // Linux 5.14; older kernels answer EINVAL
#endif
} // namespace

std::size_t slc_image::bytes_per_sample(core::slc_sample_type type)
{
    return type == core::slc_sample_type::complex_int16 ? 2 * sizeof(std::int16_t)
                                                        : 2 * sizeof(float);
}

slc_image::slc_image(const std::string& path,
                     core::slc_sample_type type,
                     std::int64_t width,
                     std::int64_t height,
                     const std::string& described_by)
    : d_path(path), d_type(type), d_width(width), d_height(height)
{
    const std::string who = "SLC file '" + path + "' (" + described_by + ")";
    if (width <= 0 || height <= 0)
        throw input_error(who + ": image size " + std::to_string(width) + " x " +
                          std::to_string(height) + " is empty");
    d_fd = open_regular_file(path, who);
    struct stat st;
    if (::fstat(d_fd, &st) != 0) {
        const int err = errno;
        ::close(d_fd);
        throw input_error(who + ": cannot open: " + std::strerror(err));
    }
    d_file_bytes = static_cast<std::size_t>(st.st_size);
    d_map_bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) *
                  bytes_per_sample(type);
    if (d_file_bytes < d_map_bytes) {
        ::close(d_fd);
        throw input_error(who + " holds " + std::to_string(d_file_bytes) +
                          " bytes, fewer than the " + std::to_string(width) + " x " +
                          std::to_string(height) + " " + core::sample_type_name(type) +
                          " samples (" + std::to_string(d_map_bytes) +
                          " bytes) it should hold");
    }
    d_map = ::mmap(nullptr, d_map_bytes, PROT_READ, MAP_SHARED, d_fd, 0);
    if (d_map == MAP_FAILED) {
        const int err = errno;
        d_map = nullptr;
        ::close(d_fd);
        throw input_error(who + ": cannot map: " + std::strerror(err));
    }
    // Start reading a file that is not in the page cache yet; no effect on one that is.
    ::madvise(d_map, d_map_bytes, MADV_WILLNEED);
}

slc_image::~slc_image()
{
    if (d_map)
        ::munmap(d_map, d_map_bytes);
    if (d_fd >= 0)
        ::close(d_fd);
}

core::image_view slc_image::view() const
{
    core::image_view v;
    v.data = d_map;
    v.type = d_type;
    v.width = static_cast<std::size_t>(d_width);
    v.height = static_cast<std::size_t>(d_height);
    return v;
}

std::complex<float> slc_image::at(std::int64_t row, std::int64_t col) const
{
    const std::size_t i = static_cast<std::size_t>(row * d_width + col);
    if (d_type == core::slc_sample_type::complex_int16) {
        const auto* p = static_cast<const std::int16_t*>(d_map);
        return { static_cast<float>(p[2 * i]), static_cast<float>(p[2 * i + 1]) };
    }
    const auto* p = static_cast<const float*>(d_map);
    return { p[2 * i], p[2 * i + 1] };
}

std::size_t slc_image::touch_rows(std::int64_t row0, std::int64_t row1) const
{
    row0 = std::max<std::int64_t>(row0, 0);
    row1 = std::min<std::int64_t>(row1, d_height);
    if (row1 <= row0)
        return 0;
    const std::size_t row_bytes =
        static_cast<std::size_t>(d_width) * bytes_per_sample(d_type);
    const std::size_t begin = static_cast<std::size_t>(row0) * row_bytes;
    const std::size_t end = static_cast<std::size_t>(row1) * row_bytes;
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    // One call maps the whole range where the kernel has MADV_POPULATE_READ (5.14);
    // elsewhere one read per page faults it in.
    const std::size_t aligned_begin = begin / page * page;
    auto* base = static_cast<unsigned char*>(d_map);
    if (::madvise(base + aligned_begin, end - aligned_begin, populate_read) == 0)
        return end - begin;
    const auto* bytes = static_cast<const volatile unsigned char*>(d_map);
    unsigned sum = 0;
    for (std::size_t off = begin; off < end; off += page)
        sum += bytes[off];
    sum += bytes[end - 1];
    (void)sum;
    return end - begin;
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
