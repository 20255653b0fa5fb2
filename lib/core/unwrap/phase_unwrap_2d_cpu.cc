// PLACEHOLDER-REPLACED-BY-HELPER
#include "unwrap/phase_unwrap_2d_cpu.h"
#include <stdexcept>
namespace gr {
namespace cudadsp {
namespace core {
phase_unwrapper_2d_cpu::phase_unwrapper_2d_cpu(const phase_unwrap_2d_config& config,
                                               const device_selection& device)
    : phase_unwrapper_2d(config, device)
{
}
phase_unwrapper_2d_cpu::~phase_unwrapper_2d_cpu() = default;
unwrap_2d_report phase_unwrapper_2d_cpu::unwrap_host(const unwrap_2d_buffers&)
{
    throw std::logic_error("placeholder");
}
unwrap_2d_report phase_unwrapper_2d_cpu::unwrap_on_device(const unwrap_2d_buffers&,
                                                          cuda_stream_t)
{
    throw std::logic_error("placeholder");
}
} // namespace core
} // namespace cudadsp
} // namespace gr
