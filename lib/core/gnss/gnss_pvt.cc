/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gnss_pvt.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

char gnss_system_letter(gnss_system system)
{
    return system == gnss_system::galileo ? 'E' : 'G';
}

std::string gnss_satellite_id(gnss_system system, int prn)
{
    char text[8];
    std::snprintf(text, sizeof text, "%c%02d", gnss_system_letter(system), prn);
    return text;
}

namespace {

const double pi = 3.14159265358979323846;
const double c_light = gnss_speed_of_light_m_s;
const double nan = std::numeric_limits<double>::quiet_NaN();
const int max_parameters = 3 + gnss_system_count;

double dot(const gnss_vec3& a, const gnss_vec3& b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
gnss_vec3 sub(const gnss_vec3& a, const gnss_vec3& b)
{
    return { a[0] - b[0], a[1] - b[1], a[2] - b[2] };
}
bool finite3(const gnss_vec3& v)
{
    return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]);
}
//! The Earth's rotation rate vector crossed with r: the velocity of a point fixed on it.
gnss_vec3 earth_rotation_cross(const gnss_vec3& r)
{
    return { -wgs84_omega_e_rad_s * r[1], wgs84_omega_e_rad_s * r[0], 0.0 };
}

std::string
format(const char* fmt, double a, double b = 0.0, double c = 0.0, double d = 0.0)
{
    char text[256];
    std::snprintf(text, sizeof text, fmt, a, b, c, d);
    return text;
}

//! A satellite seen from the receiver at the receive time: its position and velocity
//! rotated from the Earth-fixed frame of the transmission time into that of the receive
//! time (the Earth turns by omega_e tau during the transit tau: the Sagnac effect).
struct transit_geometry {
    gnss_vec3 position;
    gnss_vec3 velocity;
    gnss_vec3 line_of_sight; //!< unit vector, receiver to satellite
    double range_m;
};

gnss_vec3 rotate_z(const gnss_vec3& v, double theta)
{
    const double c = std::cos(theta), s = std::sin(theta);
    return { c * v[0] + s * v[1], -s * v[0] + c * v[1], v[2] };
}

transit_geometry geometry(const gnss_pvt_observation& o, const gnss_vec3& receiver)
{
    transit_geometry g;
    double tau = std::sqrt(dot(sub(o.satellite_position_m, receiver),
                               sub(o.satellite_position_m, receiver))) /
                 c_light;
    // The light time is a contraction by |v|/c ~ 1e-5: four steps reach 1e-20 s.
    for (int i = 0; i < 4; ++i) {
        g.position = rotate_z(o.satellite_position_m, wgs84_omega_e_rad_s * tau);
        const gnss_vec3 d = sub(g.position, receiver);
        g.range_m = std::sqrt(dot(d, d));
        tau = g.range_m / c_light;
    }
    g.velocity = rotate_z(o.satellite_velocity_m_s, wgs84_omega_e_rad_s * tau);
    const gnss_vec3 d = sub(g.position, receiver);
    g.line_of_sight = { d[0] / g.range_m, d[1] / g.range_m, d[2] / g.range_m };
    return g;
}

//! In-place inverse of a symmetric positive definite p x p matrix (Gauss-Jordan with
//! partial pivoting); false when it is singular to working precision.
bool invert(std::vector<double>& a, int p)
{
    std::vector<double> inv(p * p, 0.0);
    for (int i = 0; i < p; ++i)
        inv[i * p + i] = 1.0;
    double scale = 0.0;
    for (int i = 0; i < p; ++i)
        scale = std::max(scale, std::fabs(a[i * p + i]));
    for (int col = 0; col < p; ++col) {
        int pivot = col;
        for (int r = col + 1; r < p; ++r)
            if (std::fabs(a[r * p + col]) > std::fabs(a[pivot * p + col]))
                pivot = r;
        if (!(std::fabs(a[pivot * p + col]) > 1e-13 * scale))
            return false;
        for (int k = 0; k < p; ++k) {
            std::swap(a[col * p + k], a[pivot * p + k]);
            std::swap(inv[col * p + k], inv[pivot * p + k]);
        }
        const double d = a[col * p + col];
        for (int k = 0; k < p; ++k) {
            a[col * p + k] /= d;
            inv[col * p + k] /= d;
        }
        for (int r = 0; r < p; ++r) {
            if (r == col)
                continue;
            const double f = a[r * p + col];
            for (int k = 0; k < p; ++k) {
                a[r * p + k] -= f * a[col * p + k];
                inv[r * p + k] -= f * inv[col * p + k];
            }
        }
    }
    a = inv;
    return true;
}

