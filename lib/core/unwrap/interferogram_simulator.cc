// PLACEHOLDER-REPLACED-BY-HELPER
#include <gnuradio/cudadsp/core/interferogram_simulator.h>
#include <stdexcept>
namespace gr {
namespace cudadsp {
namespace core {
void interferogram_scene_config::validate() const {}
interferogram_scene simulate_interferogram(const interferogram_scene_config&)
{
    throw std::logic_error("placeholder");
}
} // namespace core
} // namespace cudadsp
} // namespace gr
