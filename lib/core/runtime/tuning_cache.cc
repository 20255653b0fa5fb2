/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tbd/lrei.h"
#include "runtime/tuning_cache.h"
#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <charconv>
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
constexpr double format_version = 1.0;
// A tuning cache holds a few orders of a few hundred lines; anything far larger is not
// one, and reading it whole would only waste memory.
constexpr std::size_t max_file_bytes = 64u << 20;
constexpr int max_json_depth = 64;
// Integers up to 2^53 are exact in a double, which is how JSON numbers are read.
constexpr double max_exact_integer = 9007199254740992.0;

// Only the JSON this file needs: a value tree that keeps member order, so a rewrite
// changes nothing but the entry stored.
struct json {
    enum class type { null, boolean, number, string, array, object };
    type t = type::null;
    bool boolean = false;
    double number = 0.0;
    std::string text;
    std::vector<json> items;        // array elements, or object values
    std::vector<std::string> names; // object member names, parallel to items

    static json make_string(const std::string& s)
    {
        json j;
        j.t = type::string;
        j.text = s;
        return j;
    }
    static json make_number(double v)
    {
        json j;
        j.t = type::number;
        j.number = v;
        return j;
    }
    static json make_object()
    {
        json j;
        j.t = type::object;
        return j;
    }
    static json make_array()
    {
        json j;
        j.t = type::array;
        return j;
    }

    //! The first member named \p name, or nullptr (also when this is no object).
    const json* member(const std::string& name) const
    {
        if (t != type::object)
            return nullptr;
        for (std::size_t i = 0; i < names.size(); ++i)
            if (names[i] == name)
                return &items[i];
        return nullptr;
    }
    json* member(const std::string& name)
    {
        return const_cast<json*>(static_cast<const json&>(*this).member(name));
    }
    void set(const std::string& name, json value)
    {
        if (json* existing = member(name)) {
            *existing = std::move(value);
            return;
        }
        names.push_back(name);
        items.push_back(std::move(value));
    }
};

struct json_error {
    std::string what;
};

class json_parser
{
public:
    explicit json_parser(const std::string& s) : d_s(s) {}

