/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tbd/tuning_cache.h"
#include "tbd/lrei.h"
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <pwd.h>
#include <sys/file.h>
#include <unistd.h>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#ifndef CUDADSP_VERSION_STRING
#define CUDADSP_VERSION_STRING "unknown"
#endif

namespace gr {
namespace cudadsp {
namespace core {

std::uint64_t fnv1a64(const std::string& bytes)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const char c : bytes) {
        h ^= static_cast<std::uint64_t>(static_cast<unsigned char>(c));
        h *= 0x100000001b3ull;
    }
    return h;
}

std::string tuning_config_hash(const std::string& canonical_description)
{
    static const char digits[] = "0123456789abcdef";
    const std::uint64_t h = fnv1a64(canonical_description);
    std::string hex(16, '0');
    for (int i = 0; i < 16; ++i)
        hex[static_cast<std::size_t>(15 - i)] = digits[(h >> (4 * i)) & 0xf];
    return hex;
}

std::string default_tuning_cache_dir()
{
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg != nullptr && xdg[0] == '/')
        return std::string(xdg) + "/gr-cudadsp";
    const char* home = std::getenv("HOME");
    if (home != nullptr && home[0] != '\0')
        return std::string(home) + "/.cache/gr-cudadsp";
    // Services started without HOME still have a home directory in the user database.
    std::vector<char> buf(16384);
    passwd pw;
    passwd* found = nullptr;
    if (getpwuid_r(getuid(), &pw, buf.data(), buf.size(), &found) == 0 &&
        found != nullptr && found->pw_dir != nullptr && found->pw_dir[0] != '\0')
        return std::string(found->pw_dir) + "/.cache/gr-cudadsp";
    return "";
}

