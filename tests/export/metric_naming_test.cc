// The PDH → Prometheus naming table of docs/prometheus.md, on real Windows counter names and
// the types Windows gives them.

#include "export/metric_naming.h"

#include <gtest/gtest.h>

#include "perfdata/winperf.h"

namespace perfhive {
namespace {

namespace wp = winperf;

struct Case {
  const char* object;
  const char* counter;
  uint32_t type;
  const char* name;
  double raw;       // a value as perfhive computes it
  double exported;  // the same value as exported
};

TEST(MetricNamingTest, RealWindowsCounters) {
  const Case kCases[] = {
      {"Processor", "% Processor Time", wp::k100NsecTimerInv, "pdh_processor_processor_time_ratio",
       37.5, 0.375},
      {"PhysicalDisk", "Avg. Disk sec/Read", wp::kAverageTimer,
       "pdh_physical_disk_avg_disk_read_seconds", 7, 7},
      {"PhysicalDisk", "Avg. Disk Bytes/Read", wp::kAverageBulk,
       "pdh_physical_disk_avg_disk_bytes_per_read", 7, 7},
      {"PhysicalDisk", "Current Disk Queue Length", wp::kCounterRawcount,
       "pdh_physical_disk_current_disk_queue_length", 7, 7},
      {"Network Interface", "Bytes Received/sec", wp::kCounterBulkCount,
       "pdh_network_interface_bytes_received_per_second", 7, 7},
      {"Process", "Handle Count", wp::kCounterRawcount, "pdh_process_handles", 7, 7},
      {"Process", "Thread Count", wp::kCounterRawcount, "pdh_process_threads", 7, 7},
      {"Process", "Elapsed Time", wp::kElapsedTime, "pdh_process_elapsed_time_seconds", 7, 7},
      {"Process", "ID Process", wp::kCounterRawcount, "pdh_process_id_process", 7, 7},
      {"Memory", "Available MBytes", wp::kCounterRawcount, "pdh_memory_available_mbytes_as_bytes",
       3, 3145728},
      {"Memory", "Available KBytes", wp::kCounterRawcount, "pdh_memory_available_kbytes_as_bytes",
       5, 5120},
      {"Memory", "Available Bytes", wp::kCounterRawcount, "pdh_memory_available_bytes", 7, 7},
      {"Memory", "Pages/sec", wp::kCounterCounter, "pdh_memory_pages_per_second", 7, 7},
      {"Memory", "% Committed Bytes In Use", wp::kRawFraction,
       "pdh_memory_committed_bytes_in_use_ratio", 99, 0.99},
      {"System", "System Up Time", wp::kElapsedTime, "pdh_system_system_up_time_seconds", 7, 7},
      {"System", "Processor Queue Length", wp::kCounterRawcount,
       "pdh_system_processor_queue_length", 7, 7},
      {"System", "Processes", wp::kCounterRawcount, "pdh_system_processes", 7, 7},
      {"Objects", "Processes", wp::kCounterRawcount, "pdh_objects_processes", 7, 7},
      {"TCPv4", "Segments/sec", wp::kCounterCounter, "pdh_tcpv4_segments_per_second", 7, 7},
      {"Paging File", "% Usage Peak", wp::kRawFraction, "pdh_paging_file_usage_peak_ratio", 99,
       0.99},
      {".NET CLR Memory", "# Bytes in all Heaps", wp::kCounterLargeRawcount,
       "pdh_net_clr_memory_bytes_in_all_heaps", 7, 7},
      {"SQLServer:Buffer Manager", "Page life expectancy", wp::kCounterLargeRawcount,
       "pdh_sql_server_buffer_manager_page_life_expectancy", 7, 7},
      {"Terminal Services", "Total Sessions", wp::kCounterRawcount,
       "pdh_terminal_services_total_sessions", 7, 7},
  };
  for (const Case& c : kCases) {
    MetricName metric = MapMetricName(c.object, c.counter, c.type);
    EXPECT_EQ(metric.name, c.name) << c.object << "\\" << c.counter;
    EXPECT_EQ(metric.Apply(c.raw), c.exported) << c.object << "\\" << c.counter;
  }
}

TEST(MetricNamingTest, SuffixesPromtoolReservesAreRewritten) {
  // _count and _sum are histogram parts, _total is for counters: none may end a gauge.
  EXPECT_EQ(MapMetricName("Job Object", "Process Count", wp::kCounterRawcount).name,
            "pdh_job_object_processes");
  EXPECT_EQ(MapMetricName("Cache", "Entry Count", wp::kCounterRawcount).name, "pdh_cache_entries");
  EXPECT_EQ(MapMetricName("Widget", "Count", wp::kCounterRawcount).name, "pdh_widget_number");
  EXPECT_EQ(MapMetricName("Server", "Errors Total", wp::kCounterRawcount).name,
            "pdh_server_total_errors");
  EXPECT_EQ(MapMetricName("Hash", "Checksum", wp::kCounterRawcount).name, "pdh_hash_checksum");
  EXPECT_EQ(MapMetricName("Hash", "Block Sum", wp::kCounterRawcount).name,
            "pdh_hash_block_sum_value");
}

TEST(MetricNamingTest, NoAbbreviatedUnitsOrStrayCharacters) {
  // An apostrophe joins ("processors", not "processor_s", which promtool reads as seconds).
  EXPECT_EQ(MapMetricName("Queue", "Processor's Load", wp::kCounterRawcount).name,
            "pdh_queue_processors_load");
  EXPECT_EQ(MapMetricName("Web Service", "Avg ms/Request", wp::kCounterRawcount).name,
            "pdh_web_service_avg_request_seconds");
  EXPECT_EQ(MapMetricName("Web Service", "Avg ms/Request", wp::kCounterRawcount).Apply(250), 0.25);
  EXPECT_EQ(MapMetricName("Web Service", "Hits/ms", wp::kCounterRawcount).Apply(2), 2000);
  // A lone letter that promtool reads as a unit (m, h, d, s, b) joins the word before it.
  EXPECT_EQ(MapMetricName("Thing", "Level D Hits", wp::kCounterRawcount).name,
            "pdh_thing_leveld_hits");
  EXPECT_EQ(MapMetricName("Stränge Öbject", "Zähler", wp::kCounterRawcount).name,
            "pdh_str_nge_bject_z_hler");
  EXPECT_EQ(MapMetricName("Odd", "%", wp::kRawFraction).name, "pdh_odd_ratio");
  EXPECT_EQ(MapMetricName("Odd", "#", wp::kCounterRawcount).name, "pdh_odd_value");
}

TEST(MetricNamingTest, HelpNamesTheCounterAndTheConversion) {
  MetricName metric = MapMetricName("Memory", "Available MBytes", wp::kCounterRawcount);
  EXPECT_EQ(metric.help,
            "PDH counter \\Memory\\Available MBytes (PERF_COUNTER_RAWCOUNT), in base units "
            "(value × 1048576)");
  EXPECT_EQ(MapMetricName("Processor", "% Idle Time", wp::k100NsecTimer).help,
            "PDH counter \\Processor\\% Idle Time (PERF_100NSEC_TIMER), as a ratio (percent / "
            "100)");
}

TEST(MetricNamingTest, NamerCachesTheSameMapping) {
  MetricNamer namer;
  const MetricName& first = namer.Map("Process", "Handle Count", wp::kCounterRawcount);
  const MetricName& again = namer.Map("Process", "Handle Count", wp::kCounterRawcount);
  EXPECT_EQ(&first, &again);
  EXPECT_EQ(first.name, "pdh_process_handles");
  // The type is part of the key: a percent type gives another metric.
  EXPECT_EQ(namer.Map("Process", "Handle Count", wp::kRawFraction).name,
            "pdh_process_handle_count_ratio");
}

}  // namespace
}  // namespace perfhive
