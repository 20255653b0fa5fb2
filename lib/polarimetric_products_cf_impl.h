/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_POLARIMETRIC_PRODUCTS_CF_IMPL_H
#define INCLUDED_CUDADSP_POLARIMETRIC_PRODUCTS_CF_IMPL_H

#include "batch_gate.h"
#include "registered_gr_buffers.h"
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <gnuradio/cudadsp/polarimetric_products_cf.h>
#include <memory>
#include <mutex>

namespace gr {
namespace cudadsp {

class polarimetric_products_cf_impl : public polarimetric_products_cf
{
public:
    polarimetric_products_cf_impl(const core::polarimetric_config& config);

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

    double nyquist_velocity() const override;
    std::string backend() const override;
    bool start() override;
    bool stop() override;

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    /*! Validates \p change applied to the current calibration (std::invalid_argument
     *  naming the parameter) and queues it for the next work() call. */
    template <typename Change>
    void update_calibration(Change change);
    //! The calibration the setters have made (the next work() call's).
    core::polarimetric_calibration current_calibration() const;
    bool upstream_done() const;

    std::unique_ptr<core::polarimetric_processor> d_engine;
    batch_gate d_batch;
    registered_gr_buffers d_registered_buffers;
    // Setters run on other threads; work() picks up the pending calibration.
    mutable std::mutex d_calibration_mutex;
    core::polarimetric_calibration d_calibration;
    bool d_calibration_changed = false;
    const pmt::pmt_t d_radial_tag_key;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_POLARIMETRIC_PRODUCTS_CF_IMPL_H */
