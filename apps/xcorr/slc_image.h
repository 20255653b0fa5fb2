/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_XCORR_SLC_IMAGE_H
#define INCLUDED_CUDADSP_XCORR_SLC_IMAGE_H

// A read-only memory mapping of one SLC raster: interleaved complex int16 (GMTSAR's SLC
// files) or complex float32, host byte order, row-major, no header.

#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gr {
namespace cudadsp {
namespace xcorr {

/*!
 * \brief A memory-mapped SLC file.
 *
 * The file is mapped read-only and shared, so its pages come straight from the page
 * cache: nothing is read up front, and the engine's upload, which copies from the
 * mapping, is what reads the file (overlapped with the transfers). The file must hold
 * at least width * height samples; a longer file is accepted (GMTSAR reads only what it
 * needs) and its tail ignored. Throws input_error naming the file and \p described_by
 * (e.g. "SLC_file of master.PRM").
 */
class slc_image
{
public:
    slc_image(const std::string& path,
              core::slc_sample_type type,
              std::int64_t width,
              std::int64_t height,
              const std::string& described_by);
    ~slc_image();
    slc_image(const slc_image&) = delete;
    slc_image& operator=(const slc_image&) = delete;

    static std::size_t bytes_per_sample(core::slc_sample_type type);

    core::image_view view() const;
    const std::string& path() const { return d_path; }
    std::size_t file_bytes() const { return d_file_bytes; }
    std::size_t image_bytes() const { return d_map_bytes; }
    //! Sample (row, col) as complex float, for tests and checks (no bounds check).
    std::complex<float> at(std::int64_t row, std::int64_t col) const;

    /*!
     * Maps every page of rows [row0, row1) (clamped to the image), reading it from the
     * disk where it is not in the page cache, so that later copies find it mapped;
     * returns the bytes. cudadsp_xcorr's reader thread runs this ahead of the engine.
     */
    std::size_t touch_rows(std::int64_t row0, std::int64_t row1) const;

private:
    std::string d_path;
    core::slc_sample_type d_type;
    std::int64_t d_width, d_height;
    std::size_t d_file_bytes = 0;
    std::size_t d_map_bytes = 0;
    int d_fd = -1;
    void* d_map = nullptr;
};

} // namespace xcorr
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_XCORR_SLC_IMAGE_H */
