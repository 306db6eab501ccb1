// Helpers for the text that /proc and /sys files hold: lines of whitespace-separated fields
// and decimal numbers. They never allocate; views point into the caller's text.

#ifndef PERFHIVE_SOURCES_PROCFS_PROC_TEXT_H_
#define PERFHIVE_SOURCES_PROCFS_PROC_TEXT_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace perfhive {

// Removes and returns the first line of `text` (without its '\n').
std::string_view NextLine(std::string_view& text);

// Removes and returns the next field of `line`, skipping spaces and tabs before it; empty when
// the line has no more fields.
std::string_view NextField(std::string_view& line);

// A whole field as an unsigned decimal number; nullopt for anything else (sign, junk, overflow).
std::optional<uint64_t> ParseU64(std::string_view field);

// The next field of `line` as a number, or `missing` when the line has no more fields. A field
// that is present but not a number gives nullopt.
std::optional<uint64_t> NextU64(std::string_view& line, uint64_t missing = 0);

// In text made of "Key: value" or "key value" lines (/proc/meminfo, /proc/vmstat,
// /proc/<pid>/io, /proc/<pid>/status), the number after `key`; nullopt when no line has that
// key or its value is not a number.
std::optional<uint64_t> FindKeyedValue(std::string_view text, std::string_view key);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_PROC_TEXT_H_
