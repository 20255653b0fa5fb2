/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_GNSS_CORRELATOR_MESSAGES_H
#define INCLUDED_CUDADSP_GNSS_CORRELATOR_MESSAGES_H

#include <pmt/pmt.h>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace cudadsp {

// The PMTs of the multichannel correlator's message ports (multichannel_correlator_cc):
// what its events say and how a refused channel message is answered.

/*!
 * An error text as an event's value: UTF-8 bytes in a u8vector. Not a symbol: symbols
 * are interned for the life of the process, so every distinct text would stay.
 */
pmt::pmt_t error_text(const std::string& text);

/*!
 * The refused items of one message: how many, and the texts of the first few, so that
 * one bad message gives one error of bounded length however many items it has.
 */
class refusals
{
public:
    //! \p items: what the message's items are called ("channels", "ids").
    explicit refusals(const char* items) : d_items(items) {}
    void add(std::size_t index, const std::string& text);
    bool any() const { return d_count != 0; }
    //! Throws the message's error: a lone item's text as it is, else a summary.
    [[noreturn]] void raise(const char* what, std::size_t items) const;

private:
    const std::string d_items;
    std::vector<std::pair<std::size_t, std::string>> d_named;
    std::size_t d_count = 0;
};

/*! The "id" of a message that is one channel dict (or one id), as an uint64 PMT, when
 *  it is an integer in range; PMT_NIL otherwise. */
pmt::pmt_t lone_channel_id(const pmt::pmt_t& msg);

//! The "system" of a lost event: the channel dict's name of the record's system.
const char* system_name(int system);

//! An event's dict: {"event": event, "id": id, "sample": sample}.
pmt::pmt_t event_dict(const char* event, std::uint32_t id, std::uint64_t sample);

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_GNSS_CORRELATOR_MESSAGES_H */
