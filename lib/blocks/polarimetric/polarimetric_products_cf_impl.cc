/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/backend_log.h"
#include "blocks/common/decimated_tags.h"
#include "blocks/common/item_size.h"
#include "blocks/polarimetric/polarimetric_products_cf_impl.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <cmath>
#include <optional>
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
//! Outputs 0 (Zh) to 6 (SNRh) must be connected; 7 (CLUT) and 8 (CPA) are optional,
//! so that flowgraphs made before the clutter products existed keep working.
constexpr int mandatory_outputs = core::product_snr_h + 1;

//! The tag keys the block reads on input 0 and writes on every output.
struct tag_keys {
    const pmt::pmt_t radial_index = pmt::intern("radial_index");
    const pmt::pmt_t azimuth_deg = pmt::intern("azimuth_deg");
    const pmt::pmt_t elevation_deg = pmt::intern("elevation_deg");
    const pmt::pmt_t time_s = pmt::intern("time_s");
    const pmt::pmt_t sweep_index = pmt::intern("sweep_index");
    const pmt::pmt_t rx_time = pmt::intern("rx_time");
};

const tag_keys& keys()
{
    static const tag_keys k;
    return k;
}

//! A real or integer pmt as a double; nothing for any other pmt.
std::optional<double> pmt_number(const pmt::pmt_t& value)
{
    if (pmt::is_uint64(value)) // pmt::to_double() refuses uint64
        return static_cast<double>(pmt::to_uint64(value));
    if (pmt::is_real(value) || pmt::is_integer(value))
        return pmt::to_double(value);
    return std::nullopt;
}

//! GNU Radio's rx_time, (whole seconds, fractional seconds), as seconds; NaN when the
//! value has another shape (radial_scan_geometry::add_time() checks the range).
double rx_time_seconds(const pmt::pmt_t& value)
{
    if (!pmt::is_tuple(value) || pmt::length(value) != 2)
        return NAN;
    return pmt_number(pmt::tuple_ref(value, 0)).value_or(NAN) +
           pmt_number(pmt::tuple_ref(value, 1)).value_or(NAN);
}

std::size_t radial_input_bytes(const core::polarimetric_config& config)
{
    return 2 * config.samples_per_radial() * sizeof(gr_complex);
}

int batch_radials(const core::polarimetric_config& config)
{
    return static_cast<int>(std::clamp<std::size_t>(
        batch_input_bytes / radial_input_bytes(config), 1, max_batch_radials));
}

/*!
 * The engine's configuration as the block runs it: \p config validated (before any GNU
 * Radio object is built from it) with the block's chunk size.
 */
core::polarimetric_config block_processing(const polarimetric_products_cf_config& config)
{
    core::polarimetric_config processing = config.processing;
    processing.validate();
    processing.chunk_radials = std::max<std::size_t>(
        1, static_cast<std::size_t>(batch_radials(processing)) / chunks_per_batch);
    return processing;
}

} // namespace

int polarimetric_products_cf::upstream_buffer_pulses(int ngates, int pulses_per_radial)
{
    core::polarimetric_config config;
    config.ngates = static_cast<std::size_t>(std::max(ngates, 1));
    config.pulses_per_radial = static_cast<std::size_t>(std::max(pulses_per_radial, 1));
    return 2 * batch_radials(config) * static_cast<int>(config.pulses_per_radial);
}

polarimetric_products_cf::sptr
polarimetric_products_cf::make(const polarimetric_products_cf_config& config)
{
    const core::polarimetric_config processing = block_processing(config);
    scan_settings scan;
    scan.start_azimuth_deg = config.scan_start_azimuth_deg;
    scan.elevation_deg = config.scan_elevation_deg;
    scan.rate_deg_s = processing.clutter.antenna_rate_deg_s;
    scan.validate("scan_");
    return gnuradio::make_block_sptr<polarimetric_products_cf_impl>(processing, scan);
}

polarimetric_products_cf_impl::polarimetric_products_cf_impl(
    const core::polarimetric_config& config, const scan_settings& scan)
    : gr::sync_decimator("polarimetric_products_cf",
                         gr::io_signature::make(
                             2,
                             2,
                             checked_item_size("ngates",
                                               static_cast<std::int64_t>(config.ngates),
                                               sizeof(gr_complex))),
                         gr::io_signature::make(mandatory_outputs,
                                                core::polarimetric_product_count,
                                                sizeof(float) * config.ngates),
                         static_cast<unsigned int>(config.pulses_per_radial)),
      d_engine(core::polarimetric_processor::make(config)),
      d_batch(batch_radials(config)),
      d_calibration(config.calibration),
      d_scan(scan),
      d_geometry(config.pulses_per_radial, config.prt_s, scan)
{
    log_backend(d_logger, d_engine->device());

    d_batch.limit_work_calls(*this);
    // GNU Radio's own propagation rounds offset / decimation to the nearest radial;
    // a tagged pulse belongs to the radial that contains it (see
    // copy_tags_to_containing_items()).
    set_tag_propagation_policy(TPP_DONT);

    message_port_register_in(pmt::intern("scan"));
    set_msg_handler(pmt::intern("scan"),
                    [this](const pmt::pmt_t& msg) { handle_scan_message(msg); });
}

