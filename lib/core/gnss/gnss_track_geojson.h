/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A receiver's track as GeoJSON (RFC 7946): a FeatureCollection with one Point per fix,
// its UTC time as the "time" property (ISO 8601), and a LineString through them when
// there are two fixes or more. Coordinates [longitude, latitude, height] in WGS-84
// degrees (8 decimals, about a millimetre) and metres above the ellipsoid.

#ifndef INCLUDED_CUDADSP_CORE_GNSS_TRACK_GEOJSON_H
#define INCLUDED_CUDADSP_CORE_GNSS_TRACK_GEOJSON_H

#include "gnss/gnss_geodesy.h"
#include "gnss/gnss_time.h"
#include <ostream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

struct gnss_track_point {
    gps_time time;
    gnss_geodetic position;
};

void write_geojson_track(std::ostream& out,
                         const std::vector<gnss_track_point>& track,
                         int leap_seconds);

//! The same, written atomically (runtime/atomic_file.h) to \p path.
void write_geojson_track(const std::string& path,
                         const std::vector<gnss_track_point>& track,
                         int leap_seconds);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_GNSS_TRACK_GEOJSON_H */
