// perfhive: the command-line client.

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/decode_command.h"

int main(int argc, char** argv) {
  CLI::App app{"perfhive: Windows performance counters for a whole fleet"};
  app.require_subcommand(1);

  perfhive::cli::DecodeOptions decode;
  CLI::App* decode_cmd = app.add_subcommand(
      "decode", "Print a raw snapshot file (PERF_DATA_BLOCK) with names resolved");
  decode_cmd->add_option("SNAPSHOT", decode.snapshot_path, "Raw snapshot file")->required();
  decode_cmd->add_option("NEXT", decode.next_path,
                         "A later snapshot of the same host: print it with each counter's value "
                         "and status computed from SNAPSHOT to NEXT");
  decode_cmd->add_option("--path", decode.paths,
                         "Print only the counters this counter path selects (wildcards allowed; "
                         "repeatable), e.g. '\\Processor(*)\\% Processor Time'");
  decode_cmd->add_option("--titles", decode.titles_path,
                         "Title database: a `lodctr /S` dump or the bytes of \"Counter 009\"");
  std::map<std::string, perfhive::cli::DecodeOptions::Format> formats = {
      {"table", perfhive::cli::DecodeOptions::Format::kTable},
      {"json", perfhive::cli::DecodeOptions::Format::kJson}};
  decode_cmd->add_option("--format", decode.format, "Output format: table or json")
      ->transform(CLI::CheckedTransformer(formats, CLI::ignore_case));

  CLI11_PARSE(app, argc, argv);
  if (decode_cmd->parsed()) return perfhive::cli::RunDecode(decode, std::cout, std::cerr);
  return 2;
}
