/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_H
#define INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_H

#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/device.h>
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! The signal an acquisition engine searches.
enum class acquisition_signal {
    gps_l1ca,    //!< GPS L1 C/A: PRN 1..32, 1023 chips, 1 ms
    galileo_e1,  //!< Galileo E1 OS B/C, BOC(1,1): PRN 1..50, 4092 chips, 4 ms
    glonass_l1of //!< GLONASS L1OF: frequency number -7..6, 511 chips, 1 ms
};

//! "gps_l1ca", "galileo_e1" or "glonass_l1of"; std::invalid_argument naming
//! \p parameter_name else.
CUDADSP_CORE_API acquisition_signal parse_acquisition_signal(
    const std::string& name, const std::string& parameter_name = "signal");
CUDADSP_CORE_API std::string to_string(acquisition_signal signal);

//! GLONASS L1 FDMA: carrier of frequency number k = 1602 MHz + k 562.5 kHz.
constexpr double glonass_l1_base_frequency_hz = 1602e6;
constexpr double glonass_l1_channel_spacing_hz = 562.5e3;
//! Galileo E1-C secondary code CS25 (25 chips, one per 4 ms primary period).
constexpr int galileo_e1c_secondary_length = 25;

struct CUDADSP_CORE_API pcps_acquisition_config {
    acquisition_signal signal = acquisition_signal::gps_l1ca;
    //! > 0, finite, at least twice the chip rate (GPS and Galileo 2.046 MHz, GLONASS
    //! 1.022 MHz) and at most 100 MHz.
    double sample_rate_hz = 4e6;
    /*! Where the signal's carrier lies in the stream (for GLONASS: the carrier of
     *  frequency number 0, so number k lies at IF + k 562.5 kHz); |IF| < fs / 2. */
    double intermediate_frequency_hz = 0.0;
    //! Centre of the Doppler window (a front end's known clock offset), finite.
    double doppler_center_hz = 0.0;
    //! Doppler window: centre +- doppler_max_hz, >= 0; bins every doppler_step_hz.
    double doppler_max_hz = 10e3;
    //! > 0; the bins are centre + i step, |i step| <= doppler_max_hz (at most 4001).
    double doppler_step_hz = 500.0;
    /*!
     * Code periods per coherent integration: the coherent time is always a whole number
     * of code periods. GPS 1..20 (a data bit edge inside the interval costs
     * correlation; 1 is usual), GLONASS 1..10 (the 10 ms meander), Galileo E1: 1 (4
     * ms, B and C both) or, with galileo_pilot, 1..25 (the pilot E1-C with the 25
     * hypotheses of its secondary code phase when > 1).
     */
    std::size_t coherent_periods = 1;
    //! K: coherent integrations summed in power per search, 1..1000.
    std::size_t noncoherent_dwells = 10;
    /*! Probability that noise alone crosses the threshold somewhere in one satellite's
     *  grid, in (0, 1) (the Gamma law of gnss_acquisition.py: see the class). */
    double false_alarm = 1e-3;
    /*! Galileo E1: search the pilot E1-C alone (needed for coherent_periods > 1)
     *  instead of E1-B and E1-C together (the better of B + C and B - C each period,
     *  3 dB more signal but twice the products). */
    bool galileo_pilot = false;
    //! "auto", "cpu", "cuda" or "cuda:N".
    std::string device = "auto";
    /*! CUDA backend: inverse transforms per cuFFT batch; 0: chosen by the engine
     *  (workspace of at most 1 GiB and a quarter of the free device memory). */
    std::size_t batch_transforms = 0;

    //! Throws std::invalid_argument naming the offending field and the rule it broke.
    void validate() const;

    //! Primary code: chips per period, chips per second, period in seconds.
    int code_length_chips() const;
    double chip_rate_cps() const;
    double code_period_s() const;
    //! N = round(sample_rate_hz * coherent_periods * code_period_s()).
    std::size_t coherent_samples() const;
    //! K N: the samples one search() takes.
    std::size_t search_samples() const { return noncoherent_dwells * coherent_samples(); }
    //! Doppler bins: 2 M + 1 with M = floor(doppler_max_hz / doppler_step_hz).
    std::size_t doppler_bins() const;
    //! Doppler of bin i (0 .. doppler_bins() - 1): centre + (i - M) step.
    double doppler_bin_hz(std::size_t bin) const;
    //! Code-phase hypotheses (lags) per grid: ceil(sample_rate_hz code_period_s()).
    std::size_t code_phase_bins() const;