bool polarimetric_products_cf_impl::start()
{
    // On CUDA, work() waits for a batch of radials (see batch_gate), and the GNU
    // Radio buffers it moves are page-locked.
    if (d_engine->device().backend == core::backend_kind::cuda) {
        d_batch.start(*this, decimation(), d_logger);
        d_registered_buffers.register_buffers(
            *this, d_engine->device().cuda_ordinal, d_logger);
    }
    return sync_decimator::start();
}

bool polarimetric_products_cf_impl::stop()
{
    d_bad_tag_log.report(d_logger);
    d_scan_message_log.report(d_logger);
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

void polarimetric_products_cf_impl::request_scan(const scan_settings& scan)
{
    scan.validate(); // names the argument; the old values stay on error
    std::lock_guard<std::mutex> lock(d_scan_mutex);
    d_scan = scan;
    d_scan_changed = true;
}

scan_settings polarimetric_products_cf_impl::requested_scan() const
{
    std::lock_guard<std::mutex> lock(d_scan_mutex);
    return d_scan;
}

void polarimetric_products_cf_impl::set_scan(double start_azimuth_deg,
                                             double elevation_deg,
                                             double rate_deg_s)
{
    scan_settings scan;
    scan.start_azimuth_deg = start_azimuth_deg;
    scan.elevation_deg = elevation_deg;
    scan.rate_deg_s = rate_deg_s;
    request_scan(scan);
}

void polarimetric_products_cf_impl::handle_scan_message(const pmt::pmt_t& msg)
{
    // A message handler that throws stops the flowgraph: a bad message is only logged.
    try {
        if (!pmt::is_dict(msg))
            throw std::invalid_argument("must be a dict, got " + pmt::write_string(msg));
        scan_settings scan = requested_scan();
        for (pmt::pmt_t items = pmt::dict_items(msg); !pmt::is_null(items);
             items = pmt::cdr(items)) {
            const pmt::pmt_t key = pmt::car(pmt::car(items));
            const pmt::pmt_t value = pmt::cdr(pmt::car(items));
            const std::string name =
                pmt::is_symbol(key) ? pmt::symbol_to_string(key) : pmt::write_string(key);
            double* field = name == "start_azimuth_deg" ? &scan.start_azimuth_deg
                            : name == "elevation_deg"   ? &scan.elevation_deg
                            : name == "rate_deg_s"      ? &scan.rate_deg_s
                                                        : nullptr;
            if (!field)
                throw std::invalid_argument(
                    "unknown key " + name +
                    " (keys: start_azimuth_deg, elevation_deg, rate_deg_s)");
            const std::optional<double> number = pmt_number(value);
            if (!number)
                throw std::invalid_argument(name + ": must be a number, got " +
                                            pmt::write_string(value));
            *field = *number;
        }
        request_scan(scan);
    } catch (const std::exception& e) {
        d_scan_message_log.log(d_logger,
                               std::string("\"scan\" message ignored: ") + e.what());
    }
}

double polarimetric_products_cf_impl::scan_start_azimuth_deg() const
{
    return requested_scan().start_azimuth_deg;
}
double polarimetric_products_cf_impl::scan_elevation_deg() const
{
    return requested_scan().elevation_deg;
}
double polarimetric_products_cf_impl::scan_rate_deg_s() const
{
    return requested_scan().rate_deg_s;
}

std::string polarimetric_products_cf_impl::clutter_filter() const
{
    return core::to_string(d_engine->config().clutter.kind);
}
bool polarimetric_products_cf_impl::clutter_only_where_detected() const
{
    return d_engine->config().clutter.only_where_detected;
}
double polarimetric_products_cf_impl::cpa_threshold() const
{
    return d_engine->config().clutter.cpa_threshold;
}
double polarimetric_products_cf_impl::antenna_rate_deg_s() const
{
    return d_engine->config().clutter.antenna_rate_deg_s;
}
double polarimetric_products_cf_impl::beamwidth_deg() const
{
    return d_engine->config().clutter.beamwidth_deg;
}
bool polarimetric_products_cf_impl::invert_velocity() const
{
    return d_engine->config().invert_velocity;
}
bool polarimetric_products_cf_impl::invert_phidp() const
{
    return d_engine->config().invert_phidp;
}

double polarimetric_products_cf_impl::nyquist_velocity() const
{
    return d_engine->config().nyquist_velocity();
}

std::string polarimetric_products_cf_impl::backend() const
{
    return d_engine->device().to_string();
}

void polarimetric_products_cf_impl::point_products(
    gr_vector_void_star& output_items,
    int noutput_items,
    float* products[core::polarimetric_product_count])
{
    const int connected = static_cast<int>(output_items.size());
    const std::size_t radial_floats = d_engine->config().ngates;
    const std::size_t per_product =
        static_cast<std::size_t>(noutput_items) * radial_floats;
    // The engine computes every product; pageable scratch is enough for the
    // unconnected ones, whose bytes are small beside the pulses.
    const std::size_t scratch =
        static_cast<std::size_t>(core::polarimetric_product_count - connected) *
        per_product;
    if (d_unconnected_products.size() < scratch)
        d_unconnected_products.resize(scratch);
    for (int p = 0; p < core::polarimetric_product_count; ++p)
        products[p] = p < connected
                          ? static_cast<float*>(output_items[p])
                          : d_unconnected_products.data() +
                                static_cast<std::size_t>(p - connected) * per_product;
}

void polarimetric_products_cf_impl::read_scan_tags(int noutput_items)
{
    const uint64_t first = nitems_read(0);
    const uint64_t end = first + static_cast<uint64_t>(noutput_items) * decimation();
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, first, end);
    std::stable_sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
    const tag_keys& k = keys();
    for (const gr::tag_t& tag : tags) {
        const bool azimuth = pmt::eq(tag.key, k.azimuth_deg);
        const bool elevation = pmt::eq(tag.key, k.elevation_deg);
        const bool time = pmt::eq(tag.key, k.rx_time);
        if (!azimuth && !elevation && !time)
            continue;
        const double value =
            time ? rx_time_seconds(tag.value) : pmt_number(tag.value).value_or(NAN);
        const bool added = azimuth     ? d_geometry.add_azimuth(tag.offset, value)
                           : elevation ? d_geometry.add_elevation(tag.offset, value)
                                       : d_geometry.add_time(tag.offset, value);
        if (!added)
            d_bad_tag_log.log(d_logger,
                              "input tag \"" + pmt::symbol_to_string(tag.key) +
                                  "\" on pulse " + std::to_string(tag.offset) +
                                  " ignored (value " + pmt::write_string(tag.value) +
                                  "): outside the scan's bounds or not a number");
    }
}

