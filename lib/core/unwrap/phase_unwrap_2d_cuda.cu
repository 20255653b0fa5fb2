// PLACEHOLDER-REPLACED-BY-HELPER
#include "unwrap/phase_unwrap_2d_cuda.h"
#include <stdexcept>
namespace gr {
namespace cudadsp {
namespace core {
phase_unwrapper_2d_cuda::phase_unwrapper_2d_cuda(const phase_unwrap_2d_config& config,
                                                 const device_selection& device)
    : phase_unwrapper_2d(config, device)
{
}
phase_unwrapper_2d_cuda::~phase_unwrapper_2d_cuda() = default;
unwrap_2d_report phase_unwrapper_2d_cuda::unwrap_host(const unwrap_2d_buffers&)
{
    throw std::logic_error("placeholder");
}
unwrap_2d_report phase_unwrapper_2d_cuda::unwrap_on_device(const unwrap_2d_buffers&,
                                                           cuda_stream_t)
{
    throw std::logic_error("placeholder");
}
} // namespace core
} // namespace cudadsp
} // namespace gr