    //! The signal's satellites: GPS PRNs 1..32, Galileo 1..50, GLONASS k -7..6.
    std::vector<int> signal_satellites() const;
    //! Where \p satellite's carrier lies in the stream: IF (+ k 562.5 kHz for GLONASS).
    double satellite_frequency_hz(int satellite) const;
    /*! Whether the stream holds \p satellite: its carrier with the whole Doppler window,
     *  |satellite_frequency_hz + doppler_center_hz| + doppler_max_hz, lies inside
     *  +-sample_rate_hz / 2 (a GLONASS frequency number far from the IF may not). */
    bool satellite_in_stream(int satellite) const;
    //! The signal's satellites the stream holds, in signal_satellites() order.
    std::vector<int> satellites_in_stream() const;
    /*!
     * Checks a list of satellites to search: each one of the signal's, at most once,
     * and held by the stream. std::invalid_argument naming "<parameter>[i]", the
     * satellite, and for one outside the stream its frequency and sample_rate_hz
     * (an empty list: "<parameter>").
     */
    void check_satellites(const std::vector<int>& satellites,
                          const std::string& parameter = "satellites") const;
};

/*!
 * \brief One satellite's acquisition result. Conventions as gnss_acquisition.py's, so
 * that a detection feeds the multichannel correlator as it is:
 *  - delay_samples: the time, in samples after first_sample, at which a code period
 *    begins (its chip 0 starts), within the first code period; GNSS-SDR's "code
 *    delay" (whose SoftGNSS-style replica reports the sample after it).
 *  - code_phase_chips: the code phase at first_sample, [0, chips):
 *    delay_samples = (L - code_phase_chips) / code_rate_cps * sample_rate (mod one
 *    period); it is what a channel with "start_sample": start_sample takes.
 *  - doppler_hz: carrier frequency minus the satellite's nominal frequency in the
 *    stream (IF, plus k 562.5 kHz for GLONASS): the correlator's channel Doppler.
 */
struct CUDADSP_CORE_API acquisition_detection {
    bool detected = false;
    //! PRN (GPS, Galileo) or frequency number (GLONASS), as given to search().
    int satellite = 0;
    double doppler_hz = 0.0;       //!< refined
    double code_phase_chips = 0.0; //!< at start_sample, refined
    double delay_samples = 0.0;    //!< refined, [0, one period in samples)
    //! Code rate at that Doppler: chip rate (1 + doppler_hz / carrier).
    double code_rate_cps = 0.0;
    //! = first_sample of the search: the sample at which the phases above hold.
    std::uint64_t start_sample = 0;
    double metric = 0.0;    //!< grid peak over the grid mean (before refinement)
    double threshold = 0.0; //!< the metric's detection threshold
    //! Peak over the highest cell farther than 2 chips from it (any bin, any grid).
    double second_peak_ratio = 0.0;
    //! C/N0 estimate (dB-Hz) from the refined peak over the grid's noise level.
    double cn0_dbhz = 0.0;
    /*! Galileo pilot with coherent_periods > 1: the E1-C secondary code chip (0..24)
     *  of the code period that begins at delay_samples; 0 otherwise. */
    int secondary_code_phase = 0;
};

/*!
 * \brief What the multichannel correlator's `add` port needs to track a detection
 * (the keys of its channel dict; docs/blocks/multichannel_correlator_cc.md).
 */
struct CUDADSP_CORE_API acquisition_channel_fields {
    std::string system;            //!< "gps_l1ca", "galileo_e1c" or "glonass_l1of"
    int prn = 0;                   //!< GPS/Galileo PRN; 0 for GLONASS
    int frequency_number = 0;      //!< GLONASS only
    bool boc = false;              //!< Galileo: BOC(1,1) replica
    double code_phase_chips = 0.0; //!< at start_sample
    double doppler_hz = 0.0;
    std::uint64_t start_sample = 0;
    //! The channel's IF: the config's (GLONASS: + k 562.5 kHz).
    double intermediate_frequency_hz = 0.0;
    double nominal_carrier_frequency_hz = 0.0; //!< for carrier aiding of the code
    double nominal_code_rate_cps = 0.0;
};