void polarimetric_products_cf_impl::tag_radials(int noutput_items)
{
    const tag_keys& k = keys();
    const uint64_t first_radial = nitems_written(0);
    const int noutputs = detail()->noutputs();
    for (int r = 0; r < noutput_items; ++r) {
        const uint64_t radial = first_radial + static_cast<uint64_t>(r);
        const radial_geometry g = d_geometry.take_radial(radial);
        const std::pair<pmt::pmt_t, pmt::pmt_t> tags[] = {
            { k.radial_index, pmt::from_uint64(radial) },
            { k.azimuth_deg, pmt::from_double(g.azimuth_deg) },
            { k.elevation_deg, pmt::from_double(g.elevation_deg) },
            { k.time_s, pmt::from_double(g.time_s) },
            { k.sweep_index, pmt::from_uint64(g.sweep_index) },
        };
        for (int p = 0; p < noutputs; ++p)
            for (const auto& [key, value] : tags)
                add_item_tag(p, radial, key, value, alias_pmt());
    }
}

int polarimetric_products_cf_impl::work_body(int noutput_items,
                                             gr_vector_const_void_star& input_items,
                                             gr_vector_void_star& output_items)
{
    if (d_batch.should_wait(*this, noutput_items))
        return 0; // called again when more input arrives
    {
        std::lock_guard<std::mutex> lock(d_calibration_mutex);
        if (d_calibration_changed) {
            d_engine->set_calibration(d_calibration);
            d_calibration_changed = false;
        }
    }
    {
        std::lock_guard<std::mutex> lock(d_scan_mutex);
        if (d_scan_changed) {
            d_geometry.set_scan(d_scan);
            d_scan_changed = false;
        }
    }

    float* products[core::polarimetric_product_count];
    point_products(output_items, noutput_items, products);
    d_engine->process(static_cast<const gr_complex*>(input_items[0]),
                      static_cast<const gr_complex*>(input_items[1]),
                      static_cast<std::size_t>(noutput_items),
                      products);

    const tag_keys& k = keys();
    copy_tags_to_containing_items(*this,
                                  decimation(),
                                  noutput_items,
                                  { k.azimuth_deg, k.elevation_deg, k.rx_time });
    read_scan_tags(noutput_items);
    tag_radials(noutput_items);
    return noutput_items;
}

} /* namespace cudadsp */
} /* namespace gr */