    json parse_document()
    {
        skip_space();
        json value = parse_value(0);
        skip_space();
        if (d_i != d_s.size())
            fail("unexpected text after the document");
        return value;
    }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw json_error{ what + " at byte " + std::to_string(d_i) };
    }

    void skip_space()
    {
        while (d_i < d_s.size() && (d_s[d_i] == ' ' || d_s[d_i] == '\t' ||
                                    d_s[d_i] == '\n' || d_s[d_i] == '\r'))
            ++d_i;
    }

    bool consume_literal(const char* word)
    {
        const std::size_t len = std::strlen(word);
        if (d_s.compare(d_i, len, word) != 0)
            return false;
        d_i += len;
        return true;
    }

    json parse_value(int depth)
    {
        if (depth > max_json_depth)
            fail("nesting deeper than " + std::to_string(max_json_depth));
        if (d_i >= d_s.size())
            fail("unexpected end");
        const char c = d_s[d_i];
        if (c == '{')
            return parse_object(depth);
        if (c == '[')
            return parse_array(depth);
        if (c == '"')
            return json::make_string(parse_string());
        if (c == '-' || (c >= '0' && c <= '9'))
            return json::make_number(parse_number());
        json j;
        if (consume_literal("true")) {
            j.t = json::type::boolean;
            j.boolean = true;
        } else if (consume_literal("false")) {
            j.t = json::type::boolean;
        } else if (!consume_literal("null")) {
            fail("unexpected character");
        }
        return j;
    }

    json parse_object(int depth)
    {
        json obj = json::make_object();
        ++d_i; // '{'
        skip_space();
        if (d_i < d_s.size() && d_s[d_i] == '}') {
            ++d_i;
            return obj;
        }
        for (;;) {
            skip_space();
            if (d_i >= d_s.size() || d_s[d_i] != '"')
                fail("expected a member name");
            std::string name = parse_string();
            skip_space();
            if (d_i >= d_s.size() || d_s[d_i] != ':')
                fail("expected ':'");
            ++d_i;
            skip_space();
            obj.names.push_back(std::move(name));
            obj.items.push_back(parse_value(depth + 1));
            skip_space();
            if (d_i < d_s.size() && d_s[d_i] == ',') {
                ++d_i;
                continue;
            }
            if (d_i < d_s.size() && d_s[d_i] == '}') {
                ++d_i;
                return obj;
            }
            fail("expected ',' or '}'");
        }
    }

    json parse_array(int depth)
    {
        json arr = json::make_array();
        ++d_i; // '['
        skip_space();
        if (d_i < d_s.size() && d_s[d_i] == ']') {
            ++d_i;
            return arr;
        }
        for (;;) {
            skip_space();
            arr.items.push_back(parse_value(depth + 1));
            skip_space();
            if (d_i < d_s.size() && d_s[d_i] == ',') {
                ++d_i;
                continue;
            }
            if (d_i < d_s.size() && d_s[d_i] == ']') {
                ++d_i;
                return arr;
            }
            fail("expected ',' or ']'");
        }
    }

    unsigned hex4()
    {
        if (d_i + 4 > d_s.size())
            fail("truncated \\u escape");
        unsigned v = 0;
        for (int k = 0; k < 4; ++k) {
            const char h = d_s[d_i++];
            v <<= 4;
            if (h >= '0' && h <= '9')
                v |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f')
                v |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                v |= static_cast<unsigned>(h - 'A' + 10);
            else
                fail("bad hex digit in \\u escape");
        }
        return v;
    }

    static void append_utf8(std::string& out, unsigned cp)
    {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            out += static_cast<char>(0xf0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        }
    }

    std::string parse_string()
    {
        ++d_i; // '"'
        std::string out;
        for (;;) {
            if (d_i >= d_s.size())
                fail("unterminated string");
            const char c = d_s[d_i++];
            if (c == '"')
                return out;
            if (static_cast<unsigned char>(c) < 0x20)
                fail("control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (d_i >= d_s.size())
                fail("unterminated escape");
            const char e = d_s[d_i++];
            switch (e) {
            case '"':
            case '\\':
            case '/':
                out += e;
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xdc00 && cp <= 0xdfff)
                    fail("lone low surrogate");
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    if (d_s.compare(d_i, 2, "\\u") != 0)
                        fail("high surrogate without its low surrogate");
                    d_i += 2;
                    const unsigned low = hex4();
                    if (low < 0xdc00 || low > 0xdfff)
                        fail("high surrogate without its low surrogate");
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                }
                append_utf8(out, cp);
                break;
            }
            default:
                fail("unknown escape");
            }
        }
    }

    double parse_number()
    {
        // JSON's grammar is narrower than from_chars' (no leading '+', zeros, "inf"),
        // so it is checked here first.
        const std::size_t begin = d_i;
        const auto digit = [this] {
            return d_i < d_s.size() && d_s[d_i] >= '0' && d_s[d_i] <= '9';
        };
        if (d_s[d_i] == '-')
            ++d_i;
        if (!digit())
            fail("bad number");
        if (d_s[d_i] == '0')
            ++d_i;
        else
            while (digit())
                ++d_i;
        if (d_i < d_s.size() && d_s[d_i] == '.') {
            ++d_i;
            if (!digit())
                fail("bad number");
            while (digit())
                ++d_i;
        }
        if (d_i < d_s.size() && (d_s[d_i] == 'e' || d_s[d_i] == 'E')) {
            ++d_i;
            if (d_i < d_s.size() && (d_s[d_i] == '+' || d_s[d_i] == '-'))
                ++d_i;
            if (!digit())
                fail("bad number");
            while (digit())
                ++d_i;
        }
        double v = 0.0;
        const char* first = d_s.data() + begin;
        const char* last = d_s.data() + d_i;
        const auto r = std::from_chars(first, last, v);
        if (r.ec != std::errc() || r.ptr != last)
            fail("number out of range");
        return v;
    }

    const std::string& d_s;
    std::size_t d_i = 0;
};

