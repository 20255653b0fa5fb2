#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''GNSS engines without GNU Radio: acquisition (acquire: which satellites a recording
holds, their Doppler and code phase; pcps_acquisition, the engine of
pcps_acquisition_cc), the ranging codes (GPS L1 C/A, Galileo E1-B/C, GLONASS L1OF,
BOC(1,1) expansion) and the signal simulator (satellites with Doppler, code phase, C/N0
and navigation bits in noise), and tracking (track: the detected satellites followed
by the correlator's loops; multichannel_correlator, the engine of
multichannel_correlator_cc), and the receiver (receive: position fixes and RINEX, NMEA
and GeoJSON files of a GPS L1 C/A and / or Galileo E1 recording; gps_receiver, its host
pipeline; gps_constellation_scenario, signals of both systems with their truth; the
broadcast navigation data of both).'''

from .._engines import (gnss_receiver_tap_offsets, gnss_signal_system,
                        multichannel_correlator, pcps_acquisition)
from .._engines import (boc11_expand, galileo_e1_chip_rate_cps, galileo_e1_code,
                        galileo_e1_code_length, galileo_e1_component, galileo_e1_prn_count,
                        glonass_l1of_chip_rate_cps, glonass_l1of_code,
                        glonass_l1of_code_length, gnss_signal_simulator,
                        gnss_simulated_satellite, gnss_simulator_config,
                        gps_l1_frequency_hz, gps_l1ca_chip_rate_cps, gps_l1ca_code,
                        gps_l1ca_code_length)
from .._engines import (galileo_ephemeris, galileo_gst_utc, galileo_inav_message,
                        galileo_iono_health, galileo_nominal_constellation,
                        gnss_geodetic_to_ecef, gps_constellation_scenario, gps_ephemeris,
                        gps_iono_utc, gps_nominal_constellation, gps_receiver)
from .acquisition import acquire
from .receiver import receive
from .tracking import track
