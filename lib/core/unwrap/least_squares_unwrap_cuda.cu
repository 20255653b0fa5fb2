// PLACEHOLDER-REPLACED-BY-HELPER
#include "unwrap/least_squares_unwrap_cuda.h"
#include <stdexcept>
namespace gr {
namespace cudadsp {
namespace core {
struct least_squares_unwrap_cuda::workspace {
};
least_squares_unwrap_cuda::least_squares_unwrap_cuda(const phase_unwrap_2d_config&)
{
    throw std::logic_error("placeholder");
}
least_squares_unwrap_cuda::~least_squares_unwrap_cuda() = default;
unwrap_2d_report least_squares_unwrap_cuda::solve(const unwrap_2d_buffers&, cudaStream_t)
{
    throw std::logic_error("placeholder");
}
void least_squares_unwrap_cuda::enqueue_transforms_only(cudaStream_t)
{
    throw std::logic_error("placeholder");
}
} // namespace core
} // namespace cudadsp
} // namespace gr
