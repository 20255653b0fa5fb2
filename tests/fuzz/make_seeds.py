#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Write the hand-made seeds of the fuzz targets into FOLDER/<target>/.

  /usr/bin/python3 tests/fuzz/make_seeds.py FOLDER      (GNU Radio's Python: pmt)

The seeds live in the archive tests/fuzz/corpus.tar.xz (docs/fuzzing.md says how to
unpack it, add to it and pack it again).

PRM files as tests/support/make_synthetic_slc.py and tests/apps/qa_xcorr_tool.cc write them and
with GMTSAR's quirks (legacy xshift/yshift, CR LF, short lines, repeated keys); pair
lists as docs/apps/cudadsp_xcorr.md shows them; channel messages from
docs/blocks/multichannel_correlator_cc.md serialised as a message port would deliver
them, and regression inputs of the error texts. The other seeds in those folders (and st_tbd_config's, whose inputs are read
field by field through FuzzedDataProvider) are inputs the fuzzers found: regression
inputs and a merged corpus (docs/fuzzing.md).
"""

import os
import sys

import pmt

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'support'))
from make_synthetic_slc import write_prm  # noqa: E402

CORPUS = 'corpus'  # main() sets the folder named on the command line


def seed(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def prm_seeds():
    folder = os.path.join(CORPUS, 'prm_file')
    os.makedirs(folder, exist_ok=True)
    write_prm(os.path.join(folder, 'synthetic_master.PRM'), 'master.SLC', 11304, 9216,
              2159.827, 0, 0)
    write_prm(os.path.join(folder, 'synthetic_aligned.PRM'), 'aligned.SLC', 11304, 9216,
              2159.831, -4, 2)
    # tests/apps/qa_xcorr_tool.cc prm_text(): GMTSAR's order, keys xcorr ignores.
    seed('prm_file', 'qa_xcorr_tool.PRM',
         'input_file              = raw.dat\nnum_valid_az            = 2048\n'
         'nrows                   = 2248\nfirst_line              = 1\n'
         'num_patches             = 1\nSLC_file                = a.slc\n'
         'num_rng_bins            = 1024\nbytes_per_line          = 4096\n'
         'PRF                     = 1679.9\nSC_identity             = 5\n'
         'rshift                  = -4\nashift                  = 2\n'
         'sub_int_r               = 0.0\nsub_int_a               = 0.0\n')
    seed('prm_file', 'quirks.PRM',
         'SLC_file = IMG-HH-ALPSRP.SLC\r\nnum_rng_bins = 5652 extra tokens\r\n'
         '\r\nnum_patches = +3\nnum_valid_az\nnum_valid_az = 2560\n'
         'xshift = -17\nyshift = 0004\nPRF = 2.15982e3\nPRF = 1.0e400\n\tPRF\t=\t2159.8\n')
    seed('prm_file', 'cfloat32.PRM', 'SLC_file = m.cf32\nrshift = 2147483647\n'
         'ashift = -2147483648\n')


def pair_list_seeds():
    seed('pair_list', 'stack.txt',
         '# master            aligned             folder\n'
         'S1_20190704.PRM  S1_20190716.PRM\n'
         'S1_20190704.PRM\tS1_20190728.PRM\tpairs/0704_0728\r\n'
         '\n'
         'master/S1_20190704.PRM aligned/S1_20190809.PRM ./out/  # trailing comment\n')
    seed('pair_list', 'same_folder.txt', 'a.PRM b.PRM x\nc.PRM d.PRM ./x/\n')


def channel_seed(name, value, sample_rate_index=0, taps=3):
    # fuzz_gnss_channel.cc: byte 0 even = deserialise the rest; FuzzedDataProvider
    # takes the configuration's integers from the end: sample rate, taps, IF.
    config = bytes([0, taps - 1, sample_rate_index])
    seed('gnss_channel', name, b'\x00' + pmt.serialize_str(value) + config)


def gnss_channel_seeds():
    # The docs' tracking example (a found satellite handed over).
    tracking = {'id': 1, 'system': 'gps_l1ca', 'prn': 1, 'code_phase_chips': 889.248,
                'doppler_hz': 1679.9, 'start_sample': 0, 'mode': 'tracking'}
    channel_seed('docs_tracking.bin', pmt.to_pmt(tracking))
    channel_seed('docs_tracking_list.bin', pmt.list1(pmt.to_pmt(tracking)))
    # Every key once, with the other systems.
    channel_seed('galileo.bin', pmt.to_pmt(
        {'id': 7, 'system': 'galileo_e1c', 'prn': 11, 'boc': False, 'doppler_hz': -250.0,
         'periods_per_integration': 1, 'pll_order': 3, 'pll_bandwidth_hz': 10.0,
         'fll_bandwidth_hz': 2.0, 'dll_order': 2, 'dll_bandwidth_hz': 1.0,
         'cn0_epochs': 20, 'cn0_lock_threshold_dbhz': 28.0,
         'carrier_lock_threshold': 0.8, 'mode': 'tracking', 'start_sample': 'now'}))
    channel_seed('glonass.bin', pmt.to_pmt(
        {'id': 3, 'system': 'glonass_l1of', 'prn': 5, 'frequency_number': -7,
         'carrier_frequency_hz': 1000.0, 'carrier_phase_rad': 0.5,
         'nominal_carrier_frequency_hz': 1598062500.0,
         'nominal_code_rate_cps': 511000.0}), sample_rate_index=2)
    explicit = pmt.to_pmt({'id': 4294967295, 'code': [1, -1, -1, 1, 1, 1, -1, 1],
                           'code_entries_per_chip': 2, 'code_rate_cps': 1000.0,
                           'tap_offsets_chips': [-0.25, 0.0, 0.25], 'early_tap': 0,
                           'prompt_tap': 1, 'late_tap': 2, 'intermediate_frequency_hz': 0.0})
    channel_seed('explicit_code.bin', explicit)
    channel_seed('remove_ids.bin', pmt.to_pmt([1, 2, 3]))
    channel_seed('remove_all.bin', pmt.intern('all'))
    # Regression: names with control bytes and beyond 80 characters in the error text.
    channel_seed('regression-system-control-bytes.bin', pmt.to_pmt(
        {'id': 1, 'system': '\x1b[31m' + 'g' * 100, 'prn': 1}))
    channel_seed('regression-mode-control-bytes.bin', pmt.to_pmt(
        {'id': 1, 'mode': 'tracking\x07\x1b]0;', 'prn': 1}))
    channel_seed('vector_of_dicts.bin', pmt.to_pmt(
        [{'id': 1, 'prn': 2}, {'id': 2, 'prn': 3, 'doppler_hz': 500.0}]))


def main():
    global CORPUS
    # An option is not a folder: "--help" once wrote a folder of that name.
    if len(sys.argv) != 2 or sys.argv[1].startswith('-'):
        sys.exit(__doc__)
    CORPUS = sys.argv[1]
    prm_seeds()
    pair_list_seeds()
    gnss_channel_seeds()


if __name__ == '__main__':
    main()
