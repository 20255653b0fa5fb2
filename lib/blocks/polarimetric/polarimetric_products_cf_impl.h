/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_POLARIMETRIC_PRODUCTS_CF_IMPL_H
#define INCLUDED_CUDADSP_POLARIMETRIC_PRODUCTS_CF_IMPL_H

#include "blocks/common/batch_gate.h"
#include "blocks/common/rate_limited_log.h"
#include "blocks/common/registered_gr_buffers.h"
#include "blocks/common/work_errors.h"
#include "blocks/polarimetric/radial_scan_geometry.h"
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <gnuradio/cudadsp/polarimetric_products_cf.h>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace cudadsp {

class polarimetric_products_cf_impl
    : public guarded_work<polarimetric_products_cf_impl, polarimetric_products_cf>
{
public:
    polarimetric_products_cf_impl(const core::polarimetric_config& config,
                                  const scan_settings& scan);

    void set_zcal_db(double zcal_db) override;
    void set_zdr_cal_db(double zdr_cal_db) override;
    void set_phidp_offset_deg(double phidp_offset_deg) override;
    void set_noise_h(double noise_h) override;
    void set_noise_v(double noise_v) override;
    void set_snr_threshold_db(double snr_threshold_db) override;

    double zcal_db() const override;
    double zdr_cal_db() const override;
    double phidp_offset_deg() const override;
    double noise_h() const override;
    double noise_v() const override;
    double snr_threshold_db() const override;

    void
    set_scan(double start_azimuth_deg, double elevation_deg, double rate_deg_s) override;
    double scan_start_azimuth_deg() const override;
    double scan_elevation_deg() const override;
    double scan_rate_deg_s() const override;

    std::string clutter_filter() const override;
    bool clutter_only_where_detected() const override;
    double cpa_threshold() const override;
    double antenna_rate_deg_s() const override;
    double beamwidth_deg() const override;
    bool invert_velocity() const override;
    bool invert_phidp() const override;

    double nyquist_velocity() const override;
    std::string backend() const override;
    bool start() override;
    bool stop() override;

    //! work()'s body: guarded_work (work_errors.h) runs it in work().
    int work_body(int noutput_items,
                  gr_vector_const_void_star& input_items,
                  gr_vector_void_star& output_items);

private:
    /*! Validates \p change applied to the current calibration (std::invalid_argument
     *  naming the parameter) and queues it for the next work() call. */
    template <typename Change>
    void update_calibration(Change change);
    //! The calibration the setters have made (the next work() call's).
    core::polarimetric_calibration current_calibration() const;
    //! Validates \p scan (naming the argument) and queues it for the next work() call.
    void request_scan(const scan_settings& scan);
    scan_settings requested_scan() const;
    //! The "scan" message port: a dict of any of set_scan()'s arguments.
    void handle_scan_message(const pmt::pmt_t& msg);
    //! Where the engine writes each product: the output buffers of connected ports,
    //! scratch memory for the optional ports left unconnected.
    void point_products(gr_vector_void_star& output_items,
                        int noutput_items,
                        float* products[core::polarimetric_product_count]);
    //! Hands the scan tags of input 0 over \p noutput_items radials to d_geometry.
    void read_scan_tags(int noutput_items);
    //! The block's own tags of \p noutput_items radials on every connected output.
    void tag_radials(int noutput_items);

    std::unique_ptr<core::polarimetric_processor> d_engine;
    batch_gate d_batch;
    registered_gr_buffers d_registered_buffers;
    // Setters run on other threads; work() picks up the pending calibration.
    mutable std::mutex d_calibration_mutex;
    core::polarimetric_calibration d_calibration;
    bool d_calibration_changed = false;
    // set_scan() and "scan" messages, picked up by work() like the calibration.
    mutable std::mutex d_scan_mutex;
    scan_settings d_scan;
    bool d_scan_changed = false;
    radial_scan_geometry d_geometry; // work()'s thread only
    std::vector<float> d_unconnected_products;
    // A bad source or controller repeats: one line per interval, the rest counted.
    rate_limited_log d_bad_tag_log{ rate_limited_log::level::warn,
                                    "input scan tags ignored" };
    rate_limited_log d_scan_message_log{ rate_limited_log::level::error,
                                         "\"scan\" messages ignored" };
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_POLARIMETRIC_PRODUCTS_CF_IMPL_H */