//! Regularised upper incomplete gamma Q(a, x): the chi-square survival function is
//! Q(dof / 2, T / 2) (series below a + 1, Lentz's continued fraction above).
double gamma_q(double a, double x)
{
    if (x <= 0.0)
        return 1.0;
    const double log_prefactor = -x + a * std::log(x) - std::lgamma(a);
    if (x < a + 1.0) {
        double term = 1.0 / a, sum = term;
        for (int n = 1; n < 1000 && std::fabs(term) > 1e-16 * std::fabs(sum); ++n) {
            term *= x / (a + n);
            sum += term;
        }
        return 1.0 - sum * std::exp(log_prefactor);
    }
    const double tiny = 1e-300;
    double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
    for (int i = 1; i < 1000; ++i) {
        const double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        d = std::fabs(d) < tiny ? tiny : d;
        c = b + an / c;
        c = std::fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        h *= d * c;
        if (std::fabs(d * c - 1.0) < 1e-16)
            break;
    }
    return std::exp(log_prefactor) * h;
}

//! Parameters: x, y, z, then one clock (in metres) per system present among \p used.
struct parameter_layout {
    int count = 3;
    int clock_column[gnss_system_count] = { -1, -1 };
};

parameter_layout layout_for(const std::vector<gnss_pvt_observation>& obs,
                            const std::vector<int>& used)
{
    parameter_layout l;
    for (int s = 0; s < gnss_system_count; ++s)
        for (int i : used)
            if (static_cast<int>(obs[i].system) == s && l.clock_column[s] < 0)
                l.clock_column[s] = l.count++;
    return l;
}

//! One weighted least-squares solution on a fixed set of satellites.
struct ls_solution {
    bool ok = false;
    std::string reason;
    parameter_layout layout;
    double state[max_parameters] = {};     //!< x, y, z (m), clocks (m)
    std::vector<double> cofactor;          //!< (H^T W H)^-1, p x p
    std::vector<std::vector<double>> rows; //!< H, per used satellite
    std::vector<double> residual, variance;
    std::vector<gnss_az_el> direction;
    int iterations = 0;
};

//! Model and design row of satellite \p i at the solution's state: returns the
//! residual, fills the row, the variance and the direction.
double linearise(const gnss_pvt_observation& o,
                 const gnss_pvt_config& config,
                 bool corrected,
                 ls_solution& s,
                 std::vector<double>& row,
                 double& variance,
                 gnss_az_el& direction)
{
    const gnss_vec3 rx = { s.state[0], s.state[1], s.state[2] };
    const transit_geometry g = geometry(o, rx);
    const int clock = s.layout.clock_column[static_cast<int>(o.system)];
    double model = g.range_m + s.state[clock] - c_light * o.satellite_clock_s;
    variance = 1.0;
    direction = { nan, nan };
    if (corrected) {
        const gnss_geodetic here = ecef_to_geodetic(rx);
        direction = azimuth_elevation(rx, here, g.position);
        if (config.ionosphere == gnss_ionosphere_model::klobuchar)
            model +=
                klobuchar_delay_m(config.klobuchar, here, direction, config.gps_time_s);
        if (config.troposphere == gnss_troposphere_model::saastamoinen)
            model += saastamoinen_delay_m(here, direction.elevation_rad);
        // Elevation weighting, sin(el) held above 0.01 so a zero mask cannot divide by 0.
        const double sin_el = std::max(std::sin(direction.elevation_rad), 0.01);
        variance = config.sigma_zenith_m * config.sigma_zenith_m / (sin_el * sin_el);
        if (std::isfinite(o.cn0_dbhz))
            variance *= std::pow(10.0, (config.cn0_reference_dbhz - o.cn0_dbhz) / 10.0);
    }
    row.assign(s.layout.count, 0.0);
    for (int k = 0; k < 3; ++k)
        row[k] = -g.line_of_sight[k];
    row[clock] = 1.0;
    return o.pseudorange_m - model;
}