std::string tuning_timestamp_utc()
{
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

std::string tuning_library_version() { return CUDADSP_VERSION_STRING; }

const char* to_string(tuning_lookup_status status)
{
    switch (status) {
    case tuning_lookup_status::hit:
        return "hit";
    case tuning_lookup_status::no_entry:
        return "no entry";
    case tuning_lookup_status::no_file:
        return "no file";
    case tuning_lookup_status::no_cache_dir:
        return "no cache directory";
    case tuning_lookup_status::corrupt_file:
        return "corrupt file";
    case tuning_lookup_status::invalid_entry:
        return "invalid entry";
    }
    return "unknown";
}

namespace {

const char* const format_name = "gr-cudadsp tuning cache";
//! Why lookup() misses and store() fails when default_tuning_cache_dir() found none.
const char* const no_cache_dir_message =
    "no cache directory: neither XDG_CACHE_HOME nor HOME is set";
constexpr int format_version = 1;
// A tuning cache holds a few orders of a few hundred lines; anything far larger is not
// one, and reading it whole would only waste memory.
constexpr std::size_t max_file_bytes = 64u << 20;
constexpr int max_json_depth = 64;

// ordered_json keeps member order, so a rewrite changes nothing but the entry stored.
using cache_json = nlohmann::ordered_json;

// The writer below recurses once per level, and so does nlohmann's own dump(): a
// hand-edited file nested without bound would overflow the stack when rewritten.
struct nesting_too_deep {
};

cache_json parse_json(const std::string& content)
{
    return cache_json::parse(
        content, [](int depth, cache_json::parse_event_t event, cache_json&) {
            const bool opens = event == cache_json::parse_event_t::object_start ||
                               event == cache_json::parse_event_t::array_start;
            if (opens && depth > max_json_depth)
                throw nesting_too_deep{};
            return true;
        });
}

/*!
 * Objects one member per line, indented by two spaces; arrays of scalars on one line
 * ("order": [2, 0, 1]), so that an order of a few hundred lines stays one line of the
 * file. nlohmann's dump() writes the scalars: its escaping, its shortest round-trip
 * doubles, UTF-8 left as is.
 */
void write_json(std::string& out, const cache_json& value, int indent)
{
    if (value.is_primitive()) {
        out += value.dump();
        return;
    }
    const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
    const std::string inner(static_cast<std::size_t>(indent + 1) * 2, ' ');
    if (value.is_array()) {
        bool flat = true;
        for (const cache_json& item : value)
            flat = flat && item.is_primitive();
        out += '[';
        for (auto item = value.begin(); item != value.end(); ++item) {
            if (item != value.begin())
                out += flat ? ", " : ",";
            if (!flat)
                out += "\n" + inner;
            write_json(out, *item, indent + 1);
        }
        if (!flat && !value.empty())
            out += "\n" + pad;
        out += ']';
        return;
    }
    out += '{';
    for (auto member = value.begin(); member != value.end(); ++member) {
        out += member == value.begin() ? "\n" : ",\n";
        out += inner;
        out += cache_json(member.key()).dump();
        out += ": ";
        write_json(out, member.value(), indent + 1);
    }
    if (!value.empty())
        out += "\n" + pad;
    out += '}';
}

std::string compute_capability_text(const tuning_key& key)
{
    return std::to_string(key.compute_major) + "." + std::to_string(key.compute_minor);
}

bool string_member_is(const cache_json& obj, const char* name, const std::string& value)
{
    const auto m = obj.find(name);
    return m != obj.end() && m->is_string() && m->get_ref<const std::string&>() == value;
}

bool entry_matches(const cache_json& entry, const tuning_key& key)
{
    return string_member_is(entry, "device", key.device_name) &&
           string_member_is(entry, "compute_capability", compute_capability_text(key)) &&
           string_member_is(entry, "config_hash", key.config_hash);
}

//! "" when valid, else why not.
std::string check_entry_values(const tuning_entry& e, std::size_t expected_lines)
{
    if (e.order.size() != expected_lines)
        return "order has " + std::to_string(e.order.size()) + " lines, expected " +
               std::to_string(expected_lines);
    if (!lrei_is_permutation(e.order))
        return "order is not a permutation of 0.." + std::to_string(expected_lines) +
               "-1";
    if (!std::isfinite(e.best_ms) || !std::isfinite(e.start_ms) || e.best_ms < 0.0 ||
        e.best_ms > e.start_ms)
        return "times must be finite with 0 <= best_ms <= start_ms, got best_ms " +
               std::to_string(e.best_ms) + ", start_ms " + std::to_string(e.start_ms);
    return "";
}

//! Reads \p entry's members into \p out; "" when all have their types, else why not.
std::string read_entry(const cache_json& entry, tuning_entry& out)
{
    const auto order = entry.find("order");
    if (order == entry.end() || !order->is_array())
        return "order is missing or not an array";
    out.order.clear();
    out.order.reserve(order->size());
    for (const cache_json& line : *order) {
        // The writer stores line numbers as JSON integers; "-1" or "0.5" are no lines.
        if (!line.is_number_unsigned())
            return "order holds something other than a non-negative integer";
        out.order.push_back(line.get<std::size_t>());
    }
    const auto number = [&entry](const char* name, double& value) {
        const auto m = entry.find(name);
        if (m == entry.end() || !m->is_number())
            return false;
        value = m->get<double>();
        return true;
    };
    const auto text = [&entry](const char* name, std::string& value) {
        const auto m = entry.find(name);
        if (m == entry.end() || !m->is_string())
            return false;
        value = m->get<std::string>();
        return true;
    };
    if (!number("best_ms", out.best_ms))
        return "best_ms is missing or not a number";
    if (!number("start_ms", out.start_ms))
        return "start_ms is missing or not a number";
    if (!text("bilinear", out.bilinear))
        return "bilinear is missing or not a string";
    if (!text("timestamp", out.timestamp))
        return "timestamp is missing or not a string";
    if (!text("version", out.version))
        return "version is missing or not a string";
    return "";
}

enum class file_state { read, missing, unreadable };

file_state read_file(const std::string& path, std::string& content, std::string& why)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        why = std::strerror(errno);
        return errno == ENOENT ? file_state::missing : file_state::unreadable;
    }
    content.clear();
    char buf[65536];
    for (;;) {
        const ssize_t got = ::read(fd, buf, sizeof buf);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            why = std::strerror(errno);
            ::close(fd);
            return file_state::unreadable;
        }
        if (got == 0)
            break;
        content.append(buf, static_cast<std::size_t>(got));
        if (content.size() > max_file_bytes) {
            why = "larger than " + std::to_string(max_file_bytes) + " bytes";
            ::close(fd);
            return file_state::unreadable;
        }
    }
    ::close(fd);
    return file_state::read;
}

