#include "store/value_columns.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/byte_order.h"
#include "base/varint.h"
#include "perfdata/winperf.h"

namespace perfhive {

namespace {

namespace db = winperf::data_block;
namespace ot = winperf::object_type;
namespace cd = winperf::counter_definition;
namespace id = winperf::instance_definition;

// Layout modes, one byte per piece.
constexpr uint8_t kSameLayout = 0;  // the previous piece's layout again, cut as it was
constexpr uint8_t kNewLayout = 1;   // a layout of its own, cut into values as its kind says
constexpr uint8_t kLayoutOnly = 2;  // a layout of its own with no values (all bytes stored)

// Column modes, one byte per column.
enum ColumnMode : uint8_t { kConstant = 0, kStep = 1, kDelta = 2, kDeltaOfDelta = 3 };
// Added to kDelta or kDeltaOfDelta: the numbers are quotients by a divisor (in firsts).
constexpr uint8_t kScaled = 0x10;

struct Field {
  uint32_t offset = 0;
  uint32_t width = 0;  // 4 or 8
};

// The fields of one instance (or of an object's header, or of its one counter block), matched
// with the previous piece's by key and by how many times the key came before in the piece.
struct Unit {
  std::string_view key;
  uint32_t first_field = 0;
  uint32_t field_count = 0;
};

struct PieceFields {
  std::vector<Field> fields;
  std::vector<Unit> units;
};

// The value fields of a counter block at `block` (its ByteLength checked), as `layout` gives
// them: sorted by offset, 4 or 8 bytes, clear of the ByteLength field and of each other.
void AddBlockFields(uint32_t block, uint32_t block_length, std::span<const Field> layout,
                    PieceFields& out) {
  for (const Field& field : layout) {
    if (uint64_t{field.offset} + field.width > block_length) continue;
    out.fields.push_back(Field{block + field.offset, field.width});
  }
}

// Where an object's values lie. Reads only bytes that are not values, so the layout (values
// zeroed) cuts the same as the piece; a piece that does not walk has no values.
bool CutObject(std::span<const uint8_t> piece, PieceFields& out) {
  const size_t size = piece.size();
  const uint8_t* p = piece.data();
  if (size < ot::kSize) return false;
  const uint32_t definition_length = LoadU32(p + ot::kDefinitionLength);
  const uint32_t header_length = LoadU32(p + ot::kHeaderLength);
  if (header_length < ot::kSize || header_length > definition_length || definition_length > size) {
    return false;
  }
  out.units.push_back(Unit{std::string_view("\x01", 1), 0, 1});
  out.fields.push_back(Field{ot::kPerfTime, 8});
  // The counters' places in a block.
  const uint32_t counters = LoadU32(p + ot::kNumCounters);
  if (counters > (definition_length - header_length) / cd::kSize) return false;
  std::vector<Field> layout;
  uint64_t at = header_length;
  for (uint32_t c = 0; c < counters; ++c) {
    if (at + cd::kSize > definition_length) return false;
    const uint32_t length = LoadU32(p + at + cd::kByteLength);
    const uint32_t width = LoadU32(p + at + cd::kCounterSize);
    const uint32_t offset = LoadU32(p + at + cd::kCounterOffset);
    if (length < cd::kSize) return false;
    if ((width == 4 || width == 8) && offset >= 4) layout.push_back(Field{offset, width});
    at += length;
  }
  std::sort(layout.begin(), layout.end(),
            [](const Field& a, const Field& b) { return a.offset < b.offset; });
  std::vector<Field> clear;
  uint64_t end = 0;
  for (const Field& field : layout) {
    if (field.offset < end) continue;
    clear.push_back(field);
    end = uint64_t{field.offset} + field.width;
  }
  auto block_at = [&](uint64_t block, std::string_view key) -> int64_t {
    if (block + 4 > size) return -1;
    const uint32_t length = LoadU32(p + block);
    if (length < 4 || block + length > size) return -1;
    const uint32_t first = static_cast<uint32_t>(out.fields.size());
    AddBlockFields(static_cast<uint32_t>(block), length, clear, out);
    out.units.push_back(Unit{key, first, static_cast<uint32_t>(out.fields.size()) - first});
    return static_cast<int64_t>(block + length);
  };
  const int32_t instances = LoadI32(p + ot::kNumInstances);
  if (instances == winperf::kNoInstances) {
    return block_at(definition_length, std::string_view("\x02", 1)) >= 0;
  }
  if (instances < 0) return true;  // metadata: definitions only
  if (static_cast<uint64_t>(instances) > size / (id::kSize + 4)) return false;
  at = definition_length;
  for (int32_t i = 0; i < instances; ++i) {
    if (at + id::kSize > size) return false;
    const uint32_t length = LoadU32(p + at + id::kByteLength);
    if (length < id::kSize || at + length > size) return false;
    // The definition without ParentObjectInstance, which shifts when a parent comes or goes.
    // The key spans it; a unit's key compares the bytes around it (KeyOf).
    const int64_t next =
        block_at(at + length, std::string_view(reinterpret_cast<const char*>(p + at), length));
    if (next < 0) return false;
    at = static_cast<uint64_t>(next);
  }
  return true;
}

bool CutHeader(std::span<const uint8_t> piece, PieceFields& out) {
  if (piece.size() < db::kSize) return false;
  out.units.push_back(Unit{std::string_view("\x03", 1), 0, 7});
  for (uint32_t at :
       {db::kSystemTime, db::kSystemTime + 4, db::kSystemTime + 8, db::kSystemTime + 12}) {
    out.fields.push_back(Field{at, 4});
  }
  for (uint32_t at : {db::kPerfTime, db::kPerfFreq, db::kPerfTime100nSec}) {
    out.fields.push_back(Field{at, 8});
  }
  return true;
}

bool Cut(PieceKind kind, std::span<const uint8_t> piece, PieceFields& out) {
  out.fields.clear();
  out.units.clear();
  bool cut = false;
  if (kind == PieceKind::kHeader) cut = CutHeader(piece, out);
  if (kind == PieceKind::kObject) cut = CutObject(piece, out);
  if (!cut) {
    out.fields.clear();
    out.units.clear();
  }
  return cut;
}

// An instance's key without ParentObjectInstance (bytes 8..11 of its definition).
std::string KeyOf(std::string_view key) {
  if (key.size() < id::kSize) return std::string(key);
  std::string folded(key);
  folded.replace(id::kParentObjectInstance, 4, 4, '\0');
  return folded;
}

// Whether two pieces cut into the same fields and units (their keys' bytes included).
bool SameCut(const PieceFields& a, const PieceFields& b) {
  return std::ranges::equal(a.fields, b.fields,
                            [](const Field& x, const Field& y) {
                              return x.offset == y.offset && x.width == y.width;
                            }) &&
         std::ranges::equal(a.units, b.units, [](const Unit& x, const Unit& y) {
           return x.key == y.key && x.first_field == y.first_field &&
                  x.field_count == y.field_count;
         });
}

uint64_t Load(const uint8_t* p, uint32_t width) { return width == 8 ? LoadU64(p) : LoadU32(p); }

void Store(uint8_t* p, uint32_t width, uint64_t value) {
  if (width == 8) {
    StoreU64(p, value);
  } else {
    StoreU32(p, static_cast<uint32_t>(value));
  }
}

// Follows each value through the pieces: the column of each field, numbered in order of first
// appearance. A unit continues the column of the previous piece's unit with the same key and
// occurrence when both have the same fields.
class ColumnTracker {
 public:
  // The columns of `fields` (the next piece's), new ones added at the end of `widths`.
  std::vector<uint32_t> Next(const PieceFields& fields) {
    std::unordered_map<std::string, std::vector<uint32_t>> units;  // key → first column, in order
    std::vector<uint32_t> columns(fields.fields.size());
    for (const Unit& unit : fields.units) {
      std::string key = KeyOf(unit.key);
      std::vector<uint32_t>& seen = units[key];
      const size_t occurrence = seen.size();
      const std::vector<uint32_t>* before = nullptr;
      auto it = previous_.find(key);
      if (it != previous_.end() && occurrence < it->second.size()) before = &it->second;
      bool matched = false;
      if (before != nullptr) {
        const uint32_t first = (*before)[occurrence];
        const uint32_t count = counts_[first];
        matched = count == unit.field_count;
        for (uint32_t f = 0; matched && f < count; ++f) {
          matched = widths_[first + f] == fields.fields[unit.first_field + f].width;
        }
        if (matched) {
          for (uint32_t f = 0; f < count; ++f) columns[unit.first_field + f] = first + f;
          seen.push_back(first);
        }
      }
      if (!matched) {
        const uint32_t first = static_cast<uint32_t>(widths_.size());
        for (uint32_t f = 0; f < unit.field_count; ++f) {
          widths_.push_back(fields.fields[unit.first_field + f].width);
          columns[unit.first_field + f] = first + f;
        }
        counts_.resize(widths_.size());
        counts_[first] = unit.field_count;
        seen.push_back(first);
      }
    }
    previous_ = std::move(units);
    return columns;
  }