//! Gauss-Newton from \p start until the update is below \p tolerance_m; uniform weights
//! and no atmosphere unless \p corrected (the first pass from the Earth's centre).
ls_solution solve_position(const std::vector<gnss_pvt_observation>& obs,
                           const std::vector<int>& used,
                           const gnss_pvt_config& config,
                           bool corrected,
                           const double* start,
                           double tolerance_m)
{
    ls_solution s;
    s.layout = layout_for(obs, used);
    const int p = s.layout.count;
    std::copy(start, start + 3, s.state);
    for (int sys = 0; sys < gnss_system_count; ++sys)
        if (s.layout.clock_column[sys] >= 0)
            s.state[s.layout.clock_column[sys]] = start[3 + sys];
    const size_t n = used.size();
    s.rows.resize(n);
    s.residual.resize(n);
    s.variance.resize(n);
    s.direction.resize(n);
    double step = std::numeric_limits<double>::infinity();
    for (s.iterations = 0; s.iterations <= config.max_iterations; ++s.iterations) {
        std::vector<double> normal(p * p, 0.0), rhs(p, 0.0);
        for (size_t k = 0; k < n; ++k) {
            s.residual[k] = linearise(obs[used[k]],
                                      config,
                                      corrected,
                                      s,
                                      s.rows[k],
                                      s.variance[k],
                                      s.direction[k]);
            for (int a = 0; a < p; ++a) {
                rhs[a] += s.rows[k][a] * s.residual[k] / s.variance[k];
                for (int b = 0; b < p; ++b)
                    normal[a * p + b] += s.rows[k][a] * s.rows[k][b] / s.variance[k];
            }
        }
        if (!invert(normal, p)) {
            s.reason = "the satellite geometry is singular";
            return s;
        }
        s.cofactor = normal;
        if (step < tolerance_m) {
            s.ok = true;
            return s;
        }
        step = 0.0;
        for (int a = 0; a < p; ++a) {
            double dx = 0.0;
            for (int b = 0; b < p; ++b)
                dx += normal[a * p + b] * rhs[b];
            s.state[a] += dx;
            step += dx * dx;
        }
        step = std::sqrt(step);
        if (!std::isfinite(step))
            break;
    }
    s.reason = format("no convergence in %.0f iterations", config.max_iterations);
    return s;
}

int systems_in(const std::vector<gnss_pvt_observation>& obs, const std::vector<int>& used)
{
    return layout_for(obs, used).count - 3;
}

std::string too_few(const std::vector<gnss_pvt_observation>& obs,
                    const std::vector<int>& used,
                    const std::string& after)
{
    return "no fix: " + std::to_string(used.size()) + " usable satellites " + after +
           ", " + std::to_string(3 + std::max(systems_in(obs, used), 1)) +
           " needed (3 + one clock per system)";
}

//! The solution's parameters by system (x, y, z, then the GPS and Galileo clocks in
//! metres), whatever columns the clocks had: the start of the next solution.
std::vector<double> by_system(const ls_solution& s)
{
    std::vector<double> v(s.state, s.state + 3);
    for (int sys = 0; sys < gnss_system_count; ++sys) {
        const int col = s.layout.clock_column[sys];
        v.push_back(col >= 0 ? s.state[col] : 0.0);
    }
    return v;
}

