// PLACEHOLDER-REPLACED-BY-HELPER dofcuda
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation/dense_offsets_cuda.h"
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

struct dense_offsets_cuda::workspace {
};

dense_offsets_cuda::dense_offsets_cuda(const dense_offsets_config& config,
                                       const device_selection& device)
    : dense_offsets_estimator(config, device)
{
    throw std::runtime_error("dense offsets: CUDA backend not built in this branch");
}

dense_offsets_cuda::~dense_offsets_cuda() = default;

void dense_offsets_cuda::estimate(const image_view&,
                                  const image_view&,
                                  const offset_window*,
                                  std::size_t,
                                  offset_result*)
{
    throw std::runtime_error("dense offsets: CUDA backend not built in this branch");
}

void dense_offsets_cuda::synchronize()
{
    throw std::runtime_error("dense offsets: CUDA backend not built in this branch");
}

} // namespace core
} // namespace cudadsp
} // namespace gr
