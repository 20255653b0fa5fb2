/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_IMAGE_VIEW_H
#define INCLUDED_CUDADSP_CORE_IMAGE_VIEW_H

#include <cstddef>

namespace gr {
namespace cudadsp {
namespace core {

//! Sample type of a complex (SLC) image.
enum class slc_sample_type {
    complex_int16,  //!< interleaved int16 I, Q (GMTSAR's SLC files), host byte order
    complex_float32 //!< interleaved float32 I, Q (complex64 rasters of other processors)
};

/*!
 * A row-major complex image in host memory: \p width samples a row, \p height rows.
 * The image engines (patch correlator, dense offsets) read windows of it; the memory
 * may be pageable, pinned or a file mapping.
 */
struct image_view {
    const void* data = nullptr;
    slc_sample_type type = slc_sample_type::complex_int16;
    std::size_t width = 0;
    std::size_t height = 0;
};

//! "complex int16" or "complex float32", for messages.
inline const char* sample_type_name(slc_sample_type t)
{
    return t == slc_sample_type::complex_int16 ? "complex int16" : "complex float32";
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_IMAGE_VIEW_H */
