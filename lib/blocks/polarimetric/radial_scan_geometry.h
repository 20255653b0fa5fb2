/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_RADIAL_SCAN_GEOMETRY_H
#define INCLUDED_CUDADSP_RADIAL_SCAN_GEOMETRY_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>

namespace gr {
namespace cudadsp {

/*!
 * \brief A simple scan: where the antenna points when no tag says otherwise.
 *
 * The azimuth starts at start_azimuth_deg on the first pulse the settings apply to and
 * turns at rate_deg_s (clockwise seen from above, as radar azimuths count); the
 * elevation is fixed.
 */
struct scan_settings {
    double start_azimuth_deg = 0.0; //!< in [-360, 360], taken modulo 360
    double elevation_deg = 0.5;     //!< in [-90, 90]
    double rate_deg_s = 0.0;        //!< 0 to core::max_antenna_rate_deg_s

    //! Throws std::invalid_argument naming \p prefix + the offending field.
    void validate(const std::string& prefix = "") const;
};

//! Where and when one radial was observed.
struct radial_geometry {
    double azimuth_deg;        //!< at the radial's centre, in [0, 360)
    double elevation_deg;      //!< at the radial's centre
    double time_s;             //!< of the radial's centre
    std::uint64_t sweep_index; //!< from 0, incremented at each new sweep
};

/*!
 * \brief Azimuth, elevation, time and sweep of every radial of a pulse stream, from
 * tagged pulses and a simple scan.
 *
 * Radial r holds pulses r M to r M + M - 1 (M pulses per radial); its centre is pulse
 * c = r M + (M - 1) / 2 (midway between the middle two pulses when M is even). For each
 * of azimuth, elevation and time, the tag that describes radial r is the one nearest to
 * c among all tags on pulses before the end of radial r (the earlier one when two are
 * as near; the later one of two on the same pulse). A tag of value x on pulse k gives
 * - azimuth: x + rate (c - k) T, wrapped to [0, 360) (T: the PRT; rate: the scan's);
 * - elevation: x;
 * - time: x + (c - k) T.
 * Without any azimuth tag so far, the azimuth is the simple scan's, start + rate (c -
 * k0) T, k0 being the first pulse of the first radial the settings applied to; without
 * elevation tags the elevation is the scan's; without time tags the time is c T (from
 * 0 at pulse 0).
 *
 * A new sweep starts at a radial whose elevation differs from that of the sweep's first
 * radial by more than 0.05 degrees, or whose azimuth has travelled a full turn (360
 * degrees, summing the shortest signed steps between consecutive radials) since the
 * sweep's first radial.
 *
 * The geometry of a radial depends only on the tags of the pulses up to its end, never
 * on how the stream was cut into calls: radials are taken in order, each once, and a
 * tag may be added at any time before the radial it falls in is taken.
 *
 * A tag outside the physical bounds (azimuth in [-360, 360] degrees, elevation in
 * [-90, 90] degrees, as the simple scan's; time in [0, max_time_s)) is refused: the
 * add_ functions return false and the tag counts as absent. NaN fails them all.
 */
class radial_scan_geometry
{
public:
    //! An elevation change larger than this starts a new sweep, degrees.
    static constexpr double sweep_elevation_tolerance_deg = 0.05;
    /*! The end of the latest time a tag may give, UTC seconds since 1970: the end of
     *  year 9999 (10000-01-01T00:00:00Z), the last time CfRadial's time strings
     *  (yyyy-mm-ddTHH:MM:SSZ) can write; cfradial_sink's MAX_TIME_S. */
    static constexpr double max_time_s = 253402300800.0;

    radial_scan_geometry(std::size_t pulses_per_radial,
                         double prt_s,
                         const scan_settings& settings);

    /*! Tags on pulse \p pulse (absolute index from the flowgraph start), pulses of one
     *  quantity in non-decreasing order, none in a radial already taken. False, and
     *  nothing added, for a value outside the bounds above. */
    bool add_azimuth(std::uint64_t pulse, double azimuth_deg);
    bool add_elevation(std::uint64_t pulse, double elevation_deg);
    bool add_time(std::uint64_t pulse, double time_s);

    //! The simple scan from the next radial taken on.
    void set_scan(const scan_settings& settings);
    const scan_settings& scan() const { return d_scan; }

    //! The geometry of radial \p radial; radials in increasing order.
    radial_geometry take_radial(std::uint64_t radial);

private:
    struct tagged_value {
        std::uint64_t pulse;
        double value;
    };

    //! The tags of one quantity: those not yet reached, and the last one passed.
    class tag_track
    {
    public:
        void add(std::uint64_t pulse, double value);
        /*! The tag nearest to \p centre among the tags on pulses before \p end and the
         *  last one passed before; passes the tags before \p end. */
        std::optional<tagged_value> nearest(double centre, std::uint64_t end);

    private:
        std::optional<tagged_value> d_passed;
        std::deque<tagged_value> d_pending;
    };

    void update_sweep(double azimuth_deg, double elevation_deg);

    const std::size_t d_pulses_per_radial;
    const double d_prt_s;
    scan_settings d_scan;
    bool d_scan_origin_pending = true;
    double d_scan_origin_pulse = 0.0;
    tag_track d_azimuth, d_elevation, d_time;

    bool d_sweep_started = false;
    std::uint64_t d_sweep_index = 0;
    double d_sweep_elevation_deg = 0.0;
    double d_sweep_travel_deg = 0.0;
    double d_previous_azimuth_deg = 0.0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_RADIAL_SCAN_GEOMETRY_H */
