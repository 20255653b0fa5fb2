#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Dual-polarisation weather-echo simulator: I/Q pulses for polarimetric_products_cf.

The signal model (docs of cudadsp.polarimetric_products_cf, "signal model"): at one
range gate of one radial the H and V pulse series h[n], v[n] (n = 0..M-1, one pulse
every T seconds) are zero-mean circular complex Gaussian with a Gaussian Doppler
spectrum of mean velocity v and width sigma_v, whose normalised autocorrelation is

    rho(mT) = exp(-8 (pi sigma_v m T / lambda)^2) * exp(-j 4 pi v m T / lambda)

and

    E[h[n] conj(h[n-m])] = S_h rho(mT)
    E[v[n] conj(v[n-m])] = S_v rho(mT),                  S_h / S_v = 10^(ZDR/10)
    E[h[n] conj(v[n-m])] = rhohv sqrt(S_h S_v) e^{j PhiDP} rho(mT)

plus independent white noise of power noise_h on H and noise_v on V. Velocity is
positive away from the radar, so the phase of a receding echo decreases from pulse to
pulse. Different gates and different radials are independent.

Alternating transmission (H, V, H, V, ... the first pulse of every radial H): the
co-polar series is h at even n and v at odd n of this same process, with noise_h on
even and noise_v on odd pulses. The cross-polar series (the other receiver) carries a
depolarised echo of power S_h 10^(LDR/10) on every pulse (reciprocity: S_hv = S_vh),
with the same Doppler spectrum but uncorrelated with the co-polar echo (reflection
symmetry of rain), plus the other receiver's noise: noise_v on H pulses, noise_h on V
pulses.

Generation is exact, not approximate: the signal covariance of one cell factors as
(2x2 polarisation covariance) x (M x M temporal covariance), and the temporal one as
D G D^H with D = diag(exp(-j 4 pi v n T / lambda)) and G[n, m] = exp(-8 (pi sigma_v
(n-m) T / lambda)^2) real. The samples are F w with F F^T = G from the eigendecomposition
of G (eigenvalues below zero, rounding noise of a numerically singular G when the
spectrum is narrow, set to zero), so their covariance equals the model to float64
rounding (entries within about M * 1e-16 of max G = 1), then rounded once to complex64.
model_covariance() builds the same covariance directly from the formulas above.