/*!
 * \brief Per satellite, what a backend's grid pass reports (internal to the engine,
 * declared here because the backends' hook takes it).
 *
 * S[g][b][t]: the power |correlation|^2 summed over the K coherent integrations of
 * grid g (a search hypothesis: the Galileo pilot's secondary code phase, else 0;
 * integration k of grid g takes the replica of secondary phase (g + k P) mod 25: the
 * code moves on P periods per integration),
 * Doppler bin b and lag t (0 .. code_phase_bins() - 1), in units of |sum_n x[n]
 * conj(r(n - t))|^2 (the transforms' 2N scale removed), so that the host's direct
 * correlations of the refinement compare with it. The peak is the largest S;
 * ties go to the smallest (g, b, t) in that order.
 */
struct CUDADSP_CORE_API pcps_grid_peak {
    double peak_power = 0.0;   //!< S at the peak
    double early_power = 0.0;  //!< S[g][b][t - 1 mod lags]
    double late_power = 0.0;   //!< S[g][b][t + 1 mod lags]
    double mean_power = 0.0;   //!< mean of S over every cell of every grid
    double second_power = 0.0; //!< max S over cells whose lag is > 2 chips from t
    std::size_t grid = 0;
    std::size_t doppler_bin = 0;
    std::size_t lag = 0;
};

/*!
 * \brief Parallel code-phase search (PCPS) acquisition: for each satellite, a grid of
 * Doppler bins x code phases by FFT correlation, non-coherent integration, detection
 * by a false-alarm probability, refinement of what is found.
 *
 * One search() takes K N contiguous samples (N = coherent_samples()). For each of the
 * K coherent integrations k:
 *   x_k[n] = samples[k N + n], n < N, zero-padded to 2N, one forward FFT (2N points);
 *   for every satellite s, grid g, Doppler bin b:
 *     c[t] = sum_n x_k[n] conj(r(n - t)),  r(m) = code(m) exp(j 2 pi F m / fs),
 *   with F = IF (+ k 562.5 kHz) + Doppler of bin b, m signed in (-N, N): the replica
 *   spans two coherent intervals, so the circular correlation of length 2N is the exact
 *   linear one for every lag t in [0, one period) and every Doppler, however fine the
 *   step (a Doppler shift on a whole-period replica of length N would wrap with a phase
 *   jump). The 2N-point replica spectra are made once per satellite set; a Doppler that
 *   differs from another by a multiple of fs / 2N is a circular shift of its spectrum,
 *   so only the distinct residues are stored. Products, one inverse FFT each, |c[t]|^2
 *   summed over k into S[g][b][t].
 *   code(m) = the code table entry of chip floor(m chip_rate / fs) (BOC: half chips);
 *   Galileo without pilot: the better of |B + C|^2 and |B - C|^2 each integration
 *   (data and pilot signs unknown, one 4 ms period); with the pilot and P > 1
 *   periods: C times the secondary chip of its period, one grid per secondary phase.
 *   Code Doppler within the search is neglected: it moves the code by f_D / f_carrier
 *   chip_rate K N / fs chips (0.065 chip for 10 kHz, 10 ms of GPS).
 *
 * Detection: metric = peak / mean(S) over the satellite's cells (g x b x t: "cells").
 * Under noise alone each cell is Gamma(K, 1) times the noise level (Galileo B/C: a sum
 * of K maxima of two unit exponentials, i.e. Gamma(K) + Gamma(K) / 2), so the
 * threshold is the value x / E[cell] with P(cell > x) = false_alarm / cells (a union
 * bound over the cells: the real rate is at most false_alarm). detected = metric >
 * threshold.
 *
 * Refinement (detections only; the same host code for both backends):
 *  - code phase: the triangle through the amplitudes sqrt(S) at t - 1, t, t + 1 (the
 *    correlation peak of a BPSK code is a triangle): offset (l - e) / (2 (p - min(e,
 *    l))) samples, clamped to +-0.5;
 *  - Doppler: direct correlation at that code phase over Doppler values step / 8 apart
 *    within +-1 step of the peak bin, power summed over K, then a parabola through the
 *    largest and its neighbours.
 * C/N0 = 10 log10((P_fine / noise - 1) / T_coh), noise = mean(S) / E[cell]; the pilot
 * alone carries half the power (+3 dB).
 *
 * Backends agree on the detections: the same peaks (CPU and CUDA sum their products
 * in different orders, so S differs by float32 rounding, about 1e-5 relative) and
 * the same refinement code; the engine test states the tolerances.
 *
 * The engine is not thread-safe: one search() at a time.
 */