std::string refusal(const gnss_pvt_observation& o)
{
    if (o.system != gnss_system::gps && o.system != gnss_system::galileo)
        return "system is neither GPS nor Galileo";
    if (!std::isfinite(o.pseudorange_m))
        return "pseudorange_m is not finite";
    if (!finite3(o.satellite_position_m))
        return "satellite_position_m is not finite";
    if (!std::isfinite(o.satellite_clock_s))
        return "satellite_clock_s is not finite";
    if (std::isinf(o.cn0_dbhz))
        return "cn0_dbhz is infinite";
    return "";
}

std::string rate_refusal(const gnss_pvt_observation& o)
{
    if (std::isnan(o.pseudorange_rate_m_s))
        return "no pseudorange rate given";
    if (std::isinf(o.pseudorange_rate_m_s))
        return "pseudorange_rate_m_s is not finite";
    if (!finite3(o.satellite_velocity_m_s))
        return "satellite_velocity_m_s is not finite";
    if (!std::isfinite(o.satellite_clock_drift))
        return "satellite_clock_drift is not finite";
    return "";
}

void check_config(const gnss_pvt_config& c)
{
    auto require = [](bool ok, const char* what) {
        if (!ok)
            throw std::invalid_argument(std::string("gnss_pvt_config: ") + what);
    };
    require(std::isfinite(c.elevation_mask_rad) &&
                std::fabs(c.elevation_mask_rad) <= pi / 2,
            "elevation_mask_rad must be finite, within [-pi/2, pi/2]");
    require(std::isfinite(c.sigma_zenith_m) && c.sigma_zenith_m > 0.0,
            "sigma_zenith_m must be finite and positive");
    require(std::isfinite(c.cn0_reference_dbhz), "cn0_reference_dbhz must be finite");
    require(c.raim_false_alarm > 0.0 && c.raim_false_alarm < 1.0,
            "raim_false_alarm must be within (0, 1)");
    require(c.max_iterations >= 1, "max_iterations must be at least 1");
    require(std::isfinite(c.gps_time_s), "gps_time_s must be finite");
    require(finite3(c.initial_position_m), "initial_position_m must be finite");
    for (int k = 0; k < 4; ++k)
        require(std::isfinite(c.klobuchar.alpha[k]) && std::isfinite(c.klobuchar.beta[k]),
                "klobuchar coefficients must be finite");
}

//! Removes from \p used the satellites below the mask, seen from the coarse fix.
void apply_mask(const std::vector<gnss_pvt_observation>& obs,
                const gnss_pvt_config& config,
                const ls_solution& coarse,
                std::vector<int>& used,
                gnss_pvt_result& r)
{
    const gnss_vec3 rx = { coarse.state[0], coarse.state[1], coarse.state[2] };
    const gnss_geodetic here = ecef_to_geodetic(rx);
    std::vector<int> kept;
    for (int i : used) {
        const gnss_az_el ae = azimuth_elevation(rx, here, geometry(obs[i], rx).position);
        r.satellites[i].azimuth_rad = ae.azimuth_rad;
        r.satellites[i].elevation_rad = ae.elevation_rad;
        if (ae.elevation_rad >= config.elevation_mask_rad)
            kept.push_back(i);
        else
            r.satellites[i].reason = format("elevation %.2f deg below the mask %.2f deg",
                                            ae.elevation_rad * 180.0 / pi,
                                            config.elevation_mask_rad * 180.0 / pi);
    }
    used = kept;
}

