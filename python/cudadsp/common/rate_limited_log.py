#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A log line that may repeat for every item, at most once per interval: the Python
side of lib/blocks/common/rate_limited_log.h, with the same rule and wording.

The first line is logged; later ones within ``interval_s`` of the last logged line are
counted, not logged. The next line logged after the interval says how many were
suppressed since the previous one, and report() (a block's stop()) logs the count
still pending, so that every event is either in the log or counted there.
"""

import time

#: Default interval between two lines of one kind, seconds.
DEFAULT_INTERVAL_S = 10.0


class rate_limited_log:
    """``log`` is a function of one string (a gr.logger's warn or error); ``topic``
    names the lines in report()'s count ("rejected radials")."""

    def __init__(self, log, topic, interval_s=DEFAULT_INTERVAL_S, clock=time.monotonic):
        self._log = log
        self._topic = topic
        self._interval_s = float(interval_s)
        self._clock = clock
        self._last_s = None
        self._pending = 0
        #: Lines suppressed since the start (reported or not).
        self.suppressed = 0

    def __call__(self, message):
        """Logs ``message`` unless a line was logged less than the interval ago;
        returns whether it was logged."""
        now = self._clock()
        if self._last_s is not None and now - self._last_s < self._interval_s:
            self._pending += 1
            self.suppressed += 1
            return False
        if self._pending:
            message += " (%d more like this suppressed in the last %.0f s)" % (
                self._pending, now - self._last_s)
        self._pending = 0
        self._last_s = now
        self._log(message)
        return True

    def report(self):
        """Logs the count of lines suppressed since the last one logged, if any."""
        if self._pending:
            self._log("%d more lines about %s were suppressed" % (self._pending, self._topic))
            self._pending = 0
