/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_IMAGE_CHECKS_H
#define INCLUDED_CUDADSP_CORE_IMAGE_CHECKS_H

#include <gnuradio/cudadsp/core/image_view.h>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * The image engines' (patch correlator, dense offsets) check of one input image:
 * throws std::invalid_argument "<name> image: ..." when it has no data, a zero size or
 * an unknown sample type.
 */
inline void check_image_view(const char* name, const image_view& view)
{
    if (view.data == nullptr || view.width == 0 || view.height == 0)
        throw std::invalid_argument(std::string(name) + " image: no data or zero size (" +
                                    std::to_string(view.width) + " x " +
                                    std::to_string(view.height) + ")");
    if (view.type != slc_sample_type::complex_int16 &&
        view.type != slc_sample_type::complex_float32)
        throw std::invalid_argument(std::string(name) + " image: unknown sample type");
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_IMAGE_CHECKS_H */