//! Residual over its standard deviation, sqrt(sigma^2 - h Q h^T); NaN where the
//! satellite has no redundancy (its residual is forced to zero).
std::vector<double> normalised_residuals(const ls_solution& s)
{
    const int p = s.layout.count;
    std::vector<double> w(s.residual.size(), nan);
    for (size_t k = 0; k < s.residual.size(); ++k) {
        double hqh = 0.0;
        for (int a = 0; a < p; ++a)
            for (int b = 0; b < p; ++b)
                hqh += s.rows[k][a] * s.cofactor[a * p + b] * s.rows[k][b];
        const double cv = s.variance[k] - hqh;
        if (cv > 1e-9 * s.variance[k])
            w[k] = s.residual[k] / std::sqrt(cv);
    }
    return w;
}

//! Fine solutions with the atmosphere and weights; while the chi-square test of the
//! weighted residuals fails, excludes the largest normalised residual if redundancy
//! remains after it. False (reason set) when no trustworthy fix exists.
bool solve_with_integrity(const std::vector<gnss_pvt_observation>& obs,
                          const gnss_pvt_config& config,
                          std::vector<double> start,
                          std::vector<int>& used,
                          gnss_pvt_result& r,
                          ls_solution& s)
{
    for (;;) {
        s = solve_position(obs, used, config, true, start.data(), 1e-6);
        r.iterations += s.iterations;
        if (!s.ok) {
            r.reason = "no fix: " + s.reason;
            return false;
        }
        const std::vector<double> w = normalised_residuals(s);
        r.degrees_of_freedom = static_cast<int>(used.size()) - s.layout.count;
        r.chi_square = 0.0;
        for (size_t k = 0; k < used.size(); ++k) {
            r.chi_square += s.residual[k] * s.residual[k] / s.variance[k];
            r.satellites[used[k]].residual_m = s.residual[k];
            r.satellites[used[k]].normalised_residual = w[k];
        }
        r.raim_available = config.raim && r.degrees_of_freedom >= 1;
        if (!r.raim_available || gamma_q(r.degrees_of_freedom / 2.0,
                                         r.chi_square / 2.0) >= config.raim_false_alarm)
            return true;
        int worst = -1;
        for (size_t k = 0; k < used.size(); ++k)
            if (std::isfinite(w[k]) &&
                (worst < 0 || std::fabs(w[k]) > std::fabs(w[worst])))
                worst = static_cast<int>(k);
        std::vector<int> rest = used;
        if (worst >= 0)
            rest.erase(rest.begin() + worst);
        if (worst < 0 ||
            static_cast<int>(rest.size()) < layout_for(obs, rest).count + 1) {
            r.reason =
                format("no fix: the chi-square test failed (%.4g with %.0f degrees of "
                       "freedom, false-alarm probability %.3g) and no satellite can "
                       "be excluded with redundancy left",
                       r.chi_square,
                       r.degrees_of_freedom,
                       config.raim_false_alarm);
            return false;
        }
        r.satellites[used[worst]].reason = format(
            "excluded by RAIM: normalised residual %.4g; chi-square %.4g with %.0f "
            "degrees of freedom failed at false-alarm probability %.3g",
            w[worst],
            r.chi_square,
            r.degrees_of_freedom,
            config.raim_false_alarm);
        used = rest;
        start = by_system(s);
    }
}

//! Geometry-only DOPs: Q = (H^T H)^-1, its position block rotated to east-north-up.
gnss_dops dilution(const ls_solution& s, const gnss_geodetic& at)
{
    const int p = s.layout.count;
    std::vector<double> q(p * p, 0.0);
    for (const auto& row : s.rows)
        for (int a = 0; a < p; ++a)
            for (int b = 0; b < p; ++b)
                q[a * p + b] += row[a] * row[b];
    gnss_dops d = { nan, nan, nan, nan, nan };
    if (!invert(q, p))
        return d;
    // Variances of east, north, up: e_k^T Q_xyz e_k for the ENU axes e_k in ECEF.
    double enu_var[3];
    for (int k = 0; k < 3; ++k) {
        gnss_vec3 axis = { 0.0, 0.0, 0.0 };
        for (int j = 0; j < 3; ++j) {
            gnss_vec3 unit = { 0.0, 0.0, 0.0 };
            unit[j] = 1.0;
            axis[j] = ecef_to_enu(unit, at)[k];
        }
        enu_var[k] = 0.0;
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
                enu_var[k] += axis[a] * q[a * p + b] * axis[b];
    }
    const int gps = s.layout.clock_column[static_cast<int>(gnss_system::gps)];
    const int ref = gps >= 0 ? gps : s.layout.clock_column[1];
    d.hdop = std::sqrt(enu_var[0] + enu_var[1]);
    d.vdop = std::sqrt(enu_var[2]);
    d.pdop = std::sqrt(q[0] + q[p + 1] + q[2 * p + 2]);
    d.tdop = std::sqrt(q[ref * p + ref]);
    d.gdop = std::hypot(d.pdop, d.tdop);
    return d;
}