void write_string(std::string& out, const std::string& s)
{
    static const char digits[] = "0123456789abcdef";
    out += '"';
    for (const char c : s) {
        const unsigned char u = static_cast<unsigned char>(c);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (u < 0x20) {
                out += "\\u00";
                out += digits[u >> 4];
                out += digits[u & 0xf];
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

void write_number(std::string& out, double v)
{
    if (!std::isfinite(v)) {
        out += "null"; // JSON has no inf or NaN; store() never writes them
        return;
    }
    // Shortest text that reads back to the same double, independent of the locale.
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

bool is_scalar(const json& j)
{
    return j.t != json::type::array && j.t != json::type::object;
}

void write_json(std::string& out, const json& j, int indent)
{
    const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
    const std::string inner(static_cast<std::size_t>(indent + 1) * 2, ' ');
    switch (j.t) {
    case json::type::null:
        out += "null";
        break;
    case json::type::boolean:
        out += j.boolean ? "true" : "false";
        break;
    case json::type::number:
        write_number(out, j.number);
        break;
    case json::type::string:
        write_string(out, j.text);
        break;
    case json::type::array: {
        bool flat = true;
        for (const json& item : j.items)
            flat = flat && is_scalar(item);
        out += '[';
        for (std::size_t i = 0; i < j.items.size(); ++i) {
            if (i > 0)
                out += flat ? ", " : ",";
            if (!flat)
                out += "\n" + inner;
            write_json(out, j.items[i], indent + 1);
        }
        if (!flat && !j.items.empty())
            out += "\n" + pad;
        out += ']';
        break;
    }
    case json::type::object:
        out += '{';
        for (std::size_t i = 0; i < j.items.size(); ++i) {
            out += i > 0 ? ",\n" : "\n";
            out += inner;
            write_string(out, j.names[i]);
            out += ": ";
            write_json(out, j.items[i], indent + 1);
        }
        if (!j.items.empty())
            out += "\n" + pad;
        out += '}';
        break;
    }
}

std::string compute_capability_text(const tuning_key& key)
{
    return std::to_string(key.compute_major) + "." + std::to_string(key.compute_minor);
}

bool string_member_is(const json& obj, const char* name, const std::string& value)
{
    const json* m = obj.member(name);
    return m != nullptr && m->t == json::type::string && m->text == value;
}

bool entry_matches(const json& entry, const tuning_key& key)
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
std::string read_entry(const json& entry, tuning_entry& out)
{
    const json* order = entry.member("order");
    if (order == nullptr || order->t != json::type::array)
        return "order is missing or not an array";
    out.order.clear();
    out.order.reserve(order->items.size());
    for (const json& v : order->items) {
        if (v.t != json::type::number || v.number < 0.0 ||
            v.number >= max_exact_integer || v.number != std::floor(v.number))
            return "order holds something other than a non-negative integer";
        out.order.push_back(static_cast<std::size_t>(v.number));
    }
    const auto number = [&entry](const char* name, double& value) {
        const json* m = entry.member(name);
        if (m == nullptr || m->t != json::type::number)
            return false;
        value = m->number;
        return true;
    };
    const auto text = [&entry](const char* name, std::string& value) {
        const json* m = entry.member(name);
        if (m == nullptr || m->t != json::type::string)
            return false;
        value = m->text;
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
std::string parse_cache(const std::string& content, json& root)
{
    try {
        root = json_parser(content).parse_document();
    } catch (const json_error& e) {
        return "not valid JSON: " + e.what;
    }
    if (root.t != json::type::object)
        return "the document is not a JSON object";
    if (!string_member_is(root, "format", format_name))
        return std::string("\"format\" is not \"") + format_name + "\"";
    const json* version = root.member("format_version");
    if (version == nullptr || version->t != json::type::number ||
        version->number != format_version)
        return "\"format_version\" is not 1";
    const json* entries = root.member("entries");
    if (entries == nullptr || entries->t != json::type::array)
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
        result.message = "no cache directory: neither XDG_CACHE_HOME nor HOME is set";
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
    json root;
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
    for (const json& item : root.member("entries")->items) {
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

    tuning_store_result result;
    if (d_path.empty()) {
        result.message = "no cache directory: neither XDG_CACHE_HOME nor HOME is set";
        return result;
    }
    std::error_code ec;
    std::filesystem::create_directories(d_dir, ec);
    if (ec) {
        result.message = "cannot create " + d_dir + ": " + ec.message();
        return result;
    }

    cache_lock lock(d_path + ".lock");

    json root = json::make_object();
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
            root = json::make_object();
        }
        break;
    }
    root.set("format", json::make_string(format_name));
    root.set("format_version", json::make_number(format_version));
    json kept = json::make_array();
    if (const json* entries = root.member("entries"))
        for (const json& item : entries->items)
            if (!entry_matches(item, key))
                kept.items.push_back(item);

    json e = json::make_object();
    e.set("device", json::make_string(key.device_name));
    e.set("compute_capability", json::make_string(compute_capability_text(key)));
    e.set("config_hash", json::make_string(key.config_hash));
    json order = json::make_array();
    order.items.reserve(entry.order.size());
    for (const std::size_t v : entry.order)
        order.items.push_back(json::make_number(static_cast<double>(v)));
    e.set("order", std::move(order));
    e.set("best_ms", json::make_number(entry.best_ms));
    e.set("start_ms", json::make_number(entry.start_ms));
    e.set("bilinear", json::make_string(entry.bilinear));
    e.set("timestamp",
          json::make_string(entry.timestamp.empty() ? tuning_timestamp_utc()
                                                    : entry.timestamp));
    e.set("version",
          json::make_string(entry.version.empty() ? tuning_library_version()
                                                  : entry.version));
    kept.items.push_back(std::move(e));
    root.set("entries", std::move(kept));

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