class CUDADSP_CORE_API pcps_acquisition
{
public:
    //! Validates \p config (std::invalid_argument) and selects the backend.
    static std::unique_ptr<pcps_acquisition> make(const pcps_acquisition_config& config);
    virtual ~pcps_acquisition();

    /*!
     * Searches \p satellites (PRNs, or GLONASS frequency numbers; each at most once) in
     * \p nsamples = search_samples() complex float32 samples in host memory, whose first
     * is absolute sample \p first_sample of the stream. \p results gets one entry per
     * satellite, in the order given. std::invalid_argument naming "nsamples" or
     * "satellites" for a wrong count or list.
     */
    void search(const std::complex<float>* samples,
                std::size_t nsamples,
                std::uint64_t first_sample,
                const std::vector<int>& satellites,
                std::vector<acquisition_detection>& results);
    //! As above for interleaved int16 I/Q (2 nsamples integers, no scaling).
    void search(const std::int16_t* iq,
                std::size_t nsamples,
                std::uint64_t first_sample,
                const std::vector<int>& satellites,
                std::vector<acquisition_detection>& results);

    //! The correlator channel fields that track \p detection from its start_sample.
    acquisition_channel_fields
    channel_fields(const acquisition_detection& detection) const;

    //! Peak-to-mean threshold of the config (the same for every satellite).
    double threshold() const { return d_threshold; }
    //! Cells of one satellite's grid: grids x Doppler bins x code-phase bins.
    std::size_t cells() const;
    //! Search hypotheses g per satellite (25 for the Galileo pilot with P > 1, else 1).
    std::size_t grids() const;
    //! Replicas per grid combined in each integration (2: Galileo B + C and B - C).
    std::size_t replicas_per_grid() const;

    const pcps_acquisition_config& config() const { return d_config; }
    const device_selection& device() const { return d_device; }

    //! How the Doppler bins of one satellite map onto stored replica spectra.
    struct doppler_plan {
        std::vector<double> residue_hz; //!< replica frequency of each stored spectrum
        std::vector<std::size_t> bin_residue; //!< per bin: index into residue_hz
        //! per bin: the bin's spectrum is the residue's shifted up by this many
        //! 2N-point FFT bins: R_b[k] = R_r[(k - shift) mod 2N]
        std::vector<std::size_t> bin_shift;
    };

    enum class sample_format { cf32, ci16 };

protected:
    pcps_acquisition(const pcps_acquisition_config& config,
                     const device_selection& device);

    /*!
     * Backend hook: fills \p peaks[i] for satellite i over one search (see
     * pcps_grid_peak). \p samples: search_samples() samples in \p format, host memory.
     * The satellites are validated; the backend rebuilds its replica spectra when the
     * set differs from its last one (replica_plan() and make_replica() say what they
     * are).
     */
    virtual void compute_grids(const void* samples,
                               sample_format format,
                               const std::vector<int>& satellites,
                               pcps_grid_peak* peaks) = 0;

    /*! The time-domain replica of satellite \p satellite, grid \p grid, replica \p
     *  replica (< replicas_per_grid()), at frequency \p frequency_hz (a residue of
     *  replica_plan()): 2N samples r(m) at index m mod 2N for m in [-N, N). The
     *  products take the conjugate of its forward FFT (unnormalised). */
    void make_replica(int satellite,
                      std::size_t grid,
                      std::size_t replica,
                      double frequency_hz,
                      std::complex<float>* out) const;
    //! The Doppler plan of \p satellite (its residues depend on its carrier in the
    //! stream).
    doppler_plan replica_plan(int satellite) const;

    pcps_acquisition_config d_config;
    device_selection d_device;
    double d_threshold = 0.0;

private:
    template <typename Sample>
    void search_impl(const Sample* samples,
                     sample_format format,
                     std::size_t nsamples,
                     std::uint64_t first_sample,
                     const std::vector<int>& satellites,
                     std::vector<acquisition_detection>& results);
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PCPS_ACQUISITION_H */