//! Velocity and clock drift from the pseudorange rates at the fix (linear: one
//! weighted solve). In the inertial frame momentarily aligned with the Earth-fixed one
//! at reception, d(range)/dt_rx = los . (v_sat (1 - d(range)/dt_rx / c) - v_rx), so
//! rate = (los . v_sat - los . v_rx) / (1 + los . v_sat / c) + c (drift_rx - drift_sat).
void solve_velocity(const std::vector<gnss_pvt_observation>& obs,
                    const ls_solution& s,
                    const std::vector<int>& used,
                    gnss_pvt_result& r)
{
    const gnss_vec3 rx = { s.state[0], s.state[1], s.state[2] };
    const gnss_vec3 rx_spin = earth_rotation_cross(rx);
    std::vector<std::array<double, 4>> rows;
    std::vector<double> y, variance;
    std::vector<int> index;
    for (size_t k = 0; k < used.size(); ++k) {
        const gnss_pvt_observation& o = obs[used[k]];
        r.satellites[used[k]].rate_reason = rate_refusal(o);
        if (!r.satellites[used[k]].rate_reason.empty())
            continue;
        const transit_geometry g = geometry(o, rx);
        const gnss_vec3 spin = earth_rotation_cross(g.position);
        const gnss_vec3 vs = { g.velocity[0] + spin[0],
                               g.velocity[1] + spin[1],
                               g.velocity[2] + spin[2] };
        const double den = 1.0 + dot(g.line_of_sight, vs) / c_light;
        const double known =
            (dot(g.line_of_sight, vs) - dot(g.line_of_sight, rx_spin)) / den -
            c_light * o.satellite_clock_drift;
        rows.push_back({ -g.line_of_sight[0] / den,
                         -g.line_of_sight[1] / den,
                         -g.line_of_sight[2] / den,
                         1.0 });
        y.push_back(o.pseudorange_rate_m_s - known);
        variance.push_back(s.variance[k]);
        index.push_back(used[k]);
    }
    if (rows.size() < 4) {
        r.velocity_reason = "no velocity: " + std::to_string(rows.size()) +
                            " used satellites with a usable pseudorange rate, 4 needed";
        return;
    }
    std::vector<double> normal(16, 0.0), rhs(4, 0.0);
    for (size_t k = 0; k < rows.size(); ++k)
        for (int a = 0; a < 4; ++a) {
            rhs[a] += rows[k][a] * y[k] / variance[k];
            for (int b = 0; b < 4; ++b)
                normal[a * 4 + b] += rows[k][a] * rows[k][b] / variance[k];
        }
    if (!invert(normal, 4)) {
        r.velocity_reason = "no velocity: the satellite geometry is singular";
        return;
    }
    double x[4] = { 0.0, 0.0, 0.0, 0.0 };
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            x[a] += normal[a * 4 + b] * rhs[b];
    for (size_t k = 0; k < rows.size(); ++k) {
        double model = 0.0;
        for (int a = 0; a < 4; ++a)
            model += rows[k][a] * x[a];
        r.satellites[index[k]].rate_used = true;
        r.satellites[index[k]].rate_residual_m_s = y[k] - model;
    }
    r.velocity_m_s = { x[0], x[1], x[2] };
    r.clock_drift = x[3] / c_light;
    r.velocity_valid = true;
}

