// PLACEHOLDER-REPLACED-BY-HELPER acqcuda
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/pcps_acquisition_cuda.h"
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

struct pcps_acquisition_cuda::workspace {
};

pcps_acquisition_cuda::pcps_acquisition_cuda(const pcps_acquisition_config& config,
                                             const device_selection& device)
    : pcps_acquisition(config, device)
{
    throw std::runtime_error("pcps_acquisition: the CUDA backend is not built yet "
                             "(placeholder replaced by branch acqcuda); use device "
                             "\"cpu\"");
}

pcps_acquisition_cuda::~pcps_acquisition_cuda() = default;

void pcps_acquisition_cuda::compute_grids(const void*,
                                          sample_format,
                                          const std::vector<int>&,
                                          pcps_grid_peak*)
{
    throw std::runtime_error("pcps_acquisition: the CUDA backend is not built yet");
}

} // namespace core
} // namespace cudadsp
} // namespace gr
