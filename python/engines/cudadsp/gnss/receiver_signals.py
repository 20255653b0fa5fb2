#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The signals receive() takes ("gps_l1ca", "galileo_e1") and what differs between
them: the search, the tracking channel, the lock rule's window; and the satellites'
names, their RINEX ids ("G05", "E11"), by which receive() reports every satellite."""

import dataclasses
import math
import operator
import re

from .._engines import gnss_default_cn0_epochs, gnss_receiver_tap_offsets


@dataclasses.dataclass(frozen=True)
class signal:
    """One signal's settings in receive().

    system: the receiver's system name ("gps", "galileo"); letter: its RINEX letter;
    channel_system: the correlator channel's code (Galileo: the E1-B data code, whose
    symbols carry I/NAV); prns: searched by default; max_prn: the highest the codes
    define; tap_offsets_chips: the channel's early, prompt and late taps;
    acquisition: the search's settings beyond the defaults; code_period_s: one record.
    """
    system: str
    letter: str
    channel_system: str
    prns: tuple
    max_prn: int
    tap_offsets_chips: tuple
    acquisition: tuple
    code_period_s: float

    def satellite(self, prn):
        """The RINEX id of this signal's PRN prn."""
        return f"{self.letter}{prn:02d}"

    def lock_windows(self, lock_loss_s):
        """lock_loss_s in whole C/N0 windows of this signal's channels (the lock
        rule's unit: gnss_default_cn0_epochs records each)."""
        return math.ceil(lock_loss_s / (gnss_default_cn0_epochs * self.code_period_s)
                         - 1e-9)


SIGNALS = {
    # The loops of qa_gps_receiver's measured bounds: a 0.25 Hz carrier-aided DLL on
    # taps 0.25 chip either side of the prompt (about 0.4 m of code noise per
    # satellite at 45 dB-Hz).
    "gps_l1ca": signal(system="gps", letter="G", channel_system="gps_l1ca",
                       prns=tuple(range(1, 33)), max_prn=32,
                       tap_offsets_chips=(-0.25, 0.0, 0.25),
                       acquisition=(("signal", "gps_l1ca"),), code_period_s=1e-3),
    # The E1-B code with the taps the project's front end gives E1 (the BOC(1,1) peak is
    # narrow: an early-late spacing below 2/3 chip). The search's 4-ms coherent time
    # loses everything at half a 500 Hz bin (sinc(pi 250 Hz 4 ms) = 0): 125 Hz bins
    # lose at most 0.9 dB. PRNs 1 to 36 are the satellite ids the constellation uses;
    # the codes go to 50.
    "galileo_e1": signal(system="galileo", letter="E", channel_system="galileo_e1b",
                         prns=tuple(range(1, 37)), max_prn=50,
                         tap_offsets_chips=tuple(gnss_receiver_tap_offsets("galileo_e1")),
                         acquisition=(("signal", "galileo_e1"), ("doppler_step_hz", 125.0)),
                         code_period_s=4e-3),
}
DEFAULT_SIGNALS = ("gps_l1ca",)
_LETTERS = {s.system: s.letter for s in SIGNALS.values()}
_ID = re.compile(r"^([A-Z])(\d\d)$")


def satellite_id(system, prn):
    """The RINEX id of PRN prn of system ("gps", "galileo"): "G05", "E11"."""
    return f"{_LETTERS[system]}{prn:02d}"


def signals_of(signals):
    """The signal names, validated, in SIGNALS' order (GPS first)."""
    names = [signals] if isinstance(signals, str) else list(signals)
    for k, name in enumerate(names):
        if name not in SIGNALS:
            raise ValueError(f"signals[{k}]: {name!r} is not one of "
                             f"{', '.join(SIGNALS)}")
        if names.count(name) > 1:
            raise ValueError(f"signals: {name!r} is given twice")
    if not names:
        raise ValueError(f"signals: name one or more of {', '.join(SIGNALS)}")
    return tuple(s for s in SIGNALS if s in names)


def satellites_of(satellites, signals):
    """{signal name: [PRNs]} searched: every default PRN of each signal for None;
    else each entry a RINEX id ("G05", "E11") of a signal in signals, or a bare PRN
    when signals holds one signal."""
    if satellites is None:
        return {s: list(SIGNALS[s].prns) for s in signals}
    by_letter = {SIGNALS[s].letter: s for s in signals}
    chosen = {s: [] for s in signals}
    for k, satellite in enumerate(satellites):
        if isinstance(satellite, str):
            match = _ID.match(satellite)
            if not match or match.group(1) not in by_letter:
                raise ValueError(
                    f"satellites[{k}]: {satellite!r} is not the id of a satellite of "
                    f"{', '.join(signals)} ({', '.join(l + 'NN' for l in by_letter)})")
            name, prn = by_letter[match.group(1)], int(match.group(2))
        else:
            if len(signals) != 1:
                raise ValueError(f"satellites[{k}]: a bare PRN ({satellite!r}) names no "
                                 f"system with signals {', '.join(signals)}: give its id, "
                                 f"e.g. 'G05' or 'E11'")
            name, prn = signals[0], operator.index(satellite)
        if not 1 <= prn <= SIGNALS[name].max_prn:
            raise ValueError(f"satellites[{k}]: {name} PRNs are 1 to "
                             f"{SIGNALS[name].max_prn}, got {prn}")
        if prn in chosen[name]:
            raise ValueError(f"satellites[{k}]: {SIGNALS[name].satellite(prn)} is given "
                             "twice")
        chosen[name].append(prn)
    return chosen