Units: powers (s_h, noise_h, noise_v) in units of |x|^2 of the generated samples;
velocities and widths in m/s; angles in degrees; wavelength in m; PRT in s.
"""

import numpy as np

MODES = ("simultaneous", "alternating")


def nyquist_velocity(wavelength_m, prt_s, mode="simultaneous"):
    """Largest unambiguous radial velocity, m/s.

    wavelength_m: radar wavelength, m. prt_s: pulse repetition time T, s.
    mode: "simultaneous" (lambda / (4 T): the lag-T autocorrelation carries the Doppler
    phase) or "alternating" (lambda / (8 T): the velocity comes from correlations over
    2T between H and V pulses, Zahrai and Zrnic 1993).
    """
    _check_mode(mode)
    _check_positive(wavelength_m=wavelength_m, prt_s=prt_s)
    return wavelength_m / ((4.0 if mode == "simultaneous" else 8.0) * prt_s)


def normalized_autocorrelation(lag_pulses, velocity_ms, width_ms, wavelength_m, prt_s):
    """rho(mT) of the model: exp(-8 (pi w m T / lambda)^2) exp(-j 4 pi v m T / lambda).

    lag_pulses: the lag m in pulses (integer, any sign; array). velocity_ms: mean radial
    velocity v, m/s, positive away. width_ms: spectrum width w (standard deviation of
    the Doppler spectrum), m/s. wavelength_m: lambda, m. prt_s: T, s. Arrays broadcast.
    Returns complex128.
    """
    m = np.asarray(lag_pulses, dtype=np.float64)
    x = np.pi * np.asarray(width_ms, dtype=np.float64) * m * prt_s / wavelength_m
    phase = 4.0 * np.pi * np.asarray(velocity_ms, dtype=np.float64) * m * prt_s / wavelength_m
    return np.exp(-8.0 * x * x) * np.exp(-1j * phase)


def scan_spectrum_width(antenna_rate_deg_s, beamwidth_deg, wavelength_m):
    """Spectrum width that a scanning antenna adds to a fixed target, m/s.

    sigma = alpha lambda sqrt(ln 2) / (2 pi theta1) (Doviak and Zrnic, "Doppler Radar
    and Weather Observations", 2nd ed. 1993: broadening by antenna rotation; the
    width GMAP notches, Siggia and Passarelli 2004) with alpha the antenna rate and
    theta1 the one-way half-power beamwidth, both in degrees (their ratio is 1/s), and
    lambda in m: the echo of ground clutter, at zero velocity, is amplitude-modulated
    by the beam sweeping across it. It adds in quadrature to the target's own width.
    """
    _check_positive(beamwidth_deg=beamwidth_deg, wavelength_m=wavelength_m)
    if not (np.isfinite(antenna_rate_deg_s) and antenna_rate_deg_s >= 0):
        raise ValueError(f"antenna_rate_deg_s must be finite and >= 0, got {antenna_rate_deg_s!r}")
    return antenna_rate_deg_s * wavelength_m * np.sqrt(np.log(2.0)) / (2.0 * np.pi * beamwidth_deg)


def power_from_reflectivity(zh_dbz, range_m, zcal_db=0.0):
    """The signal power S_h that polarimetric_products_cf reports as reflectivity zh_dbz.

    Inverse of Zh = 10 log10(S_h) + zcal_db + 20 log10(r_km): zh_dbz in dBZ, range_m the
    gate range in metres (> 0), zcal_db the block's radar constant in dB. Arrays broadcast.
    """
    r_km = np.asarray(range_m, dtype=np.float64) / 1000.0
    return 10.0 ** ((np.asarray(zh_dbz, dtype=np.float64) - zcal_db - 20.0 * np.log10(r_km)) / 10.0)


def reflectivity_from_power(s_h, range_m, zcal_db=0.0):
    """Zh in dBZ of signal power s_h at range_m metres: 10 log10(S_h) + zcal_db + 20 log10(r_km)."""
    r_km = np.asarray(range_m, dtype=np.float64) / 1000.0
    return 10.0 * np.log10(np.asarray(s_h, dtype=np.float64)) + zcal_db + 20.0 * np.log10(r_km)


def model_covariance(
    pulses_per_radial,
    *,
    s_h,
    zdr_db=0.0,
    velocity_ms=0.0,
    width_ms=2.0,
    phidp_deg=0.0,
    rhohv=1.0,
    noise_h=0.0,
    noise_v=0.0,
    wavelength_m=0.0531,
    prt_s=1e-3,
    mode="simultaneous",
    ldr_db=-30.0,
):
    """The exact covariance E[z z^H] of one radial at one gate, from the model formulas.

    Scalar parameters, meaning and units as in simulate_pulses(). Returns a complex128
    (2M, 2M) matrix for M = pulses_per_radial:
      simultaneous: z = [h[0], ..., h[M-1], v[0], ..., v[M-1]];
      alternating: z = [co[0], ..., co[M-1], cross[0], ..., cross[M-1]] (co-polar then
      cross-polar input; the two blocks are uncorrelated).
    """
    p = _scalar_parameters(
        pulses_per_radial, s_h, zdr_db, velocity_ms, width_ms, phidp_deg, rhohv,
        noise_h, noise_v, wavelength_m, prt_s, mode, ldr_db,
    )
    m = p["pulses"]
    n = np.arange(m)
    rho = normalized_autocorrelation(
        n[:, None] - n[None, :], p["velocity_ms"], p["width_ms"], wavelength_m, prt_s)
    s_v = p["s_h"] * 10.0 ** (-p["zdr_db"] / 10.0)
    c_hv = p["rhohv"] * np.sqrt(p["s_h"] * s_v) * np.exp(1j * np.deg2rad(p["phidp_deg"]))
    # Polarisation covariance [[E h h*, E h v*], [E v h*, E v v*]] and noise per receiver.
    pol = np.array([[p["s_h"], c_hv], [np.conj(c_hv), s_v]])
    noise = np.array([p["noise_h"], p["noise_v"]])
    cov = np.zeros((2 * m, 2 * m), dtype=np.complex128)
    if mode == "simultaneous":
        for a in range(2):
            for b in range(2):
                cov[a * m:(a + 1) * m, b * m:(b + 1) * m] = pol[a, b] * rho
            cov[a * m:(a + 1) * m, a * m:(a + 1) * m] += noise[a] * np.eye(m)
    else:
        receiver = n % 2  # co-polar: H receiver (0) on even pulses, V (1) on odd ones
        cov[:m, :m] = pol[receiver[:, None], receiver[None, :]] * rho + np.diag(noise[receiver])
        s_x = p["s_h"] * 10.0 ** (p["ldr_db"] / 10.0)
        cov[m:, m:] = s_x * rho + np.diag(noise[1 - receiver])
    return cov


def simulate_pulses(
    rng,
    nradials,
    pulses_per_radial,
    *,
    s_h,
    zdr_db=0.0,
    velocity_ms=0.0,
    width_ms=2.0,
    phidp_deg=0.0,
    rhohv=1.0,
    noise_h=0.0,
    noise_v=0.0,
    wavelength_m=0.0531,
    prt_s=1e-3,
    mode="simultaneous",
    ldr_db=-30.0,
    ngates=None,
):
    """Pulse series of nradials radials at every gate, following the model exactly.

    rng: a numpy.random.Generator (the only source of randomness).
    nradials: radials to generate (>= 0). pulses_per_radial: M (>= 2; alternating:
        even, >= 4).
    Per-cell parameters, each a scalar or an array broadcastable to (nradials, ngates)
    (a 1-D array is one value per gate; shape (nradials, 1) one value per radial):
      s_h: H signal power S_h (>= 0), units of |x|^2 of the output samples; use
          power_from_reflectivity() to start from a reflectivity in dBZ.
      zdr_db: differential reflectivity 10 log10(S_h / S_v), dB.
      velocity_ms: mean radial velocity, m/s, positive away from the radar; any value
          (beyond the Nyquist velocity it aliases, as a real radar's would).
      width_ms: spectrum width (standard deviation of the Gaussian Doppler spectrum),
          m/s, >= 0.
      phidp_deg: differential phase PhiDP, degrees: the phase of E[h conj(v)].
      rhohv: co-polar correlation coefficient, in [0, 1].
      noise_h, noise_v: white noise power of the H and V receivers (>= 0), units of |x|^2.
      ldr_db: alternating mode: linear depolarisation ratio, dB: the cross-polar echo
          has power S_h 10^(ldr_db/10). Ignored in simultaneous mode.
    wavelength_m: lambda, m (> 0). prt_s: pulse repetition time T, s (> 0).
    mode: "simultaneous" or "alternating" (see the module docstring).
    ngates: number of gates; None: taken from the parameters' broadcast shape.

    Returns (port0, port1), each complex64 of shape (nradials * M, ngates): pulse-major,
    one row per pulse (the range profile, as polarimetric_products_cf takes one item),
    radial r being rows r*M .. r*M+M-1. simultaneous: (h, v); alternating: (co-polar,
    cross-polar), the first pulse of every radial an H pulse.
    """
    _check_mode(mode)
    _check_positive(wavelength_m=wavelength_m, prt_s=prt_s)
    m = _check_pulses(pulses_per_radial, mode)
    if int(nradials) != nradials or nradials < 0:
        raise ValueError(f"nradials must be an integer >= 0, got {nradials!r}")
    nradials = int(nradials)
    named = {
        "s_h": s_h, "zdr_db": zdr_db, "velocity_ms": velocity_ms, "width_ms": width_ms,
        "phidp_deg": phidp_deg, "rhohv": rhohv, "noise_h": noise_h, "noise_v": noise_v,
        "ldr_db": ldr_db,
    }
    arrays = {k: np.asarray(val, dtype=np.float64) for k, val in named.items()}
    shape = np.broadcast_shapes((nradials, 1 if ngates is None else int(ngates)),
                                *(a.shape for a in arrays.values()))
    if len(shape) != 2 or shape[0] != nradials or (ngates is not None and shape[1] != ngates):
        raise ValueError(f"parameters of shapes {[a.shape for a in arrays.values()]} do not "
                         f"broadcast to (nradials, ngates) = ({nradials}, {ngates})")
    if shape[1] < 1:
        raise ValueError("ngates must be >= 1")
    cells = {k: np.broadcast_to(a, shape).ravel() for k, a in arrays.items()}
    _check_cell_values(cells)

    ncells = shape[0] * shape[1]
    # Three independent unit-power, time-correlated series per cell: a and b mix into h
    # and v, d is the depolarised (cross-polar) echo of alternating mode.
    ncolumns = 2 if mode == "simultaneous" else 3
    correlated = np.empty((ncells, m, ncolumns), dtype=np.complex128)
    # Cells grouped by width share the factor of G; chunks bound the memory of the
    # gathered factors (about 32 MB).
    order = np.argsort(cells["width_ms"], kind="stable")
    chunk = max(1, (1 << 22) // (m * m))
    for start in range(0, ncells, chunk):
        idx = order[start:start + chunk]
        widths, which = np.unique(cells["width_ms"][idx], return_inverse=True)
        factors = _temporal_factor(m, widths, wavelength_m, prt_s)[which]
        white = _complex_normal(rng, (idx.size, m, ncolumns))
        correlated[idx] = np.einsum("knj,kjc->knc", factors, white)

    n = np.arange(m)
    doppler = np.exp(-4j * np.pi * np.outer(cells["velocity_ms"], n) * prt_s / wavelength_m)
    a = correlated[:, :, 0] * doppler
    b = correlated[:, :, 1] * doppler
    s_hc = cells["s_h"][:, None]
    s_vc = s_hc * 10.0 ** (-cells["zdr_db"][:, None] / 10.0)
    rho = cells["rhohv"][:, None]
    phi = np.deg2rad(cells["phidp_deg"])[:, None]
    # E[h v*] = sqrt(S_h S_v) rho e^{j PhiDP}: v takes a with phase -PhiDP, and the rest of
    # its power from the independent b.
    h = np.sqrt(s_hc) * a
    v = np.sqrt(s_vc) * (rho * np.exp(-1j * phi) * a + np.sqrt(1.0 - rho * rho) * b)
    noise_h_c = np.sqrt(cells["noise_h"])[:, None]
    noise_v_c = np.sqrt(cells["noise_v"])[:, None]
    if mode == "simultaneous":
        port0 = h + noise_h_c * _complex_normal(rng, h.shape)
        port1 = v + noise_v_c * _complex_normal(rng, v.shape)
    else:
        h_pulse = (n % 2 == 0)[None, :]
        co = np.where(h_pulse, h, v)
        co_noise = np.where(h_pulse, noise_h_c, noise_v_c)
        port0 = co + co_noise * _complex_normal(rng, co.shape)
        s_x = s_hc * 10.0 ** (cells["ldr_db"][:, None] / 10.0)
        cross = np.sqrt(s_x) * correlated[:, :, 2] * doppler
        cross_noise = np.where(h_pulse, noise_v_c, noise_h_c)
        port1 = cross + cross_noise * _complex_normal(rng, cross.shape)
    return _pulse_major(port0, shape, m), _pulse_major(port1, shape, m)


def _pulse_major(series, shape, m):
    """Cells (radial-major, gate-minor) x pulses -> rows of pulses, one column per gate."""
    nradials, ngates = shape
    out = series.reshape(nradials, ngates, m).transpose(0, 2, 1).reshape(nradials * m, ngates)
    return np.ascontiguousarray(out, dtype=np.complex64)


def _complex_normal(rng, shape):
    """Circular complex Gaussian of unit power."""
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * np.sqrt(0.5)


def _temporal_factor(m, widths, wavelength_m, prt_s):
    """F with F F^T = G, G[n, k] = exp(-8 (pi w (n-k) T / lambda)^2), per width: (len, m, m).

    An eigendecomposition, not a Cholesky factorisation: for narrow spectra G is
    singular to float64 precision (its eigenvalues are samples of the Doppler spectrum,
    down to exp(-(lambda / (8 w T))^2 / 2) of the largest) and Cholesky would fail on the
    rounding noise. Negative eigenvalues, rounding noise of size ~1e-16, are set to zero.
    """
    n = np.arange(m)
    lag = (n[:, None] - n[None, :]).astype(np.float64)
    x = np.pi * widths[:, None, None] * lag[None] * prt_s / wavelength_m
    gram = np.exp(-8.0 * x * x)
    eigenvalues, vectors = np.linalg.eigh(gram)
    return vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))[:, None, :]


def _check_mode(mode):
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")


def _check_positive(**values):
    for name, value in values.items():
        if not value > 0 or not np.isfinite(value):
            raise ValueError(f"{name} must be finite and > 0, got {value!r}")


def _check_pulses(pulses_per_radial, mode):
    m = int(pulses_per_radial)
    if m != pulses_per_radial or m < 2:
        raise ValueError(f"pulses_per_radial must be an integer >= 2, got {pulses_per_radial!r}")
    if mode == "alternating" and (m < 4 or m % 2):
        raise ValueError(f"pulses_per_radial must be even and >= 4 in alternating mode, got {m}")
    return m


def _check_cell_values(cells):
    for name in ("s_h", "width_ms", "noise_h", "noise_v"):
        if not np.all(cells[name] >= 0) or not np.all(np.isfinite(cells[name])):
            raise ValueError(f"{name} must be finite and >= 0")
    if not np.all((cells["rhohv"] >= 0) & (cells["rhohv"] <= 1)):
        raise ValueError("rhohv must be in [0, 1]")
    for name in ("zdr_db", "velocity_ms", "phidp_deg", "ldr_db"):
        if not np.all(np.isfinite(cells[name])):
            raise ValueError(f"{name} must be finite")


def _scalar_parameters(pulses_per_radial, s_h, zdr_db, velocity_ms, width_ms, phidp_deg,
                       rhohv, noise_h, noise_v, wavelength_m, prt_s, mode, ldr_db):
    """Validated scalar parameters of model_covariance(), as a dict of floats."""
    _check_mode(mode)
    _check_positive(wavelength_m=wavelength_m, prt_s=prt_s)
    cells = {
        "s_h": s_h, "zdr_db": zdr_db, "velocity_ms": velocity_ms, "width_ms": width_ms,
        "phidp_deg": phidp_deg, "rhohv": rhohv, "noise_h": noise_h, "noise_v": noise_v,
        "ldr_db": ldr_db,
    }
    for name, value in cells.items():
        if np.ndim(value) != 0:
            raise ValueError(f"{name} must be a scalar in model_covariance()")
    cells = {k: np.float64(val) for k, val in cells.items()}
    _check_cell_values(cells)
    cells["pulses"] = _check_pulses(pulses_per_radial, mode)
    return cells