//! Parses a cache document; "" when it is one, else why not.
std::string parse_cache(const std::string& content, cache_json& root)
{
    try {
        root = parse_json(content);
    } catch (const cache_json::exception& e) {
        return std::string("not valid JSON: ") + e.what();
    } catch (const nesting_too_deep&) {
        return "nesting deeper than " + std::to_string(max_json_depth);
    }
    if (!root.is_object())
        return "the document is not a JSON object";
    if (!string_member_is(root, "format", format_name))
        return std::string("\"format\" is not \"") + format_name + "\"";
    // 1.0 is the same number as 1 in JSON.
    const auto version = root.find("format_version");
    if (version == root.end() || !version->is_number() ||
        version->get<double>() != format_version)
        return "\"format_version\" is not " + std::to_string(format_version);
    const auto entries = root.find("entries");
    if (entries == root.end() || !entries->is_array())
        return "\"entries\" is missing or not an array";
    return "";
}

//! Holds an exclusive flock on the cache's lock file for its lifetime, when it can.
class cache_lock
{
public:
    explicit cache_lock(const std::string& path)
        : d_fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644))
    {
        // Without the lock (read-only lock file, a file system without flock) the write
        // is still atomic; only a concurrent writer's entry could be lost.
        if (d_fd >= 0)
            while (::flock(d_fd, LOCK_EX) != 0 && errno == EINTR) {
            }
    }
    ~cache_lock()
    {
        if (d_fd >= 0)
            ::close(d_fd); // releases the flock
    }
    cache_lock(const cache_lock&) = delete;
    cache_lock& operator=(const cache_lock&) = delete;

private:
    int d_fd;
};

//! Writes \p content to \p path atomically; "" on success, else why not.
std::string write_atomically(const std::string& dir,
                             const std::string& path,
                             const std::string& content)
{
    const std::string tmp =
        dir + "/.tuning.json." + std::to_string(static_cast<long>(::getpid())) + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return "cannot create " + tmp + ": " + std::strerror(errno);
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t put = ::write(fd, content.data() + done, content.size() - done);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            const std::string why = std::strerror(errno);
            ::close(fd);
            ::unlink(tmp.c_str());
            return "cannot write " + tmp + ": " + why;
        }
        done += static_cast<std::size_t>(put);
    }
    // fsync before rename: otherwise a crash can leave the new name on empty contents.
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmp.c_str());
        return "cannot flush " + tmp + ": " + why;
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmp.c_str());
        return "cannot rename " + tmp + " to " + path + ": " + why;
    }
    return "";
}

} // namespace

tuning_cache::tuning_cache(const std::string& dir)
    : d_dir(dir.empty() ? default_tuning_cache_dir() : dir),
      d_path(d_dir.empty() ? std::string() : d_dir + "/tuning.json")
{
}

