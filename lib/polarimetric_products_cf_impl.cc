/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "decimated_tags.h"
#include "polarimetric_products_cf_impl.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

//! Input bytes (both polarisations) a GPU batch aims at: large launches and transfers.
constexpr std::size_t batch_input_bytes = std::size_t(32) << 20;
//! Pipeline chunks per batch, so staging one chunk overlaps the transfers of another.
constexpr std::size_t chunks_per_batch = 4;
//! Bound on a batch of short radials, which keeps the output buffers small.
constexpr std::size_t max_batch_radials = 1024;

std::size_t radial_input_bytes(const core::polarimetric_config& config)
{
    return 2 * config.samples_per_radial() * sizeof(gr_complex);
}

int batch_radials(const core::polarimetric_config& config)
{
    return static_cast<int>(std::clamp<std::size_t>(
        batch_input_bytes / radial_input_bytes(config), 1, max_batch_radials));
}

core::polarimetric_config make_config(int ngates,
                                      int pulses_per_radial,
                                      double wavelength_m,
                                      double prt_s,
                                      double first_gate_m,
                                      double gate_spacing_m,
                                      double zcal_db,
                                      double zdr_cal_db,
                                      double phidp_offset_deg,
                                      double noise_h,
                                      double noise_v,
                                      double snr_threshold_db,
                                      const std::string& mode,
                                      const std::string& device)
{
    if (ngates < 1)
        throw std::invalid_argument("ngates: must be >= 1, got " +
                                    std::to_string(ngates));
    if (pulses_per_radial < 2)
        throw std::invalid_argument("pulses_per_radial: must be >= 2, got " +
                                    std::to_string(pulses_per_radial));
    core::polarimetric_config config;
    config.ngates = static_cast<std::size_t>(ngates);
    config.pulses_per_radial = static_cast<std::size_t>(pulses_per_radial);
    config.wavelength_m = wavelength_m;
    config.prt_s = prt_s;
    config.first_gate_m = first_gate_m;
    config.gate_spacing_m = gate_spacing_m;
    config.calibration.zcal_db = zcal_db;
    config.calibration.zdr_cal_db = zdr_cal_db;
    config.calibration.phidp_offset_deg = phidp_offset_deg;
    config.calibration.noise_h = noise_h;
    config.calibration.noise_v = noise_v;
    config.calibration.snr_threshold_db = snr_threshold_db;
    config.mode = core::parse_polarimetric_mode(mode, "mode");
    config.device = device;
    config.chunk_radials = std::max<std::size_t>(
        1, static_cast<std::size_t>(batch_radials(config)) / chunks_per_batch);
    config.validate();
    return config;
}

} // namespace

int polarimetric_products_cf::upstream_buffer_pulses(int ngates, int pulses_per_radial)
{
    core::polarimetric_config config;
    config.ngates = static_cast<std::size_t>(std::max(ngates, 1));
    config.pulses_per_radial = static_cast<std::size_t>(std::max(pulses_per_radial, 1));
    return 2 * batch_radials(config) * static_cast<int>(config.pulses_per_radial);
}

polarimetric_products_cf::sptr polarimetric_products_cf::make(int ngates,
                                                              int pulses_per_radial,
                                                              double wavelength_m,
                                                              double prt_s,
                                                              double first_gate_m,
                                                              double gate_spacing_m,
                                                              double zcal_db,
                                                              double zdr_cal_db,
                                                              double phidp_offset_deg,
                                                              double noise_h,
                                                              double noise_v,
                                                              double snr_threshold_db,
                                                              const std::string& mode,
                                                              const std::string& device)
{
    // Validated before any GNU Radio object is built from it.
    const core::polarimetric_config config = make_config(ngates,
                                                         pulses_per_radial,
                                                         wavelength_m,
                                                         prt_s,
                                                         first_gate_m,
                                                         gate_spacing_m,
                                                         zcal_db,
                                                         zdr_cal_db,
                                                         phidp_offset_deg,
                                                         noise_h,
                                                         noise_v,
                                                         snr_threshold_db,
                                                         mode,
                                                         device);
    return gnuradio::make_block_sptr<polarimetric_products_cf_impl>(config);
}

polarimetric_products_cf_impl::polarimetric_products_cf_impl(
    const core::polarimetric_config& config)
    : gr::sync_decimator("polarimetric_products_cf",
                         gr::io_signature::make(2, 2, sizeof(gr_complex) * config.ngates),
                         gr::io_signature::make(core::polarimetric_product_count,
                                                core::polarimetric_product_count,
                                                sizeof(float) * config.ngates),
                         static_cast<unsigned int>(config.pulses_per_radial)),
      d_engine(core::polarimetric_processor::make(config)),
      d_batch(batch_radials(config)),
      d_calibration(config.calibration),
      d_radial_tag_key(pmt::intern("radial_index"))
{
    const core::device_selection& selected = d_engine->device();
    // The automatic choice is news to the user; an explicit one is not.
    if (selected.chosen_automatically)
        d_logger->info("backend {} (chosen by device=\"auto\")", selected.to_string());
    else
        d_logger->debug("backend {}", selected.to_string());

    // Radials handed to one work() call: up to a batch, so the GPU gets large
    // transfers and launches and the block holds at most one batch (its latency).
    set_max_noutput_items(d_batch.batch_items());
    set_min_output_buffer(2 * d_batch.batch_items());
    // GNU Radio's own propagation rounds offset / decimation to the nearest radial;
    // a tagged pulse belongs to the radial that contains it (see
    // copy_tags_to_containing_items()).
    set_tag_propagation_policy(TPP_DONT);
}