  const std::vector<uint32_t>& widths() const { return widths_; }

 private:
  std::vector<uint32_t> widths_;  // per column
  std::vector<uint32_t> counts_;  // per column that begins a unit: the unit's field count
  std::unordered_map<std::string, std::vector<uint32_t>> previous_;
};

// The difference b − a in `width` bytes' arithmetic, as a signed number.
int64_t Difference(uint64_t a, uint64_t b, uint32_t width) {
  if (width == 8) return static_cast<int64_t>(b - a);
  return static_cast<int32_t>(static_cast<uint32_t>(b - a));
}

// The greatest common divisor of the numbers' magnitudes (1 when it is larger than INT64_MAX:
// the quotients must stay signed).
uint64_t Divisor(std::span<const int64_t> numbers) {
  uint64_t divisor = 0;
  for (int64_t n : numbers) {
    const uint64_t magnitude = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
    divisor = std::gcd(divisor, magnitude);
    if (divisor == 1) break;
  }
  return divisor == 0 || divisor > INT64_MAX ? 1 : divisor;
}

// A column's values in the cheapest mode: the mode in `modes`, the first value in `firsts`, then
// in `rest` nothing (constant), one step (a steady rate), or every difference or every
// difference of differences (of the first difference on), as zig-zag varints.
void EncodeColumn(std::span<const uint64_t> values, uint32_t width, std::vector<uint8_t>& modes,
                  std::vector<uint8_t>& firsts, std::vector<uint8_t>& rest) {
  PutVarint64(firsts, values[0]);
  std::vector<int64_t> deltas;
  for (size_t k = 1; k < values.size(); ++k) {
    deltas.push_back(Difference(values[k - 1], values[k], width));
  }
  if (std::all_of(deltas.begin(), deltas.end(), [](int64_t d) { return d == 0; })) {
    modes.push_back(kConstant);
    return;
  }
  if (std::all_of(deltas.begin(), deltas.end(), [&](int64_t d) { return d == deltas[0]; })) {
    modes.push_back(kStep);
    PutVarint64(rest, ZigZag(deltas[0]));
    return;
  }
  // Counters that move in lumps (clock ticks, pages, sectors) are stored in lumps.
  std::vector<int64_t> seconds;
  for (size_t k = 0; k < deltas.size(); ++k) {
    seconds.push_back(k == 0 ? deltas[0]
                             : Difference(static_cast<uint64_t>(deltas[k - 1]),
                                          static_cast<uint64_t>(deltas[k]), width));
  }
  size_t bytes[2] = {0, 0};
  uint64_t divisors[2] = {Divisor(deltas), Divisor(seconds)};
  const std::vector<int64_t>* choices[2] = {&deltas, &seconds};
  for (int c = 0; c < 2; ++c) {
    for (int64_t d : *choices[c]) {
      bytes[c] += VarintSize(ZigZag(d / static_cast<int64_t>(divisors[c])));
    }
    if (divisors[c] > 1) bytes[c] += VarintSize(divisors[c]);
  }
  const int choice = bytes[1] < bytes[0] ? 1 : 0;
  const uint64_t divisor = divisors[choice];
  modes.push_back(
      static_cast<uint8_t>((choice == 1 ? kDeltaOfDelta : kDelta) | (divisor > 1 ? kScaled : 0)));
  if (divisor > 1) PutVarint64(firsts, divisor);
  for (int64_t d : *choices[choice]) PutVarint64(rest, ZigZag(d / static_cast<int64_t>(divisor)));
}

// A column's `count` values (at least one; `mode` says how they are stored) into `values`, which
// is reused from column to column; errors stay in the readers.
void DecodeColumn(uint8_t mode, size_t count, uint32_t width, ByteReader& firsts, ByteReader& rest,
                  std::vector<uint64_t>& values) {
  values.resize(count);
  const uint64_t mask = width == 8 ? ~uint64_t{0} : 0xFFFFFFFFu;
  values[0] = firsts.Varint64("a column's first value") & mask;
  uint64_t divisor = 1;
  if (mode & kScaled) {
    divisor = firsts.Varint64("a column's divisor");
    mode &= ~kScaled;
  }
  if (mode > kDeltaOfDelta || (mode < kDelta && divisor != 1) || divisor == 0) {
    rest.Fail("a column's mode " + std::to_string(mode) + " is unknown");
    return;
  }
  uint64_t step = 0;
  if (mode == kStep && count > 1) step = static_cast<uint64_t>(UnZigZag(rest.Varint64("a step")));
  uint64_t delta = 0;
  for (size_t k = 1; k < count && rest.ok(); ++k) {
    if (mode == kStep) {
      delta = step;
    } else if (mode != kConstant) {
      const uint64_t d = static_cast<uint64_t>(UnZigZag(rest.Varint64("a difference"))) * divisor;
      delta = (mode == kDelta || k == 1) ? d : delta + d;
    }
    values[k] = (values[k - 1] + delta) & mask;
  }
}

}  // namespace

std::vector<uint8_t> EncodeValueColumns(PieceKind kind,
                                        std::span<const std::span<const uint8_t>> pieces) {
  std::vector<uint8_t> table, layouts, modes, firsts, rest;
  PutVarint64(table, pieces.size());
  ColumnTracker tracker;
  std::vector<std::vector<uint64_t>> columns;
  std::vector<uint8_t> previous_layout;
  bool previous_cut = false;
  bool have_previous = false;
  PieceFields fields, check, previous_fields;
  std::vector<uint32_t> owners;
  for (std::span<const uint8_t> piece : pieces) {
    bool cut = Cut(kind, piece, fields);
    std::vector<uint8_t> layout(piece.begin(), piece.end());
    for (const Field& field : fields.fields) Store(layout.data() + field.offset, field.width, 0);
    // The previous piece's layout cut the same way again (most pieces of a group): the decoder
    // cuts it as before and its instances continue the same columns, so neither the check below
    // nor the tracker needs to run again.
    const bool repeated = have_previous && cut && previous_cut && layout == previous_layout &&
                          SameCut(fields, previous_fields);
    // The decoder cuts the layout, not the piece: a piece whose values would cut differently
    // (a producer's counter over a length it walks by) keeps all its bytes.
    if (cut && !repeated &&
        (!Cut(kind, layout, check) || check.fields.size() != fields.fields.size() ||
         !std::equal(check.fields.begin(), check.fields.end(), fields.fields.begin(),
                     [](const Field& a, const Field& b) {
                       return a.offset == b.offset && a.width == b.width;
                     }))) {
      cut = false;
      fields.fields.clear();
      fields.units.clear();
      layout.assign(piece.begin(), piece.end());
    }
    PutVarint64(table, piece.size());
    if (have_previous && cut == previous_cut && layout == previous_layout) {
      table.push_back(kSameLayout);
    } else {
      table.push_back(cut ? kNewLayout : kLayoutOnly);
      layouts.insert(layouts.end(), layout.begin(), layout.end());
    }
    previous_layout = std::move(layout);
    previous_cut = cut;
    have_previous = true;
    if (!repeated) {
      owners = tracker.Next(fields);
      columns.resize(tracker.widths().size());
    }
    for (size_t f = 0; f < owners.size(); ++f) {
      columns[owners[f]].push_back(
          Load(piece.data() + fields.fields[f].offset, fields.fields[f].width));
    }
    std::swap(previous_fields, fields);
  }
  for (uint32_t c = 0; c < tracker.widths().size(); ++c) {
    EncodeColumn(columns[c], tracker.widths()[c], modes, firsts, rest);
  }
  std::vector<uint8_t> out = std::move(table);
  for (const std::vector<uint8_t>* part : {&layouts, &modes, &firsts, &rest}) {
    PutVarint64(out, part->size());
    out.insert(out.end(), part->begin(), part->end());
  }
  return out;
}

Result<std::vector<std::vector<uint8_t>>> DecodeValueColumns(PieceKind kind,
                                                             std::span<const uint8_t> encoded,
                                                             std::span<const size_t> max_sizes) {
  ByteReader table(encoded, "value columns");
  const uint64_t count = table.Varint64("the piece count");
  if (table.ok() && count != max_sizes.size()) table.Fail("the piece count is wrong");
  if (!table.ok()) return table.status();
  std::vector<uint64_t> sizes(count);
  std::vector<uint8_t> layout_modes(count);
  for (size_t i = 0; i < count && table.ok(); ++i) {
    sizes[i] = table.Bounded(max_sizes[i], "a piece's size");
    layout_modes[i] = table.Byte("a piece's layout mode");
    if (layout_modes[i] > kLayoutOnly ||
        (layout_modes[i] == kSameLayout && (i == 0 || sizes[i] != sizes[i - 1]))) {
      table.Fail("piece " + std::to_string(i) + "'s layout mode is wrong");
    }
  }
  std::span<const uint8_t> parts[4];
  for (std::span<const uint8_t>& part : parts) part = table.Bytes("a part");
  if (table.ok() && table.left() != 0) table.Fail("bytes follow the last part");
  if (!table.ok()) return table.status();
  // Layouts, then the columns each piece's layout cuts. Pieces come in runs that share a layout
  // (a repeated layout continues the run), and a column has at most one field in a piece, so its
  // places are (run, offset) pairs in piece order: gathered per run, then sorted by column
  // (stable) into one array, instead of a growing list per column for every piece.
  std::vector<std::vector<uint8_t>> pieces(count);
  ByteReader layouts(parts[0], "value columns' layouts");
  ColumnTracker tracker;
  struct Run {
    uint32_t first_piece = 0;
    uint32_t end_piece = 0;
  };
  struct Place {
    uint32_t column = 0;
    uint32_t run = 0;
    uint32_t offset = 0;
  };
  std::vector<Run> runs;
  std::vector<Place> places;
  PieceFields fields;
  for (size_t i = 0; i < count; ++i) {
    if (layout_modes[i] == kSameLayout) {
      // A repeated layout cuts as the one it repeats, and its instances continue the same
      // columns (the tracker would find every one again): most pieces of a group.
      pieces[i] = pieces[i - 1];
      ++runs.back().end_piece;
      continue;
    }
    std::span<const uint8_t> bytes = layouts.Fixed(sizes[i], "a layout");
    if (!layouts.ok()) return layouts.status();
    pieces[i].assign(bytes.begin(), bytes.end());
    fields.fields.clear();
    fields.units.clear();
    if (layout_modes[i] == kNewLayout && !Cut(kind, pieces[i], fields)) {
      return Status::DataLoss("value columns: piece " + std::to_string(i) + " does not cut");
    }
    const std::vector<uint32_t> owners = tracker.Next(fields);
    const uint32_t run = static_cast<uint32_t>(runs.size());
    runs.push_back(Run{static_cast<uint32_t>(i), static_cast<uint32_t>(i + 1)});
    for (size_t f = 0; f < owners.size(); ++f) {
      places.push_back(Place{owners[f], run, fields.fields[f].offset});
    }
  }
  if (layouts.left() != 0) return Status::DataLoss("value columns: bytes after the layouts");
  const size_t columns = tracker.widths().size();
  std::vector<size_t> column_begin(columns + 1, 0);
  for (const Place& place : places) ++column_begin[place.column + 1];
  for (size_t c = 0; c < columns; ++c) column_begin[c + 1] += column_begin[c];
  std::vector<Place> by_column(places.size());
  {
    std::vector<size_t> next(column_begin.begin(), column_begin.end() - 1);
    for (const Place& place : places) by_column[next[place.column]++] = place;
  }
  ByteReader modes(parts[1], "value columns' modes");
  ByteReader firsts(parts[2], "value columns' first values");
  ByteReader rest(parts[3], "value columns' differences");
  std::vector<uint64_t> values;
  for (uint32_t c = 0; c < columns; ++c) {
    const uint8_t mode = modes.Byte("a column's mode");
    const uint32_t width = tracker.widths()[c];
    size_t value_count = 0;
    for (size_t p = column_begin[c]; p < column_begin[c + 1]; ++p) {
      const Run& run = runs[by_column[p].run];
      value_count += run.end_piece - run.first_piece;
    }
    DecodeColumn(mode, value_count, width, firsts, rest, values);
    if (!modes.ok() || !firsts.ok() || !rest.ok()) break;
    size_t k = 0;
    for (size_t p = column_begin[c]; p < column_begin[c + 1]; ++p) {
      const Run& run = runs[by_column[p].run];
      for (uint32_t piece = run.first_piece; piece < run.end_piece; ++piece) {
        Store(pieces[piece].data() + by_column[p].offset, width, values[k++]);
      }
    }
  }
  for (const ByteReader* reader : {&modes, &firsts, &rest}) {
    if (!reader->ok()) return reader->status();
    if (reader->left() != 0) return Status::DataLoss("value columns: bytes after the last column");
  }
  return pieces;
}

}  // namespace perfhive
