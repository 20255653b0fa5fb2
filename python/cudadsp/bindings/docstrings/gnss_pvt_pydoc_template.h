/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of gnss_pvt (written by hand; used as the
  docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_gnss_pvt = R"doc(GNSS position, velocity and time, GPS L1 C/A and Galileo E1: the observables block's
messages in, one fix dict per epoch out on "fix" (valid, reason, latitude_deg,
longitude_deg, height_m, ecef_m, velocity_m_s, satellites_used, satellites (ids used,
"G05", "E11"), excluded and excluded_reasons, gdop, pdop, hdop, vdop, tdop,
inter_system_bias_s, gps_week, gps_time_of_week_s, utc, ...). With an output folder,
stop() writes the RINEX 3.04 observation and navigation files (GPS, Galileo or mixed),
fixes.nmea and track.geojson there.
See docs/blocks/gnss_pvt.md.)doc";


static const char* __doc_gr_cudadsp_gnss_pvt_gnss_pvt = R"doc()doc";


static const char* __doc_gr_cudadsp_gnss_pvt_make = R"doc(Make a GNSS PVT block.

Args:
    output_folder: where stop() writes the files; "" writes none.
    elevation_mask_deg: satellites below are not used (0 to 90).
    ionosphere: apply the broadcast Klobuchar model.
    troposphere: apply the Saastamoinen model.
    klobuchar: alpha0..3, beta0..3 known before subframe 4 page 18 arrives, or [].
    reference_week: a GPS week near the signal's (resolves the 10-bit week, or
        Galileo alone the 12-bit GST week); 0: the machine clock's.)doc";


static const char* __doc_gr_cudadsp_gnss_pvt_epochs = R"doc(Epochs solved so far.)doc";


static const char* __doc_gr_cudadsp_gnss_pvt_fixes = R"doc(Epochs with a valid fix so far.)doc";


static const char* __doc_gr_cudadsp_gnss_pvt_output_files = R"doc(The files stop() wrote (empty before, or without a folder or a fix).)doc";

