// SampleReader: what the query engine reads stored samples through. The engine (query/
// read_engine.h) plans, estimates and computes; a SampleReader lists and restores the samples
// of one host, each with the title databases in force when it was taken. The store implements
// it (store/sample_loader.h); tests may implement it over samples in memory.

#ifndef PERFHIVE_QUERY_SAMPLE_READER_H_
#define PERFHIVE_QUERY_SAMPLE_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "perfdata/path_expander.h"
#include "query/host_samples.h"
#include "query/series_query.h"

namespace perfhive::query {

class SampleReader {
 public:
  // The samples of one host that a read of a range will load, listed but not loaded. Only its
  // reader knows what it holds; the engine counts it, probes it and hands it back to load.
  class Listing {
   public:
    virtual ~Listing() = default;
    virtual size_t size() const = 0;
  };

  // One query's samples in a listing, with the newest of them restored as Load restores it: what
  // a read is estimated by before it loads the rest.
  struct QueryInRange {
    ProbeSample newest;           // and how many samples of the query the range holds
    int64_t raw_bytes = 0;        // of those samples, as taken
    int64_t newest_raw_size = 0;  // of the newest, as taken (it may be restored in part)
  };

  virtual ~SampleReader() = default;

  // The names of the hosts there are samples of.
  virtual Result<std::vector<std::string>> HostNames() = 0;

  // The samples of `host` taken from `from_ns` to `to_ns` and the newest before them (the older
  // end of the first interval).
  virtual Result<std::unique_ptr<Listing>> List(const std::string& host, int64_t from_ns,
                                                int64_t to_ns) = 0;
  // Each query of the listed samples taken from `from_ns` on, the newest of each restored when
  // `restore_newest` (else counted only: `newest.sample` is empty). With `objects`, samples may
  // hold only the objects it selects (and their parents).
  virtual Result<std::vector<QueryInRange>> Probe(const std::string& host, const Listing& listed,
                                                  int64_t from_ns, const ObjectNameFilter* objects,
                                                  bool restore_newest) = 0;
  // The listed samples restored, in time order (with `objects` as above).
  virtual Result<HostSamples> Load(const std::string& host, const Listing& listed,
                                   const ObjectNameFilter* objects) = 0;
  // List and Load in one.
  virtual Result<HostSamples> LoadRange(const std::string& host, int64_t from_ns, int64_t to_ns,
                                        const ObjectNameFilter* objects) = 0;
  // The newest two samples of each query among the newest few: the latest value of every counter.
  virtual Result<HostSamples> LoadLatest(const std::string& host,
                                         const ObjectNameFilter* objects) = 0;
  // A whole sample of `host` taken from `from_ns` to `to_ns`, for the names it holds: the newest
  // Global one among the newest few (Global has every object but the costly ones), else the
  // newest.
  virtual Result<HostSample> WholeSampleIn(const std::string& host, int64_t from_ns,
                                           int64_t to_ns) = 0;
  // The samples browsing reads names from, as of `at_ns` (INT64_MAX: now): the newest whole
  // sample taken at or before it (chosen as WholeSampleIn chooses), then the newest of each other
  // query among the same candidates, newest first: they may hold objects it lacks (a Linux
  // host's Thread is in its Costly samples only). With `objects`, as Load. kNotFound when the
  // host has no sample by then.
  virtual Result<std::vector<HostSample>> BrowseSamples(const std::string& host, int64_t at_ns,
                                                        const ObjectNameFilter* objects) = 0;
  // When the sample of `host` nearest to the range was taken, if it has any.
  virtual std::optional<int64_t> NearestSampleTime(const std::string& host, int64_t from_ns,
                                                   int64_t to_ns) = 0;
};

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_SAMPLE_READER_H_
