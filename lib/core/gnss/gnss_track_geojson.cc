/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_track_geojson.h"
#include "runtime/atomic_file.h"
#include <cstdio>
#include <sstream>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

const double rad_to_deg = 180.0 / 3.14159265358979323846;

std::string coordinates(const gnss_geodetic& p)
{
    char text[96];
    std::snprintf(text,
                  sizeof text,
                  "[%.8f,%.8f,%.3f]",
                  p.longitude_rad * rad_to_deg,
                  p.latitude_rad * rad_to_deg,
                  p.height_m);
    return text;
}

} // namespace

void write_geojson_track(std::ostream& out,
                         const std::vector<gnss_track_point>& track,
                         int leap_seconds)
{
    out << "{\"type\":\"FeatureCollection\",\"features\":[";
    for (std::size_t i = 0; i < track.size(); ++i)
        out << (i ? "," : "")
            << "\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\","
            << "\"coordinates\":" << coordinates(track[i].position)
            << "},\"properties\":{\"time\":\"" << utc_iso8601(track[i].time, leap_seconds)
            << "\"}}";
    if (track.size() >= 2) {
        out << ",\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\","
            << "\"coordinates\":[";
        for (std::size_t i = 0; i < track.size(); ++i)
            out << (i ? "," : "") << coordinates(track[i].position);
        out << "]},\"properties\":{}}";
    }
    out << "\n]}\n";
}

void write_geojson_track(const std::string& path,
                         const std::vector<gnss_track_point>& track,
                         int leap_seconds)
{
    std::ostringstream text;
    write_geojson_track(text, track, leap_seconds);
    write_file_atomically(path, text.str());
}

} // namespace core
} // namespace cudadsp
} // namespace gr