tuning_lookup tuning_cache::lookup(const tuning_key& key,
                                   std::size_t expected_lines) const
{
    tuning_lookup result;
    if (d_path.empty()) {
        result.status = tuning_lookup_status::no_cache_dir;
        result.message = no_cache_dir_message;
        return result;
    }
    std::string content, why;
    switch (read_file(d_path, content, why)) {
    case file_state::missing:
        result.status = tuning_lookup_status::no_file;
        result.message = d_path + ": " + why;
        return result;
    case file_state::unreadable:
        result.status = tuning_lookup_status::corrupt_file;
        result.message = d_path + ": unreadable: " + why;
        return result;
    case file_state::read:
        break;
    }
    cache_json root;
    why = parse_cache(content, root);
    if (!why.empty()) {
        result.status = tuning_lookup_status::corrupt_file;
        result.message = d_path + ": " + why;
        return result;
    }
    result.status = tuning_lookup_status::no_entry;
    result.message = d_path + ": no entry for device \"" + key.device_name +
                     "\", compute capability " + compute_capability_text(key) +
                     ", configuration " + key.config_hash;
    for (const cache_json& item : root["entries"]) {
        if (!entry_matches(item, key))
            continue;
        tuning_entry entry;
        why = read_entry(item, entry);
        if (why.empty())
            why = check_entry_values(entry, expected_lines);
        if (why.empty()) {
            result.status = tuning_lookup_status::hit;
            result.entry = std::move(entry);
            result.message.clear();
            return result;
        }
        result.status = tuning_lookup_status::invalid_entry;
        result.message = d_path + ": the entry for device \"" + key.device_name +
                         "\", compute capability " + compute_capability_text(key) +
                         ", configuration " + key.config_hash + " is invalid: " + why;
    }
    return result;
}

tuning_store_result tuning_cache::store(const tuning_key& key,
                                        const tuning_entry& entry) const
{
    if (key.device_name.empty())
        throw std::invalid_argument("key.device_name must not be empty");
    if (key.config_hash.empty())
        throw std::invalid_argument("key.config_hash must not be empty");
    if (key.compute_major < 0 || key.compute_minor < 0)
        throw std::invalid_argument("key compute capability must be >= 0, got " +
                                    compute_capability_text(key));
    const std::string invalid = check_entry_values(entry, entry.order.size());
    if (!invalid.empty())
        throw std::invalid_argument("entry: " + invalid);
    cache_json stored = {
        { "device", key.device_name },
        { "compute_capability", compute_capability_text(key) },
        { "config_hash", key.config_hash },
        { "order", entry.order },
        { "best_ms", entry.best_ms },
        { "start_ms", entry.start_ms },
        { "bilinear", entry.bilinear },
        { "timestamp",
          entry.timestamp.empty() ? tuning_timestamp_utc() : entry.timestamp },
        { "version", entry.version.empty() ? tuning_library_version() : entry.version },
    };
    // JSON text is UTF-8: other bytes cannot be written, and replacing them would store
    // a key that never matches again.
    try {
        stored.dump();
    } catch (const cache_json::type_error& e) {
        throw std::invalid_argument(std::string("key and entry text must be UTF-8: ") +
                                    e.what());
    }

    tuning_store_result result;
    if (d_path.empty()) {
        result.message = no_cache_dir_message;
        return result;
    }
    std::error_code ec;
    std::filesystem::create_directories(d_dir, ec);
    if (ec) {
        result.message = "cannot create " + d_dir + ": " + ec.message();
        return result;
    }

    cache_lock lock(d_path + ".lock");

    cache_json root = cache_json::object();
    std::string content, why;
    switch (read_file(d_path, content, why)) {
    case file_state::missing:
        break;
    case file_state::unreadable:
        result.message = d_path + " is unreadable (" + why + "); not replaced";
        return result;
    case file_state::read:
        why = parse_cache(content, root);
        if (!why.empty()) {
            // Kept for inspection rather than silently lost; the tuning it held is
            // unreachable anyway.
            const std::string aside = d_path + ".corrupt";
            if (::rename(d_path.c_str(), aside.c_str()) == 0)
                result.message =
                    "replaced " + d_path + " (" + why + "); old file at " + aside;
            else
                result.message = "replaced " + d_path + " (" + why + ")";
            root = cache_json::object();
        }
        break;
    }
    root["format"] = format_name;
    root["format_version"] = format_version;
    cache_json kept = cache_json::array();
    if (const auto entries = root.find("entries"); entries != root.end())
        for (const cache_json& item : *entries)
            if (!entry_matches(item, key))
                kept.push_back(item);
    kept.push_back(std::move(stored));
    root["entries"] = std::move(kept);

    std::string text;
    write_json(text, root, 0);
    text += '\n';
    why = write_atomically(d_dir, d_path, text);
    if (!why.empty()) {
        result.message = why;
        return result;
    }
    result.ok = true;
    return result;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
