#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
Output files that appear whole or not at all: what the command-line tools
(cudadsp_offsets, cudadsp_unwrap, cudadsp_stack) write through.

An output_set is the files one run writes under one prefix in one folder, the last one
written its marker (the .json report, or the header that makes a raster readable). Each
file is written under a temporary name in that folder and flushed to the disk; when the
set is complete, commit() removes the earlier run's marker and the files of the prefix
that this run does not write, then renames every file to its name, the marker last, with
SIGINT and SIGTERM held back so that neither stops it half-way. Until then the folder
shows the earlier run's files as they were: a run that fails (an exception, a full disk)
or is interrupted removes its temporaries and changes nothing else, so an input that is
also one of the outputs (a gross-offset raster of the previous run) is never lost.

Temporaries are named "." + name + ".cudadsp-<token>-<pid>@<host>.part"; those of a
process that was killed outright (SIGKILL, a crash) are removed by the next set of the
same names made on that host, once that process is gone.

Files are created with mode 0666 less the umask, as any program's: other accounts (Dask
workers running as another user) read them.

interrupt_on_signals() turns SIGINT and SIGTERM into the exception interrupted, so that a
tool removes its temporaries, writes its summary and exits 128 + the signal's number.
'''

import contextlib
import errno
import json
import math
import os
import re
import secrets
import signal
import socket
import threading

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_TEMPORARY = re.compile(r'^\.(?P<name>.+)\.cudadsp-[0-9a-f]{8}-(?P<pid>\d+)@(?P<host>[^/]*)'
                        r'\.part$')


class output_error(OSError):
    '''A file that could not be written: the message names it and the system's reason
    (its errno name too, ENOSPC for a full disk).'''

    def __init__(self, path, error):
        code = errno.errorcode.get(error.errno, '')
        reason = error.strerror or str(error)
        super().__init__(error.errno, f'{path}: cannot be written: {reason}'
                                      + (f' ({code})' if code else ''))

    def __str__(self):
        return self.strerror


class interrupted(BaseException):
    '''SIGINT or SIGTERM arrived. A BaseException, as KeyboardInterrupt: the handlers of
    a pair's own failures (Exception) let it through.'''

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_status(self):
        return 128 + self.signum

    def __str__(self):
        return f'interrupted by {signal.Signals(self.signum).name}'


# Signals that arrived while the main thread committed a set (interrupt_on_signals()
# raises them once the commit is done).
_held = {'holding': False, 'signals': []}


@contextlib.contextmanager
def interrupt_on_signals():
    '''SIGINT and SIGTERM raise interrupted in the main thread while the block runs;
    during a commit they wait until it is done.'''
    def handler(signum, frame):
        if _held['holding']:
            _held['signals'].append(signum)
            return
        raise interrupted(signum)

    previous = {s: signal.signal(s, handler) for s in _SIGNALS}
    try:
        yield
    finally:
        for s, action in previous.items():
            signal.signal(s, action)


@contextlib.contextmanager
def _signals_held():
    # Python runs signal handlers in the main thread only, whichever thread the kernel
    # delivered the signal to: a flag there holds them, where a thread's signal mask
    # would not (the Dask driver has other threads).
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _held['holding'] = True
    try:
        yield
    finally:
        _held['holding'] = False
    if _held['signals']:
        signum = _held['signals'][0]
        _held['signals'].clear()
        raise interrupted(signum)


def finite_json(value):
    '''\\p value with every float that is not finite (NaN, inf) made None: JSON has no
    NaN, and strict parsers refuse Python's.'''
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    return value


def _fsync(path, directory=False):
    handle = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _process_gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class output_set:
    '''
    The files of one prefix in \\p folder: \\p names are all the names such a set may
    hold (this run's and an earlier run's, every format), of which this run writes some
    with write(), write_json() or temporary(), the marker last. Used as a context
    manager: committed when the block ends normally, discarded when it raises.
    '''

    def __init__(self, folder, names):
        self.folder = os.path.abspath(folder)
        self.names = list(names)
        self._written = {}   # name: temporary path, in the order written
        self._host = socket.gethostname()
        self._remove_dead_temporaries()

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        try:
            if kind is None:
                self.commit()
        finally:
            self.discard()
        return False

    def final_path(self, name):
        return os.path.join(self.folder, name)

    def temporary(self, name):
        '''A new temporary path for the member \\p name, for a writer that creates the
        file itself (GDAL); it is flushed to the disk at commit.'''
        if name not in self.names:
            raise ValueError(f'{name}: not a member of this output set ({self.names})')
        if name in self._written:
            raise ValueError(f'{name}: written twice in one output set')
        try:
            os.makedirs(self.folder, exist_ok=True)
        except OSError as error:
            raise output_error(self.folder, error) from None
        path = os.path.join(self.folder, f'.{name}.cudadsp-{secrets.token_hex(4)}-'
                                         f'{os.getpid()}@{self._host}.part')
        self._written[name] = path
        return path

    def write(self, name, fill):
        '''The member \\p name: fill(binary file) writes its contents.'''
        path = self.temporary(name)
        try:
            # os.open's mode is masked by the umask; tempfile.mkstemp's 0600 is not.
            with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666),
                           'wb') as f:
                fill(f)
                f.flush()
                os.fsync(f.fileno())
        except OSError as error:
            raise output_error(self.final_path(name), error) from None

    def write_json(self, name, document):
        '''The member \\p name: \\p document as JSON, null for NaN and infinities.'''
        text = json.dumps(finite_json(document), indent=2, allow_nan=False)
        self.write(name, lambda f: f.write(text.encode()))

    def commit(self):
        '''Put the set in place: the earlier marker and the names this run does not
        write go, every file is renamed to its name, the marker (the last written)
        last. SIGINT and SIGTERM wait until it is done.'''
        if not self._written:
            raise ValueError(f'{self.folder}: an output set with no file')
        order = list(self._written)
        marker = order[-1]
        with _signals_held():
            for name in order:
                try:
                    _fsync(self._written[name])
                except OSError as error:
                    raise output_error(self.final_path(name), error) from None
            for name in [marker] + [n for n in self.names if n not in self._written]:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.final_path(name))
            for name in order:
                if name == marker:
                    _fsync(self.folder, directory=True)
                os.replace(self._written[name], self.final_path(name))
            self._written.clear()
            _fsync(self.folder, directory=True)

    def discard(self):
        '''Remove this run's temporaries; the files under final names stay as they were.'''
        for path in self._written.values():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        self._written.clear()

    def _remove_dead_temporaries(self):
        try:
            entries = os.listdir(self.folder)
        except FileNotFoundError:
            return
        for entry in entries:
            match = _TEMPORARY.match(entry)
            if (match and match['name'] in self.names and match['host'] == self._host
                    and _process_gone(int(match['pid']))):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(self.folder, entry))