gnss_pvt_result empty_result(const std::vector<gnss_pvt_observation>& obs)
{
    gnss_pvt_result r;
    r.position_m = { nan, nan, nan };
    r.geodetic = { nan, nan, nan };
    r.clock_bias_s[0] = r.clock_bias_s[1] = nan;
    r.inter_system_bias_s = nan;
    r.velocity_m_s = { nan, nan, nan };
    r.clock_drift = nan;
    r.dops = { nan, nan, nan, nan, nan };
    r.chi_square = nan;
    r.satellites.resize(obs.size());
    for (size_t i = 0; i < obs.size(); ++i) {
        gnss_pvt_satellite& sat = r.satellites[i];
        sat.system = obs[i].system;
        sat.prn = obs[i].prn;
        sat.azimuth_rad = sat.elevation_rad = nan;
        sat.residual_m = sat.normalised_residual = sat.rate_residual_m_s = nan;
    }
    return r;
}

void fill_fix(const ls_solution& s, const std::vector<int>& used, gnss_pvt_result& r)
{
    r.position_m = { s.state[0], s.state[1], s.state[2] };
    r.geodetic = ecef_to_geodetic(r.position_m);
    for (int sys = 0; sys < gnss_system_count; ++sys) {
        const int col = s.layout.clock_column[sys];
        r.clock_bias_s[sys] = col >= 0 ? s.state[col] / c_light : nan;
    }
    r.inter_system_bias_s = r.clock_bias_s[1] - r.clock_bias_s[0];
    for (size_t k = 0; k < used.size(); ++k) {
        gnss_pvt_satellite& sat = r.satellites[used[k]];
        sat.used = true;
        sat.azimuth_rad = s.direction[k].azimuth_rad;
        sat.elevation_rad = s.direction[k].elevation_rad;
    }
    r.satellites_used = static_cast<int>(used.size());
    r.dops = dilution(s, r.geodetic);
    r.valid = true;
}

//! Enough satellites for the parameters their systems bring (3 + one clock each).
bool enough(const std::vector<gnss_pvt_observation>& obs, const std::vector<int>& used)
{
    return static_cast<int>(used.size()) >= 3 + std::max(systems_in(obs, used), 1);
}

} // namespace

gnss_pvt_result gnss_solve_pvt(const std::vector<gnss_pvt_observation>& obs,
                               const gnss_pvt_config& config)
{
    check_config(config);
    gnss_pvt_result r = empty_result(obs);
    std::vector<int> used;
    for (size_t i = 0; i < obs.size(); ++i) {
        r.satellites[i].reason = refusal(obs[i]);
        if (r.satellites[i].reason.empty())
            used.push_back(static_cast<int>(i));
    }
    if (!enough(obs, used)) {
        r.reason = too_few(obs, used, "after refusing non-finite inputs");
        return r;
    }
    // A coarse fix from the given start without atmosphere or weights: it places the
    // receiver for the elevation mask, the weights and the atmosphere.
    std::vector<double> start(3 + gnss_system_count, 0.0);
    std::copy(config.initial_position_m.begin(),
              config.initial_position_m.end(),
              start.begin());
    const ls_solution coarse =
        solve_position(obs, used, config, false, start.data(), 1.0);
    r.iterations = coarse.iterations;
    if (!coarse.ok) {
        r.reason = "no fix: " + coarse.reason;
        return r;
    }
    apply_mask(obs, config, coarse, used, r);
    if (!enough(obs, used)) {
        r.reason = too_few(obs, used, "above the elevation mask");
        return r;
    }
    ls_solution fine;
    if (!solve_with_integrity(obs, config, by_system(coarse), used, r, fine))
        return r;
    fill_fix(fine, used, r);
    solve_velocity(obs, fine, used, r);
    return r;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