bool polarimetric_products_cf_impl::start()
{
    // On CUDA, work() waits for a batch of radials (see batch_gate).
    if (d_engine->device().backend == core::backend_kind::cuda) {
        const int upstream = std::min(detail()->input(0)->buffer()->bufsize(),
                                      detail()->input(1)->buffer()->bufsize());
        d_batch.start(upstream, decimation(), d_logger);
    }
    if (d_engine->device().backend == core::backend_kind::cuda)
        d_registered_buffers.register_buffers(
            *this, d_engine->device().cuda_ordinal, d_logger);
    return sync_decimator::start();
}

bool polarimetric_products_cf_impl::stop()
{
    d_registered_buffers.release();
    return sync_decimator::stop();
}

template <typename Change>
void polarimetric_products_cf_impl::update_calibration(Change change)
{
    std::lock_guard<std::mutex> lock(d_calibration_mutex);
    core::polarimetric_calibration updated = d_calibration;
    change(updated);
    updated.validate(); // names the parameter; the old values stay on error
    d_calibration = updated;
    d_calibration_changed = true;
}

void polarimetric_products_cf_impl::set_zcal_db(double value)
{
    update_calibration([value](core::polarimetric_calibration& c) { c.zcal_db = value; });
}
void polarimetric_products_cf_impl::set_zdr_cal_db(double value)
{
    update_calibration(
        [value](core::polarimetric_calibration& c) { c.zdr_cal_db = value; });
}
void polarimetric_products_cf_impl::set_phidp_offset_deg(double value)
{
    update_calibration(
        [value](core::polarimetric_calibration& c) { c.phidp_offset_deg = value; });
}
void polarimetric_products_cf_impl::set_noise_h(double value)
{
    update_calibration([value](core::polarimetric_calibration& c) { c.noise_h = value; });
}
void polarimetric_products_cf_impl::set_noise_v(double value)
{
    update_calibration([value](core::polarimetric_calibration& c) { c.noise_v = value; });
}
void polarimetric_products_cf_impl::set_snr_threshold_db(double value)
{
    update_calibration(
        [value](core::polarimetric_calibration& c) { c.snr_threshold_db = value; });
}

core::polarimetric_calibration polarimetric_products_cf_impl::current_calibration() const
{
    std::lock_guard<std::mutex> lock(d_calibration_mutex);
    return d_calibration;
}

double polarimetric_products_cf_impl::zcal_db() const
{
    return current_calibration().zcal_db;
}
double polarimetric_products_cf_impl::zdr_cal_db() const
{
    return current_calibration().zdr_cal_db;
}
double polarimetric_products_cf_impl::phidp_offset_deg() const
{
    return current_calibration().phidp_offset_deg;
}
double polarimetric_products_cf_impl::noise_h() const
{
    return current_calibration().noise_h;
}
double polarimetric_products_cf_impl::noise_v() const
{
    return current_calibration().noise_v;
}
double polarimetric_products_cf_impl::snr_threshold_db() const
{
    return current_calibration().snr_threshold_db;
}

double polarimetric_products_cf_impl::nyquist_velocity() const
{
    return d_engine->config().nyquist_velocity();
}

std::string polarimetric_products_cf_impl::backend() const
{
    return d_engine->device().to_string();
}

bool polarimetric_products_cf_impl::upstream_done() const
{
    return detail()->input(0)->done() || detail()->input(1)->done();
}

int polarimetric_products_cf_impl::work(int noutput_items,
                                        gr_vector_const_void_star& input_items,
                                        gr_vector_void_star& output_items)
{
    if (d_batch.should_wait(noutput_items, upstream_done()))
        return 0; // called again when more input arrives
    {
        std::lock_guard<std::mutex> lock(d_calibration_mutex);
        if (d_calibration_changed) {
            d_engine->set_calibration(d_calibration);
            d_calibration_changed = false;
        }
    }

    float* products[core::polarimetric_product_count];
    for (int p = 0; p < core::polarimetric_product_count; ++p)
        products[p] = static_cast<float*>(output_items[p]);
    d_engine->process(static_cast<const gr_complex*>(input_items[0]),
                      static_cast<const gr_complex*>(input_items[1]),
                      static_cast<std::size_t>(noutput_items),
                      products);

    copy_tags_to_containing_items(*this, decimation(), noutput_items);
    const uint64_t first_radial = nitems_written(0);
    for (int r = 0; r < noutput_items; ++r) {
        const pmt::pmt_t index = pmt::from_uint64(first_radial + r);
        for (int p = 0; p < core::polarimetric_product_count; ++p)
            add_item_tag(p, first_radial + r, d_radial_tag_key, index, alias_pmt());
    }
    return noutput_items;
}


} /* namespace cudadsp */
} /* namespace gr */
